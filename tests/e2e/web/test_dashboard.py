"""The dashboard in real headless Chromium against `finrpa serve`: an operator signs in (zh-CN), starts
bank_statement_download from its generated form, watches it complete live and opens the before/after
screenshots; an approver approves a payment in the approvals inbox (its requester may not) and the run pays
once; an auditor verifies the chain and downloads the evidence export; an admin stores a credential through
the write-only form, manages the organisation's policies and switches the interface to English, which
survives a reload."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from finrpa.commands.demo import DEMO_ACCOUNT, DEMO_PERIOD, DEMO_USER
from finrpa.sandbox.directory import DEMO_PASSWORD
from tests.e2e.web.conftest import (
    BANK_SECRET,
    ContextFactory,
    Screenshots,
    Stack,
    sign_in,
    start_run,
    start_statement_run,
    wait_for_status,
)

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 240_000


def _pick_date(page: Page, label: str, value: str) -> None:
    field = page.get_by_label(label)
    field.fill(value)
    field.press("Enter")


def _fill_statement_form(page: Page, stack: Stack, password: str) -> None:
    page.get_by_label("网银地址").fill(f"{stack.sandbox_url}/bank/login")
    page.get_by_label("用户名").fill(DEMO_USER)
    page.get_by_label("密码", exact=False).first.fill(password)
    page.get_by_label("账号").fill(DEMO_ACCOUNT)
    _pick_date(page, "开始日期", DEMO_PERIOD[0].isoformat())
    _pick_date(page, "结束日期", DEMO_PERIOD[1].isoformat())


def _confirm_popover(page: Page) -> None:
    """Press OK in the open confirmation popover. A click that lands while the popover is still animating in can be
    lost on a loaded machine (as it can for a person, who presses again), so press again while it stays open."""
    popover = page.locator(".ant-popconfirm:not(.ant-popover-hidden)")
    ok = popover.get_by_role("button", name=re.compile(r"^(确 定|OK)$"))
    for _ in range(3):
        ok.click()
        try:
            expect(popover).to_have_count(0, timeout=5_000)
            return
        except AssertionError:
            continue
    expect(popover).to_have_count(0)


def _images_loaded(page: Page) -> list[int]:
    widths: list[int] = page.eval_on_selector_all(
        ".ant-modal figure img", "images => images.map(image => image.complete ? image.naturalWidth : 0)"
    )
    return widths


def test_operator_starts_a_statement_download_and_watches_it_complete(
    stack: Stack, new_context: ContextFactory, screenshots: Screenshots
) -> None:
    page = new_context("zh-CN").new_page()
    page.goto(f"{stack.base_url}/")
    expect(page.get_by_text("登录 FinRPA")).to_be_visible()
    screenshots.save(page, "login")
    sign_in(page, stack, "operator")

    page.get_by_role("menuitem", name="任务").click()
    page.get_by_role("button", name="新建任务").first.click()
    page.get_by_role("combobox", name="模板").click()
    page.get_by_title("银行流水下载").click()
    _fill_statement_form(page, stack, DEMO_PASSWORD)
    page.get_by_role("button", name="开始执行").click()
    expect(page.get_by_text("此处只接受凭据引用")).to_be_visible()
    assert "/tasks/new" in page.url, "a plain-text password must not start a run"

    page.get_by_label("密码", exact=False).first.fill(f"secret://{BANK_SECRET}")
    expect(page.get_by_text("此处只接受凭据引用")).to_have_count(0)
    screenshots.save(page, "task-create")
    page.get_by_role("button", name="开始执行").click()
    page.wait_for_url(re.compile(r"/tasks/[0-9a-f]{16,}$"))

    status = page.get_by_test_id("task-status")
    expect(status.locator("[data-status=RUNNING]")).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("live-state")).to_contain_text("实时更新中")
    expect(status.locator("[data-status=COMPLETED]")).to_be_visible(timeout=RUN_TIMEOUT_MS)
    expect(page.get_by_test_id("subtasks").locator("[data-status=SUCCESS]")).to_have_count(4)
    timeline = page.get_by_test_id("action-timeline")
    expect(timeline.get_by_role("button", name=re.compile("查看第"))).not_to_have_count(0)
    assert DEMO_PASSWORD not in page.content(), "the portal password must never reach the page"
    screenshots.save(page, "task-detail")

    timeline.get_by_role("button", name=re.compile("查看第")).nth(1).click()
    expect(page.get_by_test_id("screenshot-before").locator("img")).to_be_visible()
    expect(page.get_by_test_id("screenshot-after").locator("img")).to_be_visible()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.ant-modal figure img')].every(i => i.complete && i.naturalWidth > 0)"
    )
    assert all(width > 0 for width in _images_loaded(page))
    expect(page.locator(".ant-zoom-appear-active, .ant-zoom-enter-active")).to_have_count(0)  # opening animation done
    screenshots.save(page, "task-screenshots", full_page=False)
    page.locator(".ant-modal-close").click()
    expect(page.get_by_role("dialog")).to_be_hidden()

    page.get_by_role("menuitem", name="任务").click()
    expect(page.locator("tbody [data-status=COMPLETED]").first).to_be_visible()
    screenshots.save(page, "tasks")


def test_operator_resolves_a_run_waiting_for_a_person(
    stack: Stack, new_context: ContextFactory, screenshots: Screenshots
) -> None:
    task_id = start_statement_run(stack, account_number="6222000000000000999")  # not an account of this user
    assert wait_for_status(stack, task_id, {"NEEDS_HUMAN"}) == "NEEDS_HUMAN"
    page = new_context("zh-CN").new_page()
    sign_in(page, stack, "operator")
    page.goto(f"{stack.base_url}/tasks/{task_id}")

    panel = page.get_by_test_id("needs-human-panel")
    expect(panel).to_contain_text("需要人工处理")
    expect(panel).to_contain_text("6222000000000000999")  # what went wrong, in the portal's own terms
    expect(panel).to_contain_text("查询账户明细")  # where the run stopped
    panel.get_by_role("button", name="查看截图").click()
    expect(page.get_by_test_id("screenshot-before").locator("img")).to_be_visible()
    page.locator(".ant-modal-close").click()
    expect(page.get_by_role("dialog")).to_be_hidden()
    screenshots.save(page, "needs-human")

    panel.get_by_label("处理说明").fill("账号填写错误，终止本次查询")
    panel.get_by_role("button", name="中止任务").click()
    _confirm_popover(page)
    expect(page.get_by_test_id("task-status").locator("[data-status=ABORTED]")).to_be_visible(timeout=60_000)
    expect(panel).to_have_count(0)
    expect(page.get_by_test_id("action-timeline")).to_contain_text("HUMAN_INTERVENTION")  # the choice is audited


def test_a_payment_waits_for_approval_and_completes_once_approved(
    stack: Stack, new_context: ContextFactory, screenshots: Screenshots
) -> None:
    reference = "INV-E2E-0001"
    parameters = {
        "bank_url": f"{stack.sandbox_url}/bank/login",
        "username": DEMO_USER,
        "password": f"secret://{BANK_SECRET}",
        "payer_account": DEMO_ACCOUNT,
        "payee_name": "杭州示例电子商务有限公司",
        "payee_account": "3301040160000012345",
        "payee_bank": "招商银行",
        "amount": "12345.60",
        "business_ref": reference,
    }
    task_id = start_run(stack, "bank_payment_submission", parameters)
    assert wait_for_status(stack, task_id, {"WAITING_APPROVAL"}) == "WAITING_APPROVAL"

    requester = new_context("zh-CN").new_page()
    sign_in(requester, stack, "operator")  # the requester sees the request but may not decide it (maker-checker)
    requester.get_by_role("menuitem", name="审批").click()
    requester.get_by_test_id("approvals-filter").get_by_text("审批中").click()
    requester.get_by_test_id("approval-link").first.click()
    expect(requester.get_by_test_id("approval-cannot-decide")).to_contain_text("须由其他审批人审批")
    expect(requester.get_by_test_id("approval-decide")).to_have_count(0)

    page = new_context("zh-CN").new_page()
    sign_in(page, stack, "approver")
    page.get_by_role("menuitem", name="审批").click()
    expect(page.get_by_test_id("approval-link")).to_have_count(1)  # the approver's queue: this payment only
    page.get_by_test_id("approval-link").click()
    detail = page.get_by_test_id("approval-detail")
    expect(detail.get_by_test_id("approval-risk")).to_have_text("高风险")
    expect(detail.get_by_test_id("approval-reasons")).to_contain_text("money movement")  # the detector's reasons
    expect(detail.get_by_test_id("approval-progress")).to_contain_text("0/1")
    expect(detail.get_by_test_id("approval-action")).to_contain_text("12345.60")
    evidence = detail.get_by_test_id("approval-evidence").locator("img")
    expect(evidence).to_be_visible()
    page.wait_for_function("image => image.complete && image.naturalWidth > 0", arg=evidence.element_handle())
    expect(page.locator(".ant-spin-spinning")).to_have_count(0)
    screenshots.save(page, "approvals")
    assert payments_for(stack, reference) == [], "nothing is paid before the approval"

    detail.get_by_role("textbox", name="审批意见").fill("核对发票无误")
    detail.get_by_test_id("approve").click()
    expect(detail.get_by_test_id("approval-status")).to_have_attribute("data-status", "APPROVED")
    expect(detail.get_by_test_id("approval-progress")).to_contain_text("1/1")
    expect(detail.get_by_test_id("approval-progress")).to_contain_text("赵复核 已批准 — “核对发票无误”")
    expect(page.get_by_test_id("approval-link")).to_have_count(0)  # decided: gone from the queue
    screenshots.save(page, "approvals-decided")

    detail.get_by_role("link", name="查看任务").click()
    expect(page.get_by_test_id("task-status").locator("[data-status=COMPLETED]")).to_be_visible(timeout=RUN_TIMEOUT_MS)
    expect(page.get_by_test_id("action-timeline")).to_contain_text("APPROVAL_DECISION")
    assert len(payments_for(stack, reference)) == 1, "the approved payment is made exactly once"


def payments_for(stack: Stack, reference: str) -> list[dict[str, object]]:
    state = httpx.get(f"{stack.sandbox_url}/__sandbox__/state", timeout=10).json()
    return [payment for payment in state["payments"] if payment.get("purpose") == reference]


def test_auditor_verifies_the_chain_and_downloads_the_export(
    stack: Stack, completed_run: str, new_context: ContextFactory, screenshots: Screenshots, tmp_path: Path
) -> None:
    page = new_context("zh-CN").new_page()
    sign_in(page, stack, "auditor")
    page.get_by_role("menuitem", name="审计").click()
    expect(page.get_by_role("link", name=completed_run[:8]).first).to_be_visible()

    page.get_by_role("button", name="校验审计链").click()
    verdict = page.get_by_test_id("verify-result")
    expect(verdict).to_contain_text("审计链完整")
    screenshots.save(page, "audit")

    with page.expect_download() as started:
        page.get_by_role("button", name="导出证据包").click()
    target = tmp_path / started.value.suggested_filename
    started.value.save_as(target)
    assert target.suffix == ".zip"
    with zipfile.ZipFile(target) as archive:
        names = set(archive.namelist())
        manifest = json.loads(archive.read("manifest.json"))
    assert {"manifest.json", "manifest.sig", "checkpoint.json"} <= names
    assert completed_run in json.dumps(manifest) or any(completed_run in name for name in names), (
        "the export holds the run's evidence"
    )
    assert DEMO_PASSWORD.encode() not in target.read_bytes()


def test_admin_stores_a_credential_write_only_and_switches_to_english(
    stack: Stack, completed_run: str, new_context: ContextFactory, screenshots: Screenshots
) -> None:
    page = new_context("zh-CN").new_page()
    sign_in(page, stack, "admin")
    expect(page.get_by_role("img", name="任务状态分布")).to_be_visible()  # the chart of the runs so far
    screenshots.save(page, "overview")
    page.get_by_role("menuitem", name="成本").click()
    expect(page.get_by_text("模型路由决策")).to_be_visible()
    screenshots.save(page, "cost")
    page.get_by_role("menuitem", name="技能与模板").click()
    expect(page.get_by_text("bank_statement_download")).to_be_visible()
    screenshots.save(page, "catalogue")

    page.get_by_role("menuitem", name="系统管理").click()
    page.get_by_role("tab", name="凭据").click()
    value = "e2e-not-a-real-value-" + stack.org_slug
    page.get_by_label("名称").fill("e2e/portal")
    page.get_by_label("值").fill(value)
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_text("已保存为 secret://e2e/portal")).to_be_visible()
    expect(page.get_by_role("cell", name="secret://e2e/portal")).to_be_visible()
    assert value not in page.content(), "a stored credential is never shown again"
    screenshots.save(page, "admin-credentials")
    page.get_by_role("tab", name="用户与角色").click()
    operator_row = page.get_by_role("row").filter(has=page.get_by_role("cell", name="operator", exact=True))
    expect(operator_row).to_contain_text("运营部 · 经办")
    screenshots.save(page, "admin-users")
    operator_row.get_by_role("button", name="分配角色").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("combobox", name="部门").click()
    page.get_by_title("运营部", exact=True).click()
    dialog.get_by_role("combobox", name="角色").click()
    page.get_by_title("复核/授权", exact=True).click()
    dialog.get_by_role("button", name="确 定").or_(dialog.get_by_role("button", name="OK")).click()
    refusal = dialog.get_by_role("alert").filter(has_text="已拒绝")
    expect(refusal).to_contain_text("职责分离")  # maker-checker holds, said in Chinese
    page.get_by_role("button", name="取 消").or_(page.get_by_role("button", name="Cancel")).click()
    expect(operator_row).not_to_contain_text("复核/授权")

    page.get_by_test_id("language-switch").get_by_text("English").click()
    expect(page.get_by_role("menuitem", name="Tasks")).to_be_visible()
    page.reload()
    expect(page.get_by_role("menuitem", name="Tasks")).to_be_visible()
    expect(page.get_by_test_id("current-user")).to_have_text("李管理")  # still signed in after the reload
    page.get_by_role("menuitem", name="Overview").click()
    expect(page.get_by_role("img", name="Runs by status")).to_be_visible()
    screenshots.save(page, "overview-en")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_text("Sign in to FinRPA")).to_be_visible()
    page.reload()
    expect(page.get_by_text("Sign in to FinRPA")).to_be_visible()  # signing out ended the refresh session too


def test_admin_adds_a_policy_sees_the_validators_message_and_disables_it(
    stack: Stack, new_context: ContextFactory, screenshots: Screenshots
) -> None:
    page = new_context("zh-CN").new_page()
    sign_in(page, stack, "admin")
    page.get_by_role("menuitem", name="系统管理").click()
    page.get_by_role("tab", name="策略").click()
    page.locator(".ant-collapse-header").filter(has_text="系统默认策略").click()
    expect(page.get_by_text("approval.high_risk", exact=True)).to_be_visible()  # the shipped default set, read-only

    page.get_by_label("名称").fill("超大额付款禁止")
    text = page.get_by_label("Cedar 策略文本")
    text.fill('@id("org.huge_payments") @reason("超大额付款须在柜台办理。") forbid (principal, action, resource)\n'
              "when { context.amount > 100000000 };")  # fmt: skip
    page.get_by_test_id("add-policy").click()
    error = page.get_by_test_id("policy-error")
    expect(error).to_contain_text("策略未通过校验")
    expect(error).to_contain_text("does not validate against the FinRPA schema")  # the validator's own words
    expect(page.get_by_test_id("policies-table")).not_to_contain_text("超大额付款禁止")

    text.fill('@id("org.huge_payments") @reason("超大额付款须在柜台办理。")\n'
              'forbid (principal, action == Action::"payment.submit", resource)\n'
              "when { context.amount_cny > 100000000 };")  # fmt: skip
    page.get_by_test_id("add-policy").click()
    expect(page.get_by_text("已添加策略“超大额付款禁止”（1 条规则），立即生效。")).to_be_visible()
    row = page.get_by_test_id("policies-table").get_by_role("row").filter(has_text="超大额付款禁止")
    expect(row).to_contain_text("org.huge_payments")
    expect(row).to_contain_text("生效中")
    screenshots.save(page, "admin-policies")

    row.get_by_test_id("disable-policy").click()
    _confirm_popover(page)
    expect(row).to_contain_text("已停用")
    expect(row.get_by_test_id("disable-policy")).to_have_count(0)

"""A portal that answers a submitted form with its own error messages: the step fails as form_rejected with
the portal's words (masked), is not retried, and the payment's effect is left for reconciliation, not lost.
Real headless Chromium against the sandbox bank, and small pages for what portals do that the sandbox does not."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page
from sqlalchemy import select

from finrpa import skills
from finrpa.agents.plan import TaskStatus
from finrpa.browser import BrowserManager, RunBrowser, RunBrowserConfig, SecretText
from finrpa.browser.page_messages import MessageKind, PageMessage, read_page_messages
from finrpa.db.engine import unit_of_work
from finrpa.runs.effects import EffectState
from finrpa.runs.models import Effect
from finrpa.runs.repository import RunRepository
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from tests.fixtures.databases import fresh_database
from tests.fixtures.runs import RunHarness, approve_when_asked, run_harness
from tests.integration.runs.conftest import configure, reset, sandbox_state, start

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PAYMENT = {
    "收款人名称": "杭州示例电子商务有限公司",
    "收款账号": "3301040160000012345",
    "收款银行": "招商银行",
    "金额": "100.00",
    "用途/附言": "INV-OK-1",
}
TOO_LONG = "INV-" + "9" * 47  # 51 characters: the bank's 用途/附言 takes at most 50


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxServer]:
    with SandboxServer(SandboxConfig(port=0, expose_state=True, dynamic_ids=True)) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager() -> AsyncIterator[BrowserManager]:
    started = BrowserManager()
    await started.start()
    yield started
    await started.close()


@pytest.fixture
def browser(manager: BrowserManager) -> Browser:
    """The run tests' Chromium, used directly: skills as a library on an engineer's own page."""
    return manager.browser


@pytest_asyncio.fixture(loop_scope="module")
async def bank(browser: Browser, sandbox: SandboxServer) -> AsyncIterator[Page]:
    """A page signed in to the sandbox bank (v1 layout, no transient errors)."""
    configure(sandbox, layout="v1", error_rate=0.0)
    reset(sandbox)
    context = await browser.new_context(locale="zh-CN")
    page = await context.new_page()
    await page.goto(f"{sandbox.base_url}/bank/login")
    login = await skills.execute(
        "LoginSkill",
        {"url": f"{sandbox.base_url}/bank/login", "username": "corp_demo", "password": SecretText(DEMO_PASSWORD)},
        page=page,
    )
    assert login.success, login.error_message
    yield page
    await context.close()


@pytest_asyncio.fixture(loop_scope="module")
async def blank(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(locale="zh-CN")
    yield await context.new_page()
    await context.close()


def payment(**fields: Any) -> dict[str, Any]:
    return {
        "navigate_to": ["对公付款"],
        "fields": PAYMENT | fields,
        "submit": "提交",
        "confirm": "确认",
        "capture": {"reference": "交易流水号"},
    }


def paid(sandbox: SandboxServer, purpose: str) -> list[dict[str, Any]]:
    return [p for p in sandbox_state(sandbox)["payments"] if p["purpose"] == purpose]


async def test_an_over_long_purpose_is_rejected_with_the_banks_message(bank: Page, sandbox: SandboxServer) -> None:
    result = await skills.execute("FormFillSkill", payment(**{"用途/附言": TOO_LONG}), page=bank)
    assert not result.success
    assert result.error_code == "form_rejected" and not result.retryable
    assert "用途/附言不能超过 50 个字符" in (result.error_message or "")
    assert not paid(sandbox, TOO_LONG)


async def test_a_rejection_without_a_confirmation_dialog_is_form_rejected(bank: Page, sandbox: SandboxServer) -> None:
    # An empty payee name skips the bank's confirmation dialog: the server answers the submit itself.
    result = await skills.execute("FormFillSkill", payment(**{"收款人名称": ""}), page=bank)
    assert result.error_code == "form_rejected", result.error_message
    assert "收款人名称不能为空" in (result.error_message or "")


async def test_a_sensitive_payee_account_never_appears_in_the_rejection(bank: Page, sandbox: SandboxServer) -> None:
    params = payment(**{"收款账号": "62AB0001"}) | {"sensitive_fields": ["收款账号"]}
    result = await skills.execute("FormFillSkill", params, page=bank)
    assert result.error_code == "form_rejected"
    assert "收款账号应为 8 至 32 位数字" in (result.error_message or "")
    assert "62AB0001" not in (result.error_message or "")


async def test_an_accepted_payment_still_captures_its_reference(bank: Page, sandbox: SandboxServer) -> None:
    result = await skills.execute("FormFillSkill", payment(), page=bank)
    assert result.success, result.error_message
    assert result.data["reference"] == paid(sandbox, "INV-OK-1")[0]["reference"]


# A portal whose script answers the submit in the page (as single-page portals do): a toast after a
# delay, echoing what was typed.
ECHOING_FORM = """
<form id="f"><label>经办人 <input name="who"></label><label>交易密码 <input name="pin" type="password"></label>
<label>备注 <input name="note"></label><button type="submit">提交</button></form>
<div id="toast" role="alert" hidden></div>
<script>
document.getElementById("f").addEventListener("submit", (e) => {
  e.preventDefault();
  const f = e.target.elements;
  setTimeout(() => { const t = document.getElementById("toast"); t.hidden = false;
    t.textContent = `经办人 ${f.who.value} 的交易密码 ${f.pin.value} 不正确（备注：${f.note.value}）`; }, 400);
});
</script>
"""


async def test_a_late_toast_is_read_and_secret_values_are_masked(blank: Page) -> None:
    await blank.set_content(ECHOING_FORM)
    params = {
        "fields": {"经办人": "张三", "交易密码": SecretText("864209"), "备注": "客户编号 0421"},
        "sensitive_fields": ["备注"],
        "submit": "提交",
        "capture": {"reference": "流水号"},
    }
    result = await skills.execute("FormFillSkill", params, page=blank)
    assert result.error_code == "form_rejected", result.error_message
    message = result.error_message or ""
    assert "经办人 张三 的交易密码 ****** 不正确（备注：******）" in message
    assert "864209" not in message and "0421" not in message


MESSAGES_PAGE = """
<div role="alert" hidden>旧的错误</div>
<div role="alert" style="display:none">隐藏的错误</div>
<div role="alert"><ul><li class="err-item">金额不能为空</li>
  <li class="err-item">账号 6222020200112233445 不存在</li></ul></div>
<div class="form-group has-error"><label>收款行 <input aria-invalid="true" aria-describedby="bank-hint"></label>
  <span id="bank-hint">请选择收款银行</span></div>
<button class="btn-error">删除</button>
<div aria-live="polite">壹佰元整</div>
<div class="el-form-item__error">附言过长</div>
<div role="alert"></div>
<iframe srcdoc="<p role='status'>已保存草稿</p>"></iframe>
"""


async def test_page_messages_are_the_visible_ones_innermost_first_with_numbers_masked(
    blank: Page, tmp_path: Path
) -> None:
    await blank.set_content(MESSAGES_PAGE)
    await blank.wait_for_function("() => document.querySelector('iframe').contentDocument?.body?.innerText")
    run = await RunBrowser.adopt(blank, RunBrowserConfig(run_id="messages", downloads_dir=tmp_path))
    try:
        messages = await read_page_messages(run.active_tab)
    finally:
        await run.close()
    assert messages == [
        PageMessage(MessageKind.ALERT, "金额不能为空"),
        PageMessage(MessageKind.ALERT, "账号 ****3445 不存在"),
        PageMessage(MessageKind.ALERT, "请选择收款银行"),
        PageMessage(MessageKind.STATUS, "壹佰元整"),
        PageMessage(MessageKind.ALERT, "附言过长"),
        PageMessage(MessageKind.STATUS, "已保存草稿"),
    ]


async def test_a_pending_native_alert_is_the_message(blank: Page, tmp_path: Path) -> None:
    await blank.set_content("<p>付款</p>")
    run = await RunBrowser.adopt(blank, RunBrowserConfig(run_id="native", downloads_dir=tmp_path))
    try:
        await blank.evaluate("setTimeout(() => alert('收款账号 6222020200112233445 已冻结'), 0)")
        for _ in range(50):
            if run.active_tab.pending_dialog is not None:
                break
            await asyncio.sleep(0.05)
        messages = await read_page_messages(run.active_tab)
    finally:
        await run.close()
    assert messages == [PageMessage(MessageKind.ALERT, "收款账号 ****3445 已冻结")]


# -- the same through a run: the step fails once, the run waits for a person, the ledger is not left started --


@pytest_asyncio.fixture(loop_scope="module")
async def harness(tmp_path: Path, manager: BrowserManager) -> AsyncIterator[RunHarness]:
    async with fresh_database("sqlite", tmp_path) as url:
        async for item in run_harness(url, tmp_path / "var", manager, {"bank": DEMO_PASSWORD}):
            yield item


async def test_a_rejected_payment_run_needs_a_person_and_its_effect_stays_uncertain(
    harness: RunHarness, sandbox: SandboxServer
) -> None:
    configure(sandbox, layout="v2", error_rate=0.0)
    reset(sandbox)
    arguments = {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": "secret://bank",
        "payer_account": "1001020309000123456",
        "payee_name": PAYMENT["收款人名称"],
        "payee_account": PAYMENT["收款账号"],
        "payee_bank": PAYMENT["收款银行"],
        "amount": "100.00",
        "business_ref": TOO_LONG,
    }
    run_id = await start(harness, "bank_payment_submission", arguments)
    stop = asyncio.Event()
    approver = asyncio.create_task(approve_when_asked(harness.app, harness.org_id, "approver", stop))
    try:
        final = await harness.runner.execute(run_id, harness.org_id)
    finally:
        stop.set()
        await approver
    assert final.status is TaskStatus.NEEDS_HUMAN, final.last_error
    assert "附言不能超过 50 个字符" in (final.last_error or ""), final.last_error  # v2 calls it 汇款附言
    with system_context("test: read the run", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            events = await RunRepository(session).events(run_id)
            effects = list((await session.execute(select(Effect).where(Effect.run_id == run_id))).scalars())
    failed = [e.payload for e in events if e.type == "subtask_failed"]
    assert [(f["error_code"], f["retryable"]) for f in failed] == [("form_rejected", False)], "never retried"
    # Submit was clicked, so the ledger cannot claim "not done": a retry looks in the payment records first.
    assert [e.state for e in effects] == [EffectState.UNCERTAIN]
    assert not paid(sandbox, TOO_LONG)

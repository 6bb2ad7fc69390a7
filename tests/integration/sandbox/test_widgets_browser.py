"""The hand-built widgets in a real browser: PDF blob export, the confirm dialog's cancel, calendar
navigation, search as you type, and the shadow-root report form."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from bench.baseline.portal import login, open_menu
from playwright.async_api import Browser, Page, async_playwright

from finrpa.browser.locate import CHROMIUM_ARGS, locate_chromium
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.policies import policy_book
from finrpa.sandbox.server import SandboxServer

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]
BANK = {"username": "corp_demo", "password": "demo123"}


@pytest.fixture(scope="module")
def server() -> Iterator[SandboxServer]:
    with SandboxServer(SandboxConfig(port=0, expose_state=True)) as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    chromium = locate_chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium.path, args=list(CHROMIUM_ARGS))
        yield launched
        await launched.close()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: Browser, server: SandboxServer) -> AsyncIterator[Page]:
    server.reset()
    server.set_config(layout="v1")
    context = await browser.new_context(accept_downloads=True)
    yield await context.new_page()
    await context.close()


async def test_pdf_export_downloads_a_valid_pdf_built_in_the_browser(
    page: Page, server: SandboxServer, tmp_path: Path
) -> None:
    await login(page, server.base_url, "bank", BANK, "v1")
    await page.goto(
        f"{server.base_url}/bank/statement?acctNo=1001020309000123456&startDate=2024-01-01&endDate=2024-03-31"
    )
    async with page.expect_download() as info:
        await page.get_by_role("button", name="导出PDF").click()
    download = await info.value
    assert download.suggested_filename == "交易明细_1001020309000123456_20240101-20240331.pdf"
    content = (await download.path()).read_bytes() if await download.path() else b""
    assert content.startswith(b"%PDF-1.4") and content.rstrip().endswith(b"%%EOF")
    assert b"/STSong-Light" in content and b"/Type /Page " in content
    startxref = int(content.rsplit(b"startxref", 1)[1].split()[0])
    assert content[startxref : startxref + 4] == b"xref"


async def test_cancelling_the_payment_dialog_submits_nothing(page: Page, server: SandboxServer) -> None:
    await login(page, server.base_url, "bank", BANK, "v1")
    await open_menu(page, "对公付款")
    await page.get_by_label("收款人名称").fill("杭州示例电子商务有限公司")
    await page.get_by_label("收款账号").fill("3301040160000012345")
    await page.get_by_label("收款银行").select_option("中国银行")
    await page.get_by_label("金额", exact=True).fill("100.5")
    await page.get_by_label("用途/附言").fill("测试")
    await page.get_by_role("button", name="提交").click()
    dialog = page.get_by_role("dialog", name="确认付款信息")
    await dialog.get_by_text("壹佰元伍角整").wait_for()
    await dialog.get_by_role("button", name="取消").click()
    await dialog.wait_for(state="hidden")
    assert server.state().payments == []


async def test_calendar_navigates_months_and_writes_the_picked_day(page: Page, server: SandboxServer) -> None:
    await login(page, server.base_url, "bank", BANK, "v1")
    await open_menu(page, "账户明细查询")
    start = page.get_by_label("开始日期")
    await start.fill("2024-03-15")
    calendar = page.get_by_role("dialog")
    await calendar.get_by_role("button", name="上个月").click()
    await calendar.get_by_role("button", name="2024年2月29日").click()
    assert await start.input_value() == "2024-02-29"
    await start.click()
    await page.get_by_role("dialog").get_by_label("年份").select_option("2023")
    await page.get_by_role("dialog").get_by_role("button", name="2023年2月1日").click()
    assert await start.input_value() == "2023-02-01"


async def test_policy_search_shows_results_as_you_type_and_opens_the_choice(
    page: Page, server: SandboxServer
) -> None:
    policy = policy_book(42)[7]
    await login(page, server.base_url, "insurance", {"username": "agent_demo", "password": "demo123"}, "v1")
    await open_menu(page, "保单查询")
    await page.get_by_label("保单号/投保人").press_sequentially(policy.policy_no[:9], delay=20)
    result = page.get_by_role("link", name=policy.policy_no)
    await result.click()
    await page.get_by_role("heading", name="保单详情").wait_for()
    assert policy.holder in await page.content()


async def test_report_form_lives_in_an_open_shadow_root(page: Page, server: SandboxServer) -> None:
    await login(page, server.base_url, "securities", {"username": "broker_demo", "password": "demo123"}, "v1")
    await open_menu(page, "合规报告报送")
    has_open_root = await page.locator("compliance-report-form").evaluate("el => el.shadowRoot?.mode")
    assert has_open_root == "open"
    assert await page.evaluate("document.querySelector('form[enctype]')") is None  # not in the light DOM

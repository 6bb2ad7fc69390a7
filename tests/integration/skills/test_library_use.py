"""Skills work on an engineer's own Playwright page, with the same verification, and TOTP sign-in works."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pyotp
import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from finrpa import skills
from finrpa.browser import SecretText
from finrpa.browser.locate import CHROMIUM_ARGS, locate_chromium
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD, find_user
from finrpa.sandbox.server import SandboxServer

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxServer]:
    with SandboxServer(SandboxConfig(port=0, totp=True)) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    chromium = locate_chromium()
    assert chromium is not None
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium.path, args=list(CHROMIUM_ARGS))
        yield launched
        await launched.close()


async def test_login_with_totp_then_query_on_my_own_page(browser: Browser, sandbox: SandboxServer) -> None:
    user = find_user("bank", "corp_demo")
    assert user is not None
    context = await browser.new_context(locale="zh-CN")
    page = await context.new_page()
    await page.goto(f"{sandbox.base_url}/bank/login")
    login = await skills.execute(
        "LoginSkill",
        {
            "url": f"{sandbox.base_url}/bank/login",
            "username": "corp_demo",
            "password": SecretText(DEMO_PASSWORD),
            "totp_secret": SecretText(user.totp_secret),
        },
        page=page,
    )
    assert login.success, login.error_message
    query = await skills.execute(
        "FormFillSkill",
        {
            "navigate_to": ["账户明细查询"],
            "fields": {"开始日期": "2024-01-01", "结束日期": "2024-01-31"},
            "submit": "查询",
        },
        page=page,
    )
    assert query.success, query.error_message
    assert "startDate=2024-01-01" in page.url
    assert not page.is_closed(), "the caller's page stays open"
    await context.close()


async def test_a_wrong_one_time_password_is_rejected_not_retried(browser: Browser, sandbox: SandboxServer) -> None:
    context = await browser.new_context(locale="zh-CN")
    page = await context.new_page()
    await page.goto(f"{sandbox.base_url}/bank/login")
    wrong_seed = pyotp.random_base32()
    result = await skills.execute(
        "LoginSkill",
        {
            "url": f"{sandbox.base_url}/bank/login",
            "username": "corp_demo",
            "password": SecretText(DEMO_PASSWORD),
            "totp_secret": SecretText(wrong_seed),
        },
        page=page,
    )
    assert not result.success
    assert result.error_code == "login_rejected" and not result.retryable
    await context.close()

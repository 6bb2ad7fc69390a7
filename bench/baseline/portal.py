"""Steps every baseline script shares: log in, read a value off a result page, save a download."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Locator, Page

LOGIN_LABELS = {
    "v1": ("用户名", "密码", "登录"),
    "v2": ("登录账号", "登录密码", "立即登录"),
}


async def login(page: Page, base_url: str, portal: str, params: dict[str, Any], layout: str) -> None:
    user_label, password_label, button = LOGIN_LABELS[layout]
    await page.goto(f"{base_url}/{portal}/login")
    await page.get_by_label(user_label, exact=True).fill(params["username"])
    await page.get_by_label(password_label, exact=True).fill(params["password"])
    async with page.expect_navigation(url=f"{base_url}/{portal}/"):
        await page.get_by_role("button", name=button, exact=True).click()


async def open_menu(page: Page, name: str) -> None:
    await page.get_by_role("navigation").get_by_role("link", name=name, exact=True).click()


async def result_value(page: Page, label: str) -> str:
    """The value next to `label` in a result page's key/value table (e.g. 交易流水号)."""
    cell = page.get_by_role("row", name=label).get_by_role("cell")
    return (await cell.inner_text()).strip()


async def save_download(page: Page, trigger: Locator, folder: str) -> dict[str, Any]:
    async with page.expect_download() as info:
        await trigger.click()
    download = await info.value
    target = Path(folder) / download.suggested_filename
    await download.save_as(target)
    rows = target.read_text(encoding="utf-8-sig").count("\n") - 1
    return {"csv_path": str(target), "rows": rows, "filename": download.suggested_filename}

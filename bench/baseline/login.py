"""Portal login as a baseline script does it: fill both fields, press the button, wait for the home page."""

from __future__ import annotations

from playwright.async_api import Page

LOGIN_LABELS = {
    "v1": ("用户名", "密码", "登录"),
    "v2": ("登录账号", "登录密码", "立即登录"),
}


async def login(page: Page, base_url: str, portal: str, params: dict[str, str], layout: str) -> None:
    user_label, password_label, button = LOGIN_LABELS[layout]
    await page.goto(f"{base_url}/{portal}/login")
    await page.get_by_label(user_label, exact=True).fill(params["username"])
    await page.get_by_label(password_label, exact=True).fill(params["password"])
    async with page.expect_navigation(url=f"{base_url}/{portal}/"):
        await page.get_by_role("button", name=button, exact=True).click()

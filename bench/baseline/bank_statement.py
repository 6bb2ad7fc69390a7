"""Bank statement download: log in, query an account over a date range, export the CSV."""

from __future__ import annotations

from typing import Any

from bench.baseline.portal import login, open_menu, save_download
from playwright.async_api import FrameLocator, Page


async def run_v1(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    await login(page, base_url, "bank", params, "v1")
    await open_menu(page, "账户明细查询")
    await page.get_by_label("账号").select_option(params["account"])
    await page.get_by_label("开始日期").fill(params["start"])
    await page.get_by_label("结束日期").fill(params["end"])
    await page.keyboard.press("Escape")  # close the calendar the typing opened
    await page.get_by_role("button", name="查询", exact=True).click()
    await page.get_by_role("table", name="交易明细").wait_for()
    return await save_download(page, page.get_by_role("link", name="导出CSV"), params["download_dir"])


async def _pick_date(frame: FrameLocator, label: str, iso_date: str) -> None:
    """The v2 date fields are readonly: open the calendar, choose year and month, click the day."""
    year, month, day = (int(part) for part in iso_date.split("-"))
    await frame.get_by_label(label).click()
    calendar = frame.get_by_role("dialog")
    await calendar.get_by_label("年份").select_option(str(year))
    await calendar.get_by_label("月份").select_option(str(month))
    await calendar.get_by_role("button", name=f"{year}年{month}月{day}日", exact=True).click()


async def run_v2(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    await login(page, base_url, "bank", params, "v2")
    await open_menu(page, "交易明细查询")
    form = page.frame_locator("iframe[title='检索条件']")
    await _pick_date(form, "起始日期", params["start"])
    await _pick_date(form, "截止日期", params["end"])
    await form.get_by_label("账户号码").select_option(params["account"])
    await form.get_by_role("button", name="检索", exact=True).click()
    await page.get_by_role("table", name="账户交易明细").wait_for()
    return await save_download(page, page.get_by_role("link", name="下载CSV文件"), params["download_dir"])

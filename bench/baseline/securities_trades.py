"""Securities trade-record export: query a date range, export the CSV."""

from __future__ import annotations

from typing import Any

from bench.baseline.portal import login, open_menu, save_download
from playwright.async_api import Page

LABELS = {
    "v1": {
        "menu": "成交记录查询",
        "start": "开始日期",
        "end": "结束日期",
        "submit": "查询",
        "table": "成交记录",
        "export": "导出CSV",
    },
    "v2": {
        "menu": "成交查询",
        "start": "起始日期",
        "end": "截止日期",
        "submit": "检索",
        "table": "成交明细",
        "export": "下载CSV文件",
    },
}


async def _run(page: Page, base_url: str, params: dict[str, Any], layout: str) -> dict[str, Any]:
    labels = LABELS[layout]
    await login(page, base_url, "securities", params, layout)
    await open_menu(page, labels["menu"])
    await page.get_by_label(labels["start"], exact=True).fill(params["start"])
    await page.get_by_label(labels["end"], exact=True).fill(params["end"])
    await page.get_by_role("button", name=labels["submit"], exact=True).click()
    await page.get_by_role("table", name=labels["table"]).wait_for()
    return await save_download(page, page.get_by_role("link", name=labels["export"]), params["download_dir"])


async def run_v1(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v1")


async def run_v2(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v2")

"""Securities compliance report: the form lives in a shadow root (Playwright's locators pierce open ones)."""

from __future__ import annotations

from typing import Any

from bench.baseline.portal import login, open_menu, result_value
from playwright.async_api import Page

LABELS = {
    "v1": {
        "menu": "合规报告报送",
        "type": "报告类型",
        "period": "报告期间",
        "file": "附件",
        "remarks": "备注",
        "submit": "提交",
        "number": "报送编号",
    },
    "v2": {
        "menu": "监管报送",
        "type": "报送类型",
        "period": "所属期间",
        "file": "上传文件",
        "remarks": "说明",
        "submit": "报送",
        "number": "回执编号",
    },
}


async def _run(page: Page, base_url: str, params: dict[str, Any], layout: str) -> dict[str, Any]:
    labels = LABELS[layout]
    await login(page, base_url, "securities", params, layout)
    await open_menu(page, labels["menu"])
    form = page.locator("compliance-report-form")
    await form.get_by_label(labels["type"], exact=True).select_option(label=params["report_type"])
    await form.get_by_label(labels["period"], exact=True).select_option(label=params["period"])
    await form.get_by_label(labels["file"], exact=True).set_input_files(params["file"])
    await form.get_by_label(labels["remarks"], exact=True).fill(params["remarks"])
    async with page.expect_navigation(url="**/report/result/**"):
        await form.get_by_role("button", name=labels["submit"], exact=True).click()
    return {"report_no": await result_value(page, labels["number"])}


async def run_v1(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v1")


async def run_v2(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v2")

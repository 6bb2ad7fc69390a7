"""Insurance claim: look the policy up (保单查询) and open it, then fill the 理赔申请 form for it, submit, read the
claim number."""

from __future__ import annotations

from typing import Any

from bench.baseline.portal import login, open_menu, result_value
from playwright.async_api import Page

LABELS = {
    "v1": {
        "search_menu": "保单查询",
        "query": "保单号/投保人",
        "search": "查询",
        "menu": "理赔申请",
        "policy": "保单号",
        "date": "出险日期",
        "cause": "出险原因",
        "amount": "理赔金额",
        "description": "事故描述",
        "submit": "提交理赔申请",
        "number": "理赔编号",
    },
    "v2": {
        "search_menu": "保单检索",
        "query": "检索关键字",
        "search": "检索",
        "menu": "理赔报案",
        "policy": "保单号码",
        "date": "事故日期",
        "cause": "事故原因",
        "amount": "申请金额",
        "description": "事故经过",
        "submit": "提交",
        "number": "报案号",
    },
}


async def _run(page: Page, base_url: str, params: dict[str, Any], layout: str) -> dict[str, Any]:
    labels = LABELS[layout]
    await login(page, base_url, "insurance", params, layout)
    await find_policy(page, labels, params["policy_no"])
    await open_menu(page, labels["menu"])
    await page.get_by_label(labels["policy"], exact=True).fill(params["policy_no"])
    await page.get_by_label(labels["date"], exact=True).fill(params["accident_date"])
    await page.get_by_label(labels["cause"], exact=True).select_option(label=params["cause"])
    await page.get_by_label(labels["amount"], exact=True).fill(params["amount"])
    await page.get_by_label(labels["description"], exact=True).fill(params["description"])
    async with page.expect_navigation(url="**/claim/result/**"):
        await page.get_by_role("button", name=labels["submit"], exact=True).click()
    return {"claim_no": await result_value(page, labels["number"])}


async def find_policy(page: Page, labels: dict[str, str], policy_no: str) -> None:
    """Search for the policy, open the one result that is it, and check its page shows it (as the template does)."""
    await open_menu(page, labels["search_menu"])
    await page.get_by_label(labels["query"], exact=True).fill(policy_no)
    await page.get_by_role("button", name=labels["search"], exact=True).click()
    async with page.expect_navigation(url=f"**/{policy_no}"):
        await page.get_by_role("link").filter(has_text=policy_no).click()
    await page.get_by_text(policy_no).first.wait_for()


async def run_v1(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v1")


async def run_v2(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v2")

"""Bank payment: fill the 对公付款 form, check the confirm dialog, confirm, read the reference number."""

from __future__ import annotations

from typing import Any

from bench.baseline.portal import login, open_menu, result_value
from playwright.async_api import Page

LABELS = {
    "v1": {
        "menu": "对公付款",
        "payer": "付款账号",
        "name": "收款人名称",
        "account": "收款账号",
        "bank": "收款银行",
        "amount": "金额",
        "purpose": "用途/附言",
        "submit": "提交",
        "dialog": "确认付款信息",
        "confirm": "确认",
        "reference": "交易流水号",
    },
    "v2": {
        "menu": "对公转账",
        "payer": "付款账户",
        "name": "收款方户名",
        "account": "收款方账号",
        "bank": "收款方开户行",
        "amount": "转账金额",
        "purpose": "汇款附言",
        "submit": "下一步",
        "dialog": "请核对转账信息",
        "confirm": "确定",
        "reference": "业务参考号",
    },
}


async def _run(page: Page, base_url: str, params: dict[str, Any], layout: str) -> dict[str, Any]:
    labels = LABELS[layout]
    await login(page, base_url, "bank", params, layout)
    await open_menu(page, labels["menu"])
    await page.get_by_label(labels["payer"], exact=True).select_option(params["payer_account"])
    await page.get_by_label(labels["name"], exact=True).fill(params["payee_name"])
    await page.get_by_label(labels["account"], exact=True).fill(params["payee_account"])
    await page.get_by_label(labels["bank"], exact=True).select_option(params["payee_bank"])
    await page.get_by_label(labels["amount"], exact=True).fill(params["amount"])
    await page.get_by_label(labels["purpose"], exact=True).fill(params["purpose"])
    await page.get_by_role("button", name=labels["submit"], exact=True).click()
    dialog = page.get_by_role("dialog", name=labels["dialog"])
    await dialog.get_by_text(params["payee_account"]).wait_for()
    async with page.expect_navigation(url="**/payment/result/**"):
        await dialog.get_by_role("button", name=labels["confirm"], exact=True).click()
    return {"reference": await result_value(page, labels["reference"])}


async def run_v1(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v1")


async def run_v2(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v2")

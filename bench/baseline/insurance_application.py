"""Insurance policy application: applicant and ID, product from the custom dropdown, dates, beneficiaries
in the iframe, submit, read the application number."""

from __future__ import annotations

from typing import Any

from bench.baseline.portal import login, open_menu, result_value
from playwright.async_api import Page

LABELS = {
    "v1": {
        "menu": "投保单录入",
        "name": "投保人姓名",
        "id_type": "证件类型",
        "id_number": "证件号码",
        "product": "产品",
        "start": "生效日期",
        "end": "终止日期",
        "frame": "受益人信息",
        "bene_name": "受益人姓名",
        "bene_relation": "与被保险人关系",
        "bene_share": "受益比例(%)",
        "bene_add": "添加受益人",
        "submit": "提交投保",
        "number": "投保单号",
    },
    "v2": {
        "menu": "新单投保",
        "name": "投保人",
        "id_type": "证件种类",
        "id_number": "证件号",
        "product": "险种",
        "start": "保险起期",
        "end": "保险止期",
        "frame": "身故受益人",
        "bene_name": "受益人名称",
        "bene_relation": "关系",
        "bene_share": "受益份额(%)",
        "bene_add": "新增受益人",
        "submit": "提交",
        "number": "投保申请号",
    },
}


async def _beneficiaries(page: Page, labels: dict[str, str], rows: list[dict[str, str]]) -> None:
    frame = page.frame_locator(f"iframe[title='{labels['frame']}']")
    for index, row in enumerate(rows):
        if index:
            await frame.get_by_role("button", name=labels["bene_add"]).click()
        await frame.get_by_label(labels["bene_name"], exact=True).nth(index).fill(row["name"])
        await (
            frame.get_by_label(labels["bene_relation"], exact=True)
            .nth(index)
            .select_option(label=row["relation"])
        )
        await frame.get_by_label(labels["bene_share"], exact=True).nth(index).fill(str(row["share"]))


async def _run(page: Page, base_url: str, params: dict[str, Any], layout: str) -> dict[str, Any]:
    labels = LABELS[layout]
    await login(page, base_url, "insurance", params, layout)
    await open_menu(page, labels["menu"])
    await page.get_by_label(labels["name"], exact=True).fill(params["applicant_name"])
    await page.get_by_label(labels["id_type"], exact=True).select_option(label=params["id_type"])
    await page.get_by_label(labels["id_number"], exact=True).fill(params["id_number"])
    await page.get_by_role("combobox", name=labels["product"], exact=True).click()
    await page.get_by_role("option", name=params["product"], exact=True).click()
    await page.get_by_label(labels["start"], exact=True).fill(params["start"])
    await page.get_by_label(labels["end"], exact=True).fill(params["end"])
    await _beneficiaries(page, labels, params["beneficiaries"])
    async with page.expect_navigation(url="**/apply/result/**"):
        await page.get_by_role("button", name=labels["submit"], exact=True).click()
    return {"application_no": await result_value(page, labels["number"])}


async def run_v1(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v1")


async def run_v2(page: Page, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    return await _run(page, base_url, params, "v2")

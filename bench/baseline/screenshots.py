"""Capture docs/screenshots/sandbox-*.png, one per main page, by driving a live sandbox in Chromium.

python -m bench.baseline.screenshots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from bench.baseline.flows import FLOWS
from bench.baseline.portal import login, open_menu
from playwright.async_api import Page, async_playwright

from finrpa.browser.locate import CHROMIUM_ARGS, MISSING_CHROMIUM_HELP, locate_chromium
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.server import SandboxServer

STATEMENT = "/bank/statement?acctNo=1001020309000123456&startDate=2024-01-01&endDate=2024-03-31"


async def _bank_login(page: Page, base: str, out: Path, scratch: Path) -> None:
    await page.goto(f"{base}/bank/login")
    await page.screenshot(path=out / "sandbox-bank-login.png")


async def _bank(page: Page, base: str, out: Path, scratch: Path) -> None:
    await login(page, base, "bank", FLOWS["bank_payment"].params(scratch, 42), "v1")
    await page.goto(base + STATEMENT)
    await page.screenshot(path=out / "sandbox-bank-statement.png", full_page=True)
    await open_menu(page, "对公付款")
    params = FLOWS["bank_payment"].params(scratch, 42)
    for label, key in (("收款人名称", "payee_name"), ("收款账号", "payee_account"), ("用途/附言", "purpose")):
        await page.get_by_label(label).fill(params[key])
    await page.get_by_label("收款银行").select_option(params["payee_bank"])
    await page.get_by_label("金额", exact=True).fill(params["amount"])
    await page.get_by_role("button", name="提交").click()
    await page.get_by_role("dialog").wait_for()
    await page.screenshot(path=out / "sandbox-bank-payment-confirm.png")


async def _bank_v2(page: Page, base: str, out: Path, scratch: Path) -> None:
    await login(page, base, "bank", FLOWS["bank_payment"].params(scratch, 42), "v2")
    await page.goto(
        f"{base}/bank/statement?accountNumber=1001020309000123456&beginDt=2024-01-01&finishDt=2024-03-31"
    )
    await page.frame_locator("iframe").get_by_label("起始日期").click()
    await page.frame_locator("iframe").get_by_role("dialog").wait_for()
    await page.screenshot(path=out / "sandbox-bank-statement-v2.png")


async def _insurance(page: Page, base: str, out: Path, scratch: Path) -> None:
    params = FLOWS["insurance_application"].params(scratch, 42)
    await login(page, base, "insurance", params, "v1")
    await open_menu(page, "投保单录入")
    await page.get_by_label("投保人姓名").fill(params["applicant_name"])
    await page.get_by_label("证件号码").fill(params["id_number"])
    frame = page.frame_locator("iframe[title='受益人信息']")
    await frame.get_by_label("受益人姓名").fill("李娜")
    await frame.get_by_label("受益比例(%)").fill("100")
    await page.get_by_role("combobox", name="产品").click()
    await page.screenshot(path=out / "sandbox-insurance-application.png", full_page=True)
    await open_menu(page, "理赔申请")
    await page.screenshot(path=out / "sandbox-insurance-claim.png")
    await open_menu(page, "保单查询")
    await page.get_by_label("保单号/投保人").press_sequentially("P2024", delay=20)
    await page.get_by_role("link", name="P2024").first.wait_for()
    await page.screenshot(path=out / "sandbox-insurance-search.png")


async def _securities(page: Page, base: str, out: Path, scratch: Path) -> None:
    params = FLOWS["securities_report"].params(scratch, 42)
    await login(page, base, "securities", params, "v1")
    await open_menu(page, "合规报告报送")
    await (
        page.locator("compliance-report-form")
        .get_by_label("报告类型")
        .select_option(label=params["report_type"])
    )
    await page.screenshot(path=out / "sandbox-securities-report.png")
    await page.goto(f"{base}/securities/trades?startDate=2024-01-01&endDate=2024-03-31&code=")
    await page.screenshot(path=out / "sandbox-securities-trades.png", full_page=True)
    await open_menu(page, "委托下单")
    await page.screenshot(path=out / "sandbox-securities-order.png", full_page=True)


async def capture(out: Path) -> None:
    chromium = locate_chromium()
    if chromium is None:
        raise SystemExit(MISSING_CHROMIUM_HELP)
    out.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium.path, args=list(CHROMIUM_ARGS))
        for config, scene in (
            (SandboxConfig(port=0, captcha=True), _bank_login),
            (SandboxConfig(port=0), _bank),
            (SandboxConfig(port=0, layout="v2"), _bank_v2),
            (SandboxConfig(port=0), _insurance),
            (SandboxConfig(port=0), _securities),
        ):
            with SandboxServer(config) as server, tempfile.TemporaryDirectory() as scratch:
                context = await browser.new_context(viewport={"width": 1280, "height": 800})
                await scene(await context.new_page(), server.base_url, out, Path(scratch))
                await context.close()
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.baseline.screenshots", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    asyncio.run(capture(parser.parse_args().out))


if __name__ == "__main__":
    main()

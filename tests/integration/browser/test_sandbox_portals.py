"""The runtime drives the bundled sandbox portals: logins, custom date pickers (typed in v1; readonly
with year/month selects inside an iframe in v2), custom dropdowns and a verified CSV download."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from finrpa.browser import (
    BrowserManager,
    Controller,
    Download,
    Expectation,
    RunBrowser,
    RunBrowserConfig,
    SecretText,
    Target,
)
from finrpa.browser.widgets import choose_option, pick_date
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.server import SandboxServer

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

WORDS = {
    "v1": {"user": "用户名", "password": "密码", "login": "登录", "menu": "账户明细查询", "account": "账号",
           "start": "开始日期", "end": "结束日期", "query": "查询", "table": "交易明细", "export": "导出CSV"},
    "v2": {"user": "登录账号", "password": "登录密码", "login": "立即登录", "menu": "交易明细查询",
           "account": "账户号码", "start": "起始日期", "end": "截止日期", "query": "检索",
           "table": "账户交易明细", "export": "下载CSV文件"},
}
ACCOUNT = "1001020309000765432"


@pytest.fixture(scope="module", params=["v1", "v2"])
def sandbox(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    with SandboxServer(SandboxConfig(port=0, layout=request.param)) as server:
        yield request.param, server.base_url


async def _run(manager: BrowserManager, base_url: str, folder: Path) -> RunBrowser:
    return await manager.new_run(RunBrowserConfig(run_id="sandbox", downloads_dir=folder, portal_urls=[base_url]))


async def _login(controller: Controller, base_url: str, portal: str, user: str, words: dict[str, str]) -> None:
    await controller.navigate(f"{base_url}/{portal}/login")
    snap = await controller.observe()
    await controller.fill(snap, snap.find(name=words["user"])[0].ref, user)
    await controller.fill(snap, snap.find(name=words["password"])[0].ref, SecretText("demo123"))
    await controller.click(snap, snap.find(name=words["login"], role="button")[0].ref,
                           expect=Expectation(url_matches=rf"/{portal}/$"))


async def test_statement_download_end_to_end(
    browser_manager: BrowserManager, sandbox: tuple[str, str], tmp_path: Path
) -> None:
    layout, base_url = sandbox
    words = WORDS[layout]
    run = await _run(browser_manager, base_url, tmp_path)
    try:
        controller = Controller(run, screenshots=False)
        await _login(controller, base_url, "bank", "corp_demo", words)
        home = await controller.observe()
        await controller.click(home, home.find(name=words["menu"], role="link")[0].ref)

        form = await controller.observe()
        account = form.find(name=words["account"])[0]
        await controller.select(form, account.ref, next(o for o in account.options or [] if ACCOUNT in o))
        assert await pick_date(controller, form, form.find(name=words["start"])[0].ref, date(2024, 1, 1))
        assert await pick_date(controller, form, form.find(name=words["end"])[0].ref, date(2024, 3, 31))
        await controller.click(form, form.find(name=words["query"], role="button")[0].ref,
                               expect=Expectation(text_visible=words["table"]))

        results = await controller.observe()
        assert any(t.caption == words["table"] and t.row_count > 0 for t in results.tables)
        export = results.find(name=words["export"])[0]
        done = await controller.execute(Download(snapshot_id=results.snapshot_id,
                                                 target=Target(ref=export.ref, fingerprint=export.fingerprint)))
    finally:
        await run.close()

    saved = done.download
    assert saved is not None and saved.media_type == "text/csv"
    assert saved.sha256 == hashlib.sha256(saved.path.read_bytes()).hexdigest()
    rows = list(csv.reader(saved.path.read_text(encoding="utf-8-sig").splitlines()))
    assert len(rows) > 100 and ACCOUNT in saved.filename


async def test_insurance_product_is_chosen_in_the_custom_dropdown(
    browser_manager: BrowserManager, sandbox: tuple[str, str], tmp_path: Path
) -> None:
    layout, base_url = sandbox
    run = await _run(browser_manager, base_url, tmp_path)
    try:
        controller = Controller(run, screenshots=False)
        await _login(controller, base_url, "insurance", "agent_demo", WORDS[layout])
        await controller.navigate(f"{base_url}/insurance/apply")
        form = await controller.observe()
        product = next(e for e in form.elements if e.role == "combobox" and e.tag != "select")

        assert await choose_option(controller, form, product.ref, "百万医疗保险") == "百万医疗保险"
        after = await controller.observe()
    finally:
        await run.close()
    assert next(e for e in after.elements if e.ref == product.ref).value == "百万医疗保险"

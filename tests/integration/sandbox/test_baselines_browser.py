"""The six baseline scripts run in headless Chromium against a live sandbox, in both layouts, and their
effects are checked in the sandbox state or the downloaded file. One browser and one server per module."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import AsyncIterator, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from bench.baseline.evidence import taking_evidence
from bench.baseline.flows import FLOWS
from playwright.async_api import Browser, Page, async_playwright

from finrpa.browser.locate import CHROMIUM_ARGS, locate_chromium
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.ledger import statement_rows
from finrpa.sandbox.server import SandboxServer
from finrpa.sandbox.trades import trade_rows

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]
SEED = 42


@pytest.fixture(scope="module")
def server() -> Iterator[SandboxServer]:
    with SandboxServer(SandboxConfig(port=0, expose_state=True, seed=SEED)) as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    chromium = locate_chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium.path, args=list(CHROMIUM_ARGS))
        yield launched
        await launched.close()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(accept_downloads=True)
    yield await context.new_page()
    await context.close()


def _csv_rows(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        return list(csv.reader(handle))[1:]


def _check_effect(flow: str, params: dict[str, Any], result: dict[str, Any], server: SandboxServer) -> None:
    state = server.state()
    if flow == "bank_statement":
        expected = statement_rows(params["account"], date(2024, 1, 1), date(2024, 3, 31), SEED)
        assert [(r[0], r[7], r[8]) for r in _csv_rows(result["csv_path"])] == [
            (e.date.isoformat(), f"{e.balance:.2f}", e.serial) for e in expected
        ]
    elif flow == "securities_trades":
        expected_trades = trade_rows("880012345678", date(2024, 1, 1), date(2024, 3, 31), SEED)
        assert [r[-1] for r in _csv_rows(result["csv_path"])] == [t.trade_no for t in expected_trades]
    elif flow == "bank_payment":
        assert [(p.reference, p.amount, p.payee_bank) for p in state.payments] == [
            (result["reference"], "12345.60", "招商银行")
        ]
    elif flow == "insurance_application":
        (application,) = state.applications
        assert application.application_no == result["application_no"]
        assert [(b.name, b.relation, b.share) for b in application.beneficiaries] == [
            ("李娜", "spouse", 60),
            ("张小明", "child", 40),
        ]
        assert application.product_code == "MD05"
    elif flow == "insurance_claim":
        assert [(c.claim_no, c.policy_no, c.cause) for c in state.claims] == [
            (result["claim_no"], params["policy_no"], "accident")
        ]
    elif flow == "securities_report":
        (report,) = state.reports
        assert report.report_no == result["report_no"]
        assert report.sha256 == hashlib.sha256(Path(params["file"]).read_bytes()).hexdigest()


@pytest.mark.parametrize("layout", ["v1", "v2"])
@pytest.mark.parametrize("flow", sorted(FLOWS))
async def test_baseline_flow_completes_and_has_its_effect(
    flow: str, layout: str, server: SandboxServer, page: Page, tmp_path: Path
) -> None:
    server.reset()
    server.set_config(layout=layout, dynamic_ids=False)
    params = FLOWS[flow].params(tmp_path, SEED)
    result = await FLOWS[flow].runner(layout)(page, server.base_url, params)
    _check_effect(flow, params, result, server)


@pytest.mark.parametrize("flow", ["bank_statement", "bank_payment"])
async def test_label_based_scripts_survive_dynamic_ids(
    flow: str, server: SandboxServer, page: Page, tmp_path: Path
) -> None:
    server.reset()
    server.set_config(layout="v1", dynamic_ids=True)
    params = FLOWS[flow].params(tmp_path, SEED)
    result = await FLOWS[flow].runner("v1")(page, server.base_url, params)
    _check_effect(flow, params, result, server)


async def test_baseline_with_evidence_captures_before_each_action_and_after_the_last(
    server: SandboxServer, page: Page, tmp_path: Path
) -> None:
    server.reset()
    server.set_config(layout="v1", dynamic_ids=False)
    params = FLOWS["bank_payment"].params(tmp_path, SEED)
    async with taking_evidence(page, tmp_path) as evidence:
        result = await FLOWS["bank_payment"].runner("v1")(page, server.base_url, params)
    _check_effect("bank_payment", params, result, server)
    # 13 actions: open the login page, user name, password, log in, the menu, six fields, submit, confirm
    shots = sorted(tmp_path.glob("evidence-*.png"))
    assert evidence.taken == len(shots) == 14
    assert all(shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for shot in shots)
    assert shots[0].read_bytes() != shots[-1].read_bytes()  # the blank tab, then the payment's result page

    await page.goto(f"{server.base_url}/bank/login")  # outside the block an action captures nothing
    assert len(list(tmp_path.glob("evidence-*.png"))) == 14

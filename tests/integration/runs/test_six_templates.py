"""All six templates complete against the sandbox in layout v1 and v2 with dynamic ids, in headless Chromium,
with their effects checked in the sandbox's own records, and no LLM call anywhere."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from finrpa.agents.plan import CoordinationState, TaskStatus
from finrpa.browser import BrowserManager
from finrpa.db.engine import unit_of_work
from finrpa.runs.repository import RunRepository
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.policies import policy_book
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from tests.fixtures.databases import fresh_database
from tests.fixtures.runs import RunHarness, approve_when_asked, run_harness
from tests.integration.runs.conftest import configure, reset, sandbox_state, start

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(loop_scope="module")
async def harness(tmp_path: Path, manager: BrowserManager) -> AsyncIterator[RunHarness]:
    secrets = {"bank": DEMO_PASSWORD, "insurance": DEMO_PASSWORD, "securities": DEMO_PASSWORD}
    async with fresh_database("sqlite", tmp_path) as url:
        async for item in run_harness(url, tmp_path / "var", manager, secrets):
            (tmp_path / "var" / "uploads").mkdir(parents=True, exist_ok=True)
            yield item


async def failures(harness: RunHarness, run_id: str) -> list[str]:
    """The errors of a run's failed attempts, for assertion messages."""
    with system_context("test: read events", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            events = await RunRepository(session).events(run_id)
    return [
        f"{e.type}: {e.payload.get('error') or e.payload.get('reason')}"
        for e in events
        if e.type in ("subtask_failed", "needs_human")
    ]


async def execute_with_approver(harness: RunHarness, run_id: str, *, approve: bool = True) -> CoordinationState:
    """Run while an approver of the department decides whatever approval the run asks for."""
    stop = asyncio.Event()
    approver = asyncio.create_task(approve_when_asked(harness.app, harness.org_id, "approver", stop, approve=approve))
    try:
        return await harness.runner.execute(run_id, harness.org_id)
    finally:
        stop.set()
        await approver


@dataclass(frozen=True)
class Case:
    template: str
    arguments: Callable[[str, Path, int], dict[str, Any]]
    check: Callable[[dict[str, Any], dict[str, Any], Path], None]


def _bank(base: str) -> dict[str, Any]:
    return {"bank_url": f"{base}/bank/login", "username": "corp_demo", "password": "secret://bank"}


def _insurance(base: str) -> dict[str, Any]:
    return {"insurance_url": f"{base}/insurance/login", "username": "agent_demo", "password": "secret://insurance"}


def _securities(base: str) -> dict[str, Any]:
    return {"securities_url": f"{base}/securities/login", "username": "broker_demo", "password": "secret://securities"}


def _payment_args(base: str, folder: Path, seed: int) -> dict[str, Any]:
    return _bank(base) | {
        "payer_account": "1001020309000123456",
        "payee_name": "杭州示例电子商务有限公司",
        "payee_account": "3301040160000012345",
        "payee_bank": "招商银行",
        "amount": "12345.60",
        "business_ref": "INV-2024-0301",
    }


def _check_payment(state: dict[str, Any], result: dict[str, Any], folder: Path) -> None:
    payments = [p for p in state["payments"] if p["purpose"] == "INV-2024-0301"]
    assert len(payments) == 1, payments
    assert payments[0]["amount"].replace(",", "") in ("12345.60", "12345.6")
    assert result["pay"]["reference"] == payments[0]["reference"]


def _application_args(base: str, folder: Path, seed: int) -> dict[str, Any]:
    return _insurance(base) | {
        "applicant_name": "张晓华",
        "id_number": "11010519491231002X",
        "product": "百万医疗保险",
        "effective_date": "2025-01-01",
        "expiry_date": "2025-12-31",
        "beneficiary_name": "李娜",
        "beneficiary_relation": "配偶",
        "beneficiary_share": "100",
    }


def _check_application(state: dict[str, Any], result: dict[str, Any], folder: Path) -> None:
    applications = [a for a in state["applications"] if a["id_number"] == "11010519491231002X"]
    assert len(applications) == 1
    assert applications[0]["product_name"] == "百万医疗保险"
    assert result["apply"]["application_number"] == applications[0]["application_no"]


def _claim_args(base: str, folder: Path, seed: int) -> dict[str, Any]:
    policy = policy_book(seed)[0]
    return _insurance(base) | {
        "policy_number": policy.policy_no,
        "loss_date": (policy.start + timedelta(days=30)).isoformat(),
        "loss_cause": "意外伤害",
        "claim_amount": "8600.00",
        "description": "被保险人上班途中摔伤，门诊治疗。",
    }


def _check_claim(state: dict[str, Any], result: dict[str, Any], folder: Path) -> None:
    claims = [c for c in state["claims"] if c["amount"].replace(",", "").startswith("8600")]
    assert len(claims) == 1
    assert result["claim"]["claim_number"] == claims[0]["claim_no"]


def _report_args(base: str, folder: Path, seed: int) -> dict[str, Any]:
    attachment = folder / "uploads" / "合规报告_2024Q4.pdf"
    attachment.write_bytes(b"%PDF-1.4\n% FinRPA compliance report\n%%EOF\n")
    return _securities(base) | {
        "report_type": "季度合规报告",
        "reporting_period": "2024年第四季度",
        "report_file": str(attachment),
        "remarks": "按期报送",
    }


def _check_report(state: dict[str, Any], result: dict[str, Any], folder: Path) -> None:
    digest = hashlib.sha256(b"%PDF-1.4\n% FinRPA compliance report\n%%EOF\n").hexdigest()
    reports = [r for r in state["reports"] if r["sha256"] == digest]
    assert len(reports) == 1
    assert result["file_report"]["filing_number"] == reports[0]["report_no"]


def _trades_args(base: str, folder: Path, seed: int) -> dict[str, Any]:
    return _securities(base) | {"start_date": "2024-01-01", "end_date": "2024-03-31"}


def _check_trades(state: dict[str, Any], result: dict[str, Any], folder: Path) -> None:
    assert result["extract"]["pages"] >= 10
    assert result["extract"]["row_count"] > 0
    assert result["export"]["media_type"] == "text/csv"


CASES = {
    "bank_payment_submission": Case("bank_payment_submission", _payment_args, _check_payment),
    "insurance_policy_application": Case("insurance_policy_application", _application_args, _check_application),
    "insurance_claim_submission": Case("insurance_claim_submission", _claim_args, _check_claim),
    "securities_compliance_report": Case("securities_compliance_report", _report_args, _check_report),
    "securities_trade_record_export": Case("securities_trade_record_export", _trades_args, _check_trades),
}


@pytest.mark.parametrize("layout", ["v1", "v2"])
@pytest.mark.parametrize("name", sorted(CASES))
async def test_template_completes_with_its_effect_recorded_once(
    harness: RunHarness, sandbox: SandboxServer, name: str, layout: str
) -> None:
    case = CASES[name]
    configure(sandbox, layout=layout, error_rate=0.0)
    reset(sandbox)
    folder = harness.app.settings.data_dir
    run_id = await start(harness, case.template, case.arguments(sandbox.base_url, folder, sandbox.config.seed))
    final = await execute_with_approver(harness, run_id)
    assert final.status is TaskStatus.COMPLETED, await failures(harness, run_id)
    results = {s.inputs["step_id"]: s.result_data for s in final.plan.subtasks}
    case.check(sandbox_state(sandbox), results, folder)
    with system_context("test: read events", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            events = await RunRepository(session).events(run_id)
    assert not [e for e in events if e.type == "llm_call"], "template runs make no LLM call"


async def test_a_payment_submitted_again_with_the_same_business_id_is_not_paid_twice(
    harness: RunHarness, sandbox: SandboxServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    reset(sandbox)
    arguments = _payment_args(sandbox.base_url, Path("."), sandbox.config.seed)
    first = await execute_with_approver(harness, await start(harness, "bank_payment_submission", arguments))
    second = await execute_with_approver(harness, await start(harness, "bank_payment_submission", arguments))
    assert first.status is TaskStatus.COMPLETED and second.status is TaskStatus.COMPLETED
    assert second.plan.subtasks[1].result_data["already_done"] is True
    payments = [p for p in sandbox_state(sandbox)["payments"] if p["purpose"] == "INV-2024-0301"]
    assert len(payments) == 1


async def test_a_rejected_payment_is_not_submitted(harness: RunHarness, sandbox: SandboxServer) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    reset(sandbox)
    arguments = _payment_args(sandbox.base_url, Path("."), sandbox.config.seed) | {"business_ref": "INV-REJECTED"}
    final = await execute_with_approver(
        harness, await start(harness, "bank_payment_submission", arguments), approve=False
    )
    assert final.status is TaskStatus.NEEDS_HUMAN
    assert "rejected" in (final.last_error or "")
    assert not [p for p in sandbox_state(sandbox)["payments"] if p["purpose"] == "INV-REJECTED"]

"""Cedar policies, capability manifests and tokens in real runs against the sandbox, in headless Chromium:
a tenant policy refuses a payment before submit, a policy's approval requirement makes the run wait, a manifest
refuses an amount above what the run was prepared with, and every decision is recorded before the effect."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import select

from finrpa.agents.events import EventType
from finrpa.agents.plan import CoordinationState, TaskStatus
from finrpa.approvals.models import ApprovalRequest
from finrpa.browser import BrowserManager
from finrpa.db.engine import unit_of_work
from finrpa.policy.service import PolicyService
from finrpa.runs.journal import Transition, commit_transition
from finrpa.runs.models import RunEvent
from finrpa.runs.repository import NewEvent, RunRepository
from finrpa.runs.service import load_state
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.runs import RunHarness, approve_when_asked, run_harness
from tests.integration.runs.conftest import configure, reset, sandbox_state, start

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

DENY_LARGE_PAYMENTS = """
@id("deny.payment_over_10k")
@reason("Payments above 10,000 CNY are not automated in this organisation; pay them in the portal.")
forbid (principal, action == Action::"payment.submit", resource)
when { context.amount_cny > 10000 };
"""
APPROVE_STATEMENT_EXPORTS = """
@id("approval.statement_export")
@reason("Statement exports need a person's approval in this organisation.")
@effect("require_approval")
forbid (principal, action == Action::"statement.export", resource);
"""


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def harness(request: pytest.FixtureRequest, tmp_path: Path, manager: BrowserManager) -> AsyncIterator[RunHarness]:
    async with fresh_database(request.param, tmp_path) as url:
        async for item in run_harness(url, tmp_path / "var", manager, {"bank": DEMO_PASSWORD}):
            yield item


def payment(sandbox: SandboxServer, reference: str, amount: str = "12345.60") -> dict[str, Any]:
    return {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": "secret://bank",
        "payer_account": "1001020309000123456",
        "payee_name": "杭州示例电子商务有限公司",
        "payee_account": "3301040160000012345",
        "payee_bank": "招商银行",
        "amount": amount,
        "business_ref": reference,
    }


def statement(sandbox: SandboxServer) -> dict[str, Any]:
    return {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": "secret://bank",
        "account_number": "1001020309000123456",
        "start_date": "2024-01-01",
        "end_date": "2024-01-31",
    }


async def add_policy(harness: RunHarness, name: str, text: str) -> None:
    with system_context("test: add a tenant policy", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            await PolicyService(session).add_policy(harness.org_id, name, text, created_by="admin")


async def events_of(harness: RunHarness, run_id: str) -> list[RunEvent]:
    with system_context("test: read events", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            return list(await RunRepository(session).events(run_id))


def decisions(events: list[RunEvent], kind: str = "decision") -> list[RunEvent]:
    return [e for e in events if e.type == EventType.POLICY_DECISION and e.payload.get("kind") == kind]


def paid(sandbox: SandboxServer, reference: str) -> list[dict[str, Any]]:
    return [p for p in sandbox_state(sandbox)["payments"] if p["purpose"] == reference]


async def with_approver(harness: RunHarness, run_id: str, *, approve: bool = True) -> CoordinationState:
    stop = asyncio.Event()
    approver = asyncio.create_task(approve_when_asked(harness.app, harness.org_id, "approver", stop, approve=approve))
    try:
        return await harness.runner.execute(run_id, harness.org_id)
    finally:
        stop.set()
        await approver


async def test_tenant_policy_refuses_a_large_payment_before_submit(harness: RunHarness, sandbox: SandboxServer) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    reset(sandbox)
    await add_policy(harness, "no large payments", DENY_LARGE_PAYMENTS)
    run_id = await start(harness, "bank_payment_submission", payment(sandbox, "POL-DENY-1"))
    final = await harness.runner.execute(run_id, harness.org_id)
    assert final.status is TaskStatus.ABORTED
    assert "deny.payment_over_10k" in (final.last_error or "")
    assert paid(sandbox, "POL-DENY-1") == [], "nothing may reach the portal"
    events = await events_of(harness, run_id)
    pay = final.plan.subtasks[1].subtask_id
    [manifest] = [e for e in decisions(events, "capability_manifest") if e.payload["subtask_id"] == pay]
    assert "payment.submit" not in manifest.payload["rights"]["grants"]
    assert any(d["reason_code"] == "deny.payment_over_10k" for d in manifest.payload["dropped"])
    [decision] = decisions(events)
    assert decision.payload["decision"] == "deny"
    assert {"deny.payment_over_10k", "deny.outside_manifest"} <= set(decision.payload["reason_codes"])
    assert not [e for e in events if e.type in (EventType.EFFECT, EventType.APPROVAL_REQUESTED)]
    with system_context("test: read the decision log", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            logged = await PolicyService(session).decisions_for_run(harness.org_id, run_id)
    assert [row.decision for row in logged] == ["deny"]


async def test_policy_requiring_approval_makes_the_export_wait_for_an_approver(
    harness: RunHarness, sandbox: SandboxServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    await add_policy(harness, "approve statement exports", APPROVE_STATEMENT_EXPORTS)
    run_id = await start(harness, "bank_statement_download", statement(sandbox))
    final = await with_approver(harness, run_id)
    assert final.status is TaskStatus.COMPLETED, final.last_error
    events = await events_of(harness, run_id)
    [decision] = decisions(events)
    assert decision.payload["decision"] == "require_approval"
    assert decision.payload["reason_codes"] == ["approval.statement_export"]
    requested = [e for e in events if e.type == EventType.APPROVAL_REQUESTED]
    assert len(requested) == 1 and decision.seq < requested[0].seq
    with system_context("test: read approvals", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            query = select(ApprovalRequest).where(ApprovalRequest.run_id == run_id)
            approval = (await session.execute(query)).scalar_one()
    assert any(reason.startswith("approval.statement_export:") for reason in approval.risk_reasons)


async def test_rejected_policy_approval_stops_the_export(harness: RunHarness, sandbox: SandboxServer) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    await add_policy(harness, "approve statement exports", APPROVE_STATEMENT_EXPORTS)
    run_id = await start(harness, "bank_statement_download", statement(sandbox))
    final = await with_approver(harness, run_id, approve=False)
    assert final.status is not TaskStatus.COMPLETED
    assert not (harness.runner.run_folder(run_id) / "statement.csv").exists()


async def test_manifest_refuses_a_replanned_amount_above_the_prepared_one(
    harness: RunHarness, sandbox: SandboxServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    reset(sandbox)
    run_id = await start(harness, "bank_payment_submission", payment(sandbox, "POL-BOUND-1"))
    with system_context("test: prepare and replan", org_id=harness.org_id):
        token = await harness.runner.claim(run_id)
        prepared = await harness.runner.prepare(run_id, token)
        await prepared.browser.close()
        async with unit_of_work(harness.app.database.sessions) as session:
            state = await load_state(session, run_id)
            plan = state.plan.model_copy(deep=True)
            call = plan.subtasks[1].skill_call
            assert call is not None
            fields = {**call.params["fields"], "金额": "99999.00"}
            plan.subtasks[1].skill_call = call.model_copy(update={"params": {**call.params, "fields": fields}})
            replanned = NewEvent(EventType.REPLANNED, {"reason": "test", "plan": plan.model_dump(mode="json")})
            await commit_transition(session, run_id, token, Transition(events=[replanned]))
    final = await harness.runner.execute(run_id, harness.org_id)
    assert final.status is TaskStatus.ABORTED
    assert "more than this node's limit of 12345.60" in (final.last_error or ""), final.last_error
    assert paid(sandbox, "POL-BOUND-1") == []
    [decision] = decisions(await events_of(harness, run_id))
    assert decision.payload["reason_codes"] == ["deny.outside_manifest"]


async def test_decisions_are_recorded_before_the_effect_and_the_payment_is_made_once(
    harness: RunHarness, sandbox: SandboxServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    reset(sandbox)
    run_id = await start(harness, "bank_payment_submission", payment(sandbox, "POL-OK-1"))
    final = await with_approver(harness, run_id)
    assert final.status is TaskStatus.COMPLETED, final.last_error
    assert len(paid(sandbox, "POL-OK-1")) == 1
    events = await events_of(harness, run_id)
    pay = final.plan.subtasks[1].subtask_id
    manifests = [e for e in decisions(events, "capability_manifest") if e.payload["subtask_id"] == pay]
    [decision] = decisions(events)
    assert decision.payload["operation"] == "payment.submit"
    assert decision.payload["decision"] == "require_approval"
    assert "approval.high_risk" in decision.payload["reason_codes"]
    assert decision.payload["manifest_digest"] == manifests[-1].payload["manifest_digest"]
    effects = [e for e in events if e.type == EventType.EFFECT]
    assert effects and manifests[0].seq < decision.seq < min(e.seq for e in effects)

"""Browser actions an LLM proposes go through the same controls as skill steps, in headless Chromium against the
sandbox bank with a scripted LLM, on SQLite and PostgreSQL: a goal "向 … 付款 1,500,000 元" whose submit and confirm
clicks the LLM proposes waits for one approval bound to the submit (element and typed values), whose confirm step
with the same values is covered by it (recorded by id), and is paid exactly once when approved, not at all when
rejected or when a tenant policy forbids payments; a proposal that leaves the portal's host is refused by the
manifest. A durable worker replans a goal run inside a recorded step.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import select

from finrpa.agents.events import EventType
from finrpa.agents.plan import CoordinationState, TaskStatus
from finrpa.approvals.errors import ApprovalAlreadyDecidedError
from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.service import approvals_transaction
from finrpa.audit.service import AuditService
from finrpa.bootstrap import App, open_app
from finrpa.browser import BrowserManager
from finrpa.bus import build_bus
from finrpa.commands.demo import BANK_PASSWORD_SECRET, seed_demo_org
from finrpa.db.engine import unit_of_work
from finrpa.identity.repository import IdentityRepository
from finrpa.identity.service import DirectoryService
from finrpa.policy.service import PolicyService
from finrpa.runs.durable import RunQueueClient
from finrpa.runs.goal_runs import GoalScope
from finrpa.runs.models import Effect, RunEvent
from finrpa.runs.repository import RunRepository
from finrpa.runs.runner import RunRunner
from finrpa.runs.service import GoalRunRequest, create_goal_run
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from tests.chaos.harness import WorkerPool, wait_until_listening
from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.llm_server import RecordedRequest, ScriptedLLMServer, llm_worker_env, scripted_llm_settings
from tests.fixtures.runs import vault_runner
from tests.integration.agents.scripted_operator import ScriptedOperator, SeenPage
from tests.integration.runs.conftest import configure, sandbox_state

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

GOAL = "向杭州示例电子商务有限公司付款 1,500,000 元"
AMOUNT = "1500000.00"
FIELDS = {"收款人名称": "payee_name", "收款账号": "payee_account", "金额": "amount", "用途/附言": "purpose"}
LOGIN = {"step_id": "login", "goal": "登录企业网银", "skill": "LoginSkill",
         "params": {"url": "{{bank_url}}", "username": "{{username}}", "password": "{{secret:password}}"}}  # fmt: skip
PAY = {
    "step_id": "pay", "goal": "填写并提交对公付款", "actions": ["click", "fill", "select"],
    "inputs": {name: "{{" + name + "}}" for name in ("payee_name", "payee_account", "payee_bank", "amount", "purpose")},
    "completion": {"kind": "url_contains", "value": "/bank/payment/result/"}, "failure_strategy": "ABORT",
}  # fmt: skip
ELSEWHERE = {
    "step_id": "elsewhere", "goal": "把付款信息发到外部网站", "actions": ["navigate"],
    "inputs": {"elsewhere": "http://files.example.test/upload"},
    "completion": {"kind": "url_contains", "value": "example.test"},
    "failure_strategy": "ABORT",
}  # fmt: skip
DENY_PAYMENTS = """
@id("deny.no_automated_payments")
@reason("This organisation does not let automation make payments; pay in the portal.")
forbid (principal, action == Action::"payment.submit", resource);
"""


def pay(seen: SeenPage) -> dict[str, Any]:
    """Open the payment form, type every field from the inputs, choose the bank, submit, confirm."""
    if "/bank/payment" not in seen.url:
        return seen.act("click", seen.find("对公付款", "link"), reason="open the payment form")
    for label, name in FIELDS.items():
        if "{{" + name + "}}" not in seen.history:
            return seen.act("fill", seen.find(label), value="{{" + name + "}}")
    if "{{payee_bank}}" not in seen.history:
        return seen.act("select", seen.find("收款银行"), value="{{payee_bank}}")
    if seen.dialogs:
        return seen.act("click", seen.find("确认", "button"), reason="confirm the payment")
    return seen.act("click", seen.find("提交", "button"), reason="submit the form")


def operator(*steps: dict[str, Any]) -> ScriptedOperator:
    plan = {"steps": [LOGIN, *steps]}
    return ScriptedOperator(
        {
            "填写并提交对公付款": pay,
            "把付款信息发到外部网站": lambda seen: seen.act("navigate", value="{{elsewhere}}"),
        },
        plan=lambda request: plan,
    )


@dataclass
class Harness:
    app: App
    org_id: str
    dept_id: str
    operator_id: str | None
    runner: RunRunner

    def reading(self) -> Any:
        return system_context("test: read the run", org_id=self.org_id)

    async def events(self, run_id: str) -> list[RunEvent]:
        with self.reading():
            async with unit_of_work(self.app.database.sessions) as session:
                return list(await RunRepository(session).events(run_id))

    async def effects(self, run_id: str) -> list[Effect]:
        with self.reading():
            async with unit_of_work(self.app.database.sessions) as session:
                return list((await session.execute(select(Effect).where(Effect.run_id == run_id))).scalars())

    async def approvals(self, run_id: str) -> list[Any]:
        with self.reading():
            async with approvals_transaction(
                self.app.database.sessions, self.app.settings, audit=self.runner.audit, bus=None
            ) as service:
                return [approval for approval in await service.recent(limit=500) if approval.run_id == run_id]


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def harness(
    request: pytest.FixtureRequest, tmp_path: Path, manager: BrowserManager, llm_server: ScriptedLLMServer
) -> AsyncIterator[Harness]:
    async with fresh_database(request.param, tmp_path) as url:
        settings = scripted_llm_settings(llm_server, database_url=url, data_dir=tmp_path / "var")
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            with system_context("test: find the operator", org_id=demo.org_id):
                async with unit_of_work(app.database.sessions) as session:
                    user = await IdentityRepository(session).user_by_username(demo.org_id, "operator")
            runner = vault_runner(app, settings, manager)
            try:
                yield Harness(app, demo.org_id, demo.dept_id, user.id if user else None, runner)
            finally:
                await runner.close()


def arguments(sandbox: SandboxServer, purpose: str) -> dict[str, Any]:
    return {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": f"secret://{BANK_PASSWORD_SECRET}",
        "payee_name": "杭州示例电子商务有限公司",
        "payee_account": "3301040160000012345",
        "payee_bank": "招商银行",
        "amount": AMOUNT,
        "purpose": purpose,
    }


async def create(harness: Harness, sandbox: SandboxServer, purpose: str) -> str:
    request = GoalRunRequest(GOAL, arguments(sandbox, purpose), GoalScope.everything(), dept_id=harness.dept_id,
                             created_by=harness.operator_id)  # fmt: skip
    with system_context("test: create a goal run", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            return str((await create_goal_run(session, request)).id)


def paid(sandbox: SandboxServer, purpose: str) -> list[dict[str, Any]]:
    return [p for p in sandbox_state(sandbox)["payments"] if p["purpose"] == purpose]


async def with_approvers(harness: Harness, run_id: str, *, approve: bool) -> CoordinationState:
    """Run while the demo approvers decide every approval asked (two distinct approvers for critical)."""
    stop = asyncio.Event()
    names = ("approver", "approver2") if approve else ("approver",)
    deciders = [
        asyncio.create_task(approve_when_asked(harness.app, harness.org_id, name, stop, approve=approve))
        for name in names
    ]
    running = asyncio.create_task(harness.runner.execute(run_id, harness.org_id))
    try:
        await asyncio.wait([running, *deciders], return_when=asyncio.FIRST_COMPLETED)
        for decider in deciders:  # an approver that stopped early would leave the run waiting: show why
            if decider.done():
                running.cancel()
                decider.result()
                raise AssertionError("an approver stopped before the run ended")
        return await running
    finally:
        stop.set()
        await asyncio.gather(*deciders, return_exceptions=True)


async def approve_when_asked(app: App, org_id: str, name: str, stop: asyncio.Event, *, approve: bool = True) -> None:
    """Decide every approval pending for ``name`` until ``stop``; one another approver closed first is skipped."""
    audit, bus = AuditService.from_settings(app.settings), build_bus(app.settings)
    while not stop.is_set():
        with system_context("test: approver", org_id=org_id):
            async with unit_of_work(app.database.sessions) as session:
                user = await IdentityRepository(session).user_by_username(org_id, name)
                assert user is not None
                principal = await DirectoryService(session, app.settings).load_principal(user)
            async with approvals_transaction(app.database.sessions, app.settings, audit=audit, bus=bus) as service:
                pending = [approval.id for approval in await service.pending_for(principal)]
            for approval_id in pending:
                with contextlib.suppress(ApprovalAlreadyDecidedError):
                    async with approvals_transaction(
                        app.database.sessions, app.settings, audit=audit, bus=bus
                    ) as service:
                        await service.decide(approval_id, principal, approve, comment=f"test: {name}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.3)


def payloads(events: list[RunEvent], kind: str) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.type == EventType.POLICY_DECISION and e.payload.get("kind") == kind]


async def test_an_llm_proposed_payment_waits_for_approval_and_is_paid_exactly_once(
    harness: Harness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    purpose = f"GATE-OK-{uuid.uuid4().hex[:6]}"
    llm_server.set_handler(operator(PAY))
    run_id = await create(harness, sandbox, purpose)
    final = await with_approvers(harness, run_id, approve=True)

    assert final.status is TaskStatus.COMPLETED, final.last_error
    [payment] = paid(sandbox, purpose)
    assert payment["amount"] == AMOUNT
    events = await harness.events(run_id)
    proposed = payloads(events, "llm_action")
    assert [p["action"]["target"]["name"] for p in proposed] == ["提交", "确认"], "only submit and confirm are gated"
    assert [(p["action"]["operation"], p["decision"]) for p in proposed] == [("payment.submit", "require_approval")] * 2
    assert all(p["action"]["typed"]["金额"] == AMOUNT for p in proposed), "the approval binds the typed amount"
    decided = payloads(events, "decision")
    assert [d["decision"] for d in decided] == ["require_approval", "require_approval"]
    assert {"approval.high_risk"} <= set(decided[0]["reason_codes"])
    [approval] = await harness.approvals(run_id)
    assert approval.status is ApprovalStatus.APPROVED, "one approval for the payment: its confirm step is covered"
    assert approval.required_approvals == 2, "a 1.5M payment is critical: two approvers"
    assert approval.action["kind"] == "click" and approval.action["operation"] == "payment.submit"
    submit, confirm = proposed
    assert "covered_by_approval" not in submit and confirm["covered_by_approval"] == approval.id
    decisions = [e.payload for e in events if e.type == EventType.APPROVAL_DECIDED]
    assert [(d["approval_id"], d["status"], d.get("covered", False)) for d in decisions] == [
        (approval.id, "APPROVED", False),
        (approval.id, "APPROVED", True),
    ], "the confirm click is recorded as covered by the payment's approval, by id"
    covered = decisions[1]["action"]
    assert covered["target"]["name"] == "确认" and covered["typed"] == submit["action"]["typed"]
    [requested] = [e.seq for e in events if e.type == EventType.APPROVAL_REQUESTED]
    submit_decision = next(e.seq for e in events if e.payload.get("kind") == "llm_action")
    assert submit_decision < requested, "the decision is recorded before the approval and the click"
    effects = await harness.effects(run_id)
    assert sorted(e.state for e in effects) == ["succeeded", "succeeded"]
    assert {e.operation for e in effects} == {"payment.submit"}


async def test_a_rejected_llm_proposed_payment_pays_nothing(
    harness: Harness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    purpose = f"GATE-NO-{uuid.uuid4().hex[:6]}"
    llm_server.set_handler(operator(PAY))
    run_id = await create(harness, sandbox, purpose)
    final = await with_approvers(harness, run_id, approve=False)

    assert final.status is TaskStatus.ABORTED, "the step's failure strategy is abort"
    assert "rejected" in (final.last_error or "")
    assert paid(sandbox, purpose) == []
    [approval] = await harness.approvals(run_id)
    assert approval.status is ApprovalStatus.REJECTED and approval.action["kind"] == "click"
    [effect] = await harness.effects(run_id)
    assert effect.state == "not_done"
    failed = [e.payload for e in await harness.events(run_id) if e.type == EventType.SUBTASK_FAILED]
    assert failed[-1]["error_code"] == "approval_not_given"


async def test_a_tenant_policy_denying_payments_stops_the_llm_before_the_click(
    harness: Harness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    purpose = f"GATE-DENY-{uuid.uuid4().hex[:6]}"
    with system_context("test: add a tenant policy", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            await PolicyService(session).add_policy(harness.org_id, "no payments", DENY_PAYMENTS, created_by="admin")
    llm_server.set_handler(operator(PAY))
    run_id = await create(harness, sandbox, purpose)
    final = await harness.runner.execute(run_id, harness.org_id)

    assert final.status is TaskStatus.ABORTED
    assert "deny.no_automated_payments" in (final.last_error or "")
    assert paid(sandbox, purpose) == []
    events = await harness.events(run_id)
    [decision] = payloads(events, "decision")
    assert decision["decision"] == "deny" and decision["operation"] == "payment.submit"
    assert "deny.no_automated_payments" in decision["reason_codes"]
    assert not [e for e in events if e.type in (EventType.EFFECT, EventType.APPROVAL_REQUESTED)]
    failed = [e.payload for e in events if e.type == EventType.SUBTASK_FAILED]
    assert failed[-1]["error_code"] == "policy_denied"
    clicks = [e.payload for e in events if e.type == EventType.ACTION and e.payload.get("kind") == "click"]
    assert all("提交" not in str(click.get("target")) for click in clicks), "the submit button was never clicked"


async def test_a_proposal_for_another_host_is_refused_by_the_manifest(
    harness: Harness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    llm_server.set_handler(operator(ELSEWHERE))
    run_id = await create(harness, sandbox, "GATE-HOST")
    final = await harness.runner.execute(run_id, harness.org_id)

    assert final.status is TaskStatus.ABORTED
    assert "files.example.test" in (final.last_error or "")
    events = await harness.events(run_id)
    [refusal] = payloads(events, "capability_check")
    assert refusal["host"] == "files.example.test" and refusal["reason_codes"] == ["capability_denied"]
    navigations = [e.payload for e in events if e.type == EventType.ACTION and e.payload.get("kind") == "navigate"]
    assert all("example.test" not in str(n) for n in navigations), "nothing was opened on the other host"


# -- a durable worker replans ---------------------------------------------------------------------------------
BROKEN = dict(ELSEWHERE, failure_strategy="REPLAN")


def replanning_operator() -> ScriptedOperator:
    """First plan: a step the manifest refuses (another host); the replan plans the payment instead."""

    def plan(request: RecordedRequest) -> dict[str, Any]:
        if "Completed steps (kept)" in request.last_user_text:
            return {"steps": [dict(PAY, step_id="pay_again")]}
        return {"steps": [LOGIN, BROKEN]}

    return ScriptedOperator(
        {"填写并提交对公付款": pay, "把付款信息发到外部网站": lambda seen: seen.act("navigate", value="{{elsewhere}}")},
        plan=plan,
    )


@pytest.mark.parametrize("backend", backends())
async def test_a_durable_worker_replans_a_goal_run_in_a_recorded_step(
    backend: str, tmp_path: Path, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    scripted = replanning_operator()
    llm_server.set_handler(scripted)
    purpose = f"GATE-REPLAN-{uuid.uuid4().hex[:6]}"
    async with fresh_database(backend, tmp_path) as url:
        data = tmp_path / "var"
        settings = scripted_llm_settings(llm_server, database_url=url, data_dir=data)
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            with system_context("test: find the operator", org_id=demo.org_id):
                async with unit_of_work(app.database.sessions) as session:
                    user = await IdentityRepository(session).user_by_username(demo.org_id, "operator")
            harness = Harness(app, demo.org_id, demo.dept_id, user.id if user else None, None)  # type: ignore[arg-type]
            client = RunQueueClient(settings)
            # Failover is not what this test is about: a worker silent for 4 s on a loaded machine is not dead.
            pool = WorkerPool(
                llm_worker_env(llm_server, url, data), prefix="g", log_dir=tmp_path / "workers", dead_after_s=20.0
            )
            stop = asyncio.Event()
            deciders = [asyncio.create_task(approve_when_asked(app, demo.org_id, name, stop))
                        for name in ("approver", "approver2")]  # fmt: skip
            try:
                await wait_until_listening(app, pool, size=1)
                run_id = await create(harness, sandbox, purpose)
                await client.enqueue(run_id, demo.org_id)
                status = await asyncio.wait_for(client.result(run_id), 240)
                events = await harness_events(app, demo.org_id, run_id)
            finally:
                stop.set()
                await asyncio.gather(*deciders)
                pool.stop()
                client.close()
    assert status == "COMPLETED", [e.payload for e in events if e.type in ("subtask_failed", "needs_human")]
    kinds = [e.type for e in events]
    assert EventType.PLANNED in kinds and EventType.REPLANNED in kinds
    [replanned] = [e.payload for e in events if e.type == EventType.REPLANNED]
    steps = [s["inputs"]["step_id"] for s in replanned["plan"]["subtasks"]]
    assert steps[-1] == "pay_again" and "files.example.test" in replanned["reason"]
    assert scripted.plans_asked == 2, "planned once, replanned once"
    assert len(paid(sandbox, purpose)) == 1


async def harness_events(app: App, org_id: str, run_id: str) -> list[RunEvent]:
    with system_context("test: read events", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            return list(await RunRepository(session).events(run_id))

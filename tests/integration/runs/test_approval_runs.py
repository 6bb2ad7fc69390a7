"""Approvals in the run path, in headless Chromium against the sandbox bank, on SQLite and PostgreSQL:

* a CRITICAL payment (over the 1,000,000 CNY confirmed-payment threshold) waits for two different approvers — one
  approval (or the same approver twice) leaves it waiting — and is paid exactly once after the second;
* nobody deciding before a short deadline times the approval out: nothing is paid, the run stops for a person,
  "approval timed out" is queued and audited;
* a `finrpa worker` killed while its run waits: the decision taken while no worker runs is honoured by the next
  worker without asking again, and the payment is made exactly once (or not at all when rejected).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import select

from finrpa.agents.coordinator import Backoff
from finrpa.agents.plan import TaskStatus
from finrpa.approvals.errors import RequesterCannotApproveError
from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.schemas import Approval
from finrpa.approvals.service import approvals_transaction
from finrpa.audit.schemas import AuditQuery
from finrpa.audit.service import AuditService
from finrpa.bootstrap import App, open_app
from finrpa.browser import BrowserManager
from finrpa.bus.port import Bus
from finrpa.commands.demo import BANK_PASSWORD_SECRET, seed_demo_org
from finrpa.commands.runs import start_run
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.identity.permissions import Principal
from finrpa.identity.repository import IdentityRepository
from finrpa.identity.service import DirectoryService
from finrpa.notify import service as notify_service
from finrpa.notify.models import NotifyDelivery
from finrpa.notify.schemas import ChannelCreate
from finrpa.runs.durable import RunQueueClient
from finrpa.runs.models import Effect, Run, RunEvent
from finrpa.runs.runner import RunnerOptions, RunRunner
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.runs import DictSecrets
from tests.integration.runs.conftest import sandbox_state

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

CRITICAL_AMOUNT = "1500000.00"  # over payment_critical_cny (1,000,000) on the confirming step: two approvers
HIGH_AMOUNT = "8800.00"  # a payment below the critical threshold: one approver


@dataclass
class Bank:
    """One organisation (operator, approver, approver2), its database and a notification channel."""

    app: App
    org_id: str
    dept_id: str
    operator_id: str
    audit: AuditService

    @property
    def settings(self) -> Settings:
        return self.app.settings

    def as_platform(self) -> Any:
        return system_context("test: read the run", org_id=self.org_id)

    async def principal(self, username: str) -> Principal:
        with self.as_platform():
            async with unit_of_work(self.app.database.sessions) as session:
                user = await IdentityRepository(session).user_by_username(self.org_id, username)
                assert user is not None, username
                return await DirectoryService(session, self.settings).load_principal(user)

    async def decide(self, username: str, approval_id: str, approve: bool = True, bus: Bus | None = None) -> Approval:
        principal = await self.principal(username)
        with self.as_platform():
            async with approvals_transaction(self.app.database.sessions, self.settings, audit=self.audit, bus=bus) as s:
                return await s.decide(approval_id, principal, approve, comment=f"test: {username}")

    async def approvals_of(self, run_id: str) -> list[Approval]:
        with self.as_platform():
            async with approvals_transaction(
                self.app.database.sessions, self.settings, audit=self.audit, bus=None
            ) as s:
                return [approval for approval in await s.recent(limit=500) if approval.run_id == run_id]

    async def run(self, run_id: str) -> tuple[Run, list[RunEvent], list[Effect]]:
        with self.as_platform():
            async with unit_of_work(self.app.database.sessions) as session:
                run = (await session.execute(select(Run).where(Run.id == run_id))).scalar_one()
                statement = select(RunEvent).where(RunEvent.run_id == run_id).order_by(RunEvent.seq)
                events = list((await session.execute(statement)).scalars())
                effects = list((await session.execute(select(Effect).where(Effect.run_id == run_id))).scalars())
                return run, events, effects

    async def deliveries(self, kind: str, approval_id: str) -> int:
        with self.as_platform():
            async with unit_of_work(self.app.database.sessions) as session:
                rows = (
                    await session.execute(select(NotifyDelivery).where(NotifyDelivery.event_kind == kind))
                ).scalars()
                return sum(1 for row in rows if row.payload.get("approval_id") == approval_id)

    async def approval_audit(self, run_id: str) -> list[tuple[str, str, str | None]]:
        """(action type, result, executor) of the run's approval audit rows, oldest first."""
        with self.as_platform():
            async with self.app.database.sessions() as session:
                page = await self.audit.search(session, self.org_id, AuditQuery(task_id=run_id))
        rows = [row for row in page.items if row.action_type.startswith("APPROVAL")]
        return [(row.action_type, row.execution_result, row.executor) for row in sorted(rows, key=lambda r: r.id)]

    async def wait_until_waiting(self, run_id: str, deadline_s: float = 180) -> Approval:
        """The run's pending approval, once the run says WAITING_APPROVAL."""
        started = time.monotonic()
        while time.monotonic() - started < deadline_s:
            run, events, _ = await self.run(run_id)
            if run.status in ("COMPLETED", "FAILED", "ABORTED", "NEEDS_HUMAN"):
                failures = [e.payload for e in events if e.type in ("subtask_failed", "needs_human")]
                raise AssertionError(f"run ended {run.status} before waiting for approval: {failures}")
            approvals = await self.approvals_of(run_id)
            if run.status == "WAITING_APPROVAL" and approvals:
                assert len(approvals) == 1, approvals
                return approvals[0]
            await asyncio.sleep(0.1)
        raise AssertionError(f"run {run_id} never waited for an approval")


@pytest.fixture(scope="module", autouse=True)
def _cheap_password_hashing() -> Iterator[None]:
    """Still Argon2id, with small costs for the seeded people: the machine runs many tests at once."""
    from argon2 import PasswordHasher

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("finrpa.identity.passwords._HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        yield


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def bank(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Bank]:
    async with fresh_database(request.param, tmp_path) as url:
        settings = Settings(database_url=url, data_dir=tmp_path / "var", approval_recheck_s=0.5)
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            channel = ChannelCreate(name="approvers", config={"kind": "wecom", "url": "https://qyapi.weixin.qq.com/x"})
            with system_context("test: notification channel", org_id=demo.org_id):
                async with unit_of_work(app.database.sessions) as session:
                    await notify_service.add_channel(session, demo.org_id, channel, settings)
                    operator = await IdentityRepository(session).user_by_username(demo.org_id, "operator")
            assert operator is not None
            yield Bank(app, demo.org_id, demo.dept_id, operator.id, AuditService.from_settings(settings))


def in_process_runner(
    bank: Bank, manager: BrowserManager, *, worker_id: str = "embedded", **settings: Any
) -> RunRunner:
    secrets = DictSecrets({"bank": DEMO_PASSWORD})
    options = RunnerOptions(screenshots=False, backoff=Backoff(base_s=0.05, factor=2.0, max_s=0.2), worker_id=worker_id)
    return RunRunner(
        bank.settings.model_copy(update=settings),
        bank.app.database,
        audit=bank.audit,
        manager=manager,
        secrets=lambda org, run: secrets,
        options=options,
    )


def payment(sandbox: SandboxServer, amount: str, password: str = "secret://bank") -> dict[str, Any]:  # noqa: S107
    return {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": password,
        "payer_account": "1001020309000123456",
        "payee_name": "杭州示例电子商务有限公司",
        "payee_account": "3301040160000012345",
        "payee_bank": "招商银行",
        "amount": amount,
        "business_ref": f"APR-{uuid.uuid4().hex[:10]}",
    }


def paid(sandbox: SandboxServer, business_ref: str) -> list[dict[str, Any]]:
    return [p for p in sandbox_state(sandbox)["payments"] if p["purpose"] == business_ref]


async def test_a_critical_payment_needs_two_different_approvers_and_is_paid_once(
    bank: Bank, sandbox: SandboxServer, manager: BrowserManager
) -> None:
    runner = in_process_runner(bank, manager)
    args = payment(sandbox, CRITICAL_AMOUNT)
    run_id = await start_run(
        bank.app, bank.org_id, "bank_payment_submission", args, created_by=bank.operator_id, dept_id=bank.dept_id
    )
    execution = asyncio.create_task(runner.execute(run_id, bank.org_id))
    try:
        approval = await bank.wait_until_waiting(run_id)
        assert approval.risk.level.value == "critical" and approval.required_approvals == 2
        assert any("1,000,000" in reason for reason in approval.risk.reasons), approval.risk.reasons
        with pytest.raises(RequesterCannotApproveError):
            await bank.decide("operator", approval.id)

        first = await bank.decide("approver", approval.id, bus=runner.bus)
        again = await bank.decide("approver", approval.id, bus=runner.bus)  # the same approver counts once
        assert (first.status, first.approvals) == (ApprovalStatus.PENDING, 1)
        assert (again.status, again.approvals, len(again.decisions)) == (ApprovalStatus.PENDING, 1, 1)
        await asyncio.sleep(1.5)  # the waiter was woken twice and re-read the database more than once
        run, _, _ = await bank.run(run_id)
        assert not execution.done() and run.status == "WAITING_APPROVAL", "one approval of two must not proceed"
        assert paid(sandbox, args["business_ref"]) == []

        second = await bank.decide("approver2", approval.id, bus=runner.bus)
        assert (second.status, second.approvals) == (ApprovalStatus.APPROVED, 2)
        final = await asyncio.wait_for(execution, 120)
    finally:
        execution.cancel()
        await asyncio.gather(execution, return_exceptions=True)
    assert final.status is TaskStatus.COMPLETED, final.last_error
    payments = paid(sandbox, args["business_ref"])
    assert len(payments) == 1, payments
    assert payments[0]["amount"].replace(",", "") in ("1500000.00", "1500000.0", "1500000")
    _, events, effects = await bank.run(run_id)
    assert [(e.state, e.external_ref) for e in effects] == [("succeeded", payments[0]["reference"])]
    decided = [e.payload for e in events if e.type == "approval_decided"]
    assert [(d["approval_id"], d["status"]) for d in decided] == [(approval.id, "APPROVED")]
    audit = await bank.approval_audit(run_id)
    people = [who for kind, _, who in audit if kind == "APPROVAL_DECISION" and (who or "").startswith("human:")]
    approvers = [f"human:{(await bank.principal(name)).user_id}" for name in ("approver", "approver2")]
    assert sorted(people) == sorted(approvers), "one decision row per distinct approver"


async def test_an_approval_nobody_decides_times_out_and_nothing_is_paid(
    bank: Bank, sandbox: SandboxServer, manager: BrowserManager
) -> None:
    runner = in_process_runner(bank, manager, approval_timeout_high_s=3)
    args = payment(sandbox, HIGH_AMOUNT)
    run_id = await start_run(
        bank.app, bank.org_id, "bank_payment_submission", args, created_by=bank.operator_id, dept_id=bank.dept_id
    )
    final = await asyncio.wait_for(runner.execute(run_id, bank.org_id), 120)

    assert final.status is TaskStatus.NEEDS_HUMAN, final.last_error  # the step stopped; a person decides what next
    assert "no eligible approver decided in time" in (final.last_error or "")
    assert paid(sandbox, args["business_ref"]) == []
    (approval,) = await bank.approvals_of(run_id)
    assert approval.status is ApprovalStatus.TIMEOUT and approval.timeout_s == 3 and approval.decisions == ()
    run, events, effects = await bank.run(run_id)
    assert run.status == "NEEDS_HUMAN"
    assert [e.state for e in effects] == ["not_done"], "the ledger says the payment did not happen"
    assert [e.payload["status"] for e in events if e.type == "approval_decided"] == ["TIMEOUT"]
    assert not [e for e in events if e.type == "compensation"], "the payment template has nothing to compensate"
    assert await bank.deliveries("approval.timed_out", approval.id) == 1
    assert ("APPROVAL_DECISION", "TIMEOUT", "system") in await bank.approval_audit(run_id)


# -- a worker killed while its run waits ------------------------------------------------------------------------


async def test_a_decision_taken_after_the_waiting_worker_stopped_is_honoured_when_the_run_resumes(
    bank: Bank, sandbox: SandboxServer, manager: BrowserManager
) -> None:
    """The quick, in-process variant of the worker kill below: the waiting execution is cancelled (its browser
    context closes), the approver decides while nothing waits, and a new runner resumes the run."""
    args = payment(sandbox, HIGH_AMOUNT)
    run_id = await start_run(
        bank.app, bank.org_id, "bank_payment_submission", args, created_by=bank.operator_id, dept_id=bank.dept_id
    )
    first = in_process_runner(bank, manager, worker_id="first")
    execution = asyncio.create_task(first.execute(run_id, bank.org_id))
    approval = await bank.wait_until_waiting(run_id)
    execution.cancel()
    await asyncio.gather(execution, return_exceptions=True)
    await bank.decide("approver", approval.id)  # nobody is waiting: no wake-up reaches anyone

    final = await asyncio.wait_for(
        in_process_runner(bank, manager, worker_id="second").execute(run_id, bank.org_id), 120
    )

    assert final.status is TaskStatus.COMPLETED, final.last_error
    payments = paid(sandbox, args["business_ref"])
    assert len(payments) == 1, payments
    _, events, effects = await bank.run(run_id)
    assert [e.payload["worker_id"] for e in events if e.type == "claimed"] == ["first", "second"]
    assert [a.id for a in await bank.approvals_of(run_id)] == [approval.id], "the run did not ask again"
    assert await bank.deliveries("approval.requested", approval.id) == 1
    assert [e.payload["status"] for e in events if e.type == "approval_decided"] == ["APPROVED"]
    assert [(e.state, e.external_ref) for e in effects] == [("succeeded", payments[0]["reference"])]


def spawn_worker(bank: Bank, worker_id: str) -> subprocess.Popen[bytes]:
    env = dict(
        os.environ,
        FINRPA_DATA_DIR=str(bank.settings.data_dir),
        FINRPA_DATABASE_URL=bank.settings.database_url,
        FINRPA_APPROVAL_RECHECK_S="0.5",
    )
    command = [sys.executable, "-m", "finrpa.cli", "worker", "--id", worker_id]
    command += ["--heartbeat", "0.5", "--dead-after", "2", "--no-screenshots"]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_worker(worker: subprocess.Popen[bytes]) -> None:
    if worker.poll() is None:  # the run is over and its outcome committed: no need for a graceful stop
        worker.kill()
    worker.wait()


# 80–120 s each on a loaded 2-core machine (two worker start-ups): `make test` skips them, `-m slow` runs them.
@pytest.mark.slow
@pytest.mark.parametrize("approve", [True, False], ids=["approved", "rejected"])
async def test_a_decision_taken_while_no_worker_runs_is_honoured_by_the_next_worker(
    bank: Bank, sandbox: SandboxServer, approve: bool
) -> None:
    args = payment(sandbox, HIGH_AMOUNT, password=f"secret://{BANK_PASSWORD_SECRET}")
    run_id = await start_run(
        bank.app, bank.org_id, "bank_payment_submission", args, created_by=bank.operator_id, dept_id=bank.dept_id
    )
    client = RunQueueClient(bank.settings)
    workers = [spawn_worker(bank, f"first-{run_id}")]
    try:
        await client.enqueue(run_id, bank.org_id)
        approval = await bank.wait_until_waiting(run_id)
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait()

        decided = await bank.decide("approver", approval.id, approve=approve)  # nobody is waiting
        assert decided.status is (ApprovalStatus.APPROVED if approve else ApprovalStatus.REJECTED)
        assert paid(sandbox, args["business_ref"]) == []

        workers.append(spawn_worker(bank, f"second-{run_id}"))
        status = await asyncio.wait_for(client.result(run_id), timeout=240)
    finally:
        for worker in workers:
            stop_worker(worker)
        client.close()
    run, events, effects = await bank.run(run_id)
    claims = [e.payload["worker_id"] for e in events if e.type == "claimed"]
    assert claims[0] == f"first-{run_id}" and claims[-1] == f"second-{run_id}", claims
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert [a.id for a in await bank.approvals_of(run_id)] == [approval.id], "the run did not ask again"
    assert await bank.deliveries("approval.requested", approval.id) == 1
    decided_events = [e.payload["status"] for e in events if e.type == "approval_decided"]
    payments = paid(sandbox, args["business_ref"])
    if approve:
        assert status == TaskStatus.COMPLETED.value, [e.payload for e in events if e.type == "subtask_failed"]
        assert decided_events == ["APPROVED"]
        assert len(payments) == 1, payments
        assert [(e.state, e.external_ref) for e in effects] == [("succeeded", payments[0]["reference"])]
    else:
        assert status == TaskStatus.NEEDS_HUMAN.value and run.status == "NEEDS_HUMAN"
        assert decided_events == ["REJECTED"]
        assert payments == []
        assert [e.state for e in effects] == ["not_done"]

"""A payment whose approval was rejected or timed out stops for a person; when the person answers "retry"
(`finrpa tasks resolve --action retry`), the step asks for approval afresh — a new request, not the old
decision — and once approved the payment is made exactly once. In headless Chromium against the sandbox bank,
on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import time

import pytest
from typer.testing import CliRunner

from finrpa.agents.plan import TaskStatus
from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.schemas import Approval
from finrpa.browser import BrowserManager
from finrpa.cli import app as finrpa_cli
from finrpa.commands.runs import start_run
from finrpa.sandbox.server import SandboxServer
from tests.integration.runs import test_approval_runs as approval_runs
from tests.integration.runs.test_approval_runs import HIGH_AMOUNT, Bank, in_process_runner, paid, payment

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

# The organisation with operator and approvers, and cheap password hashing: the same fixtures as the approval runs.
bank = approval_runs.bank
_cheap_password_hashing = approval_runs._cheap_password_hashing


async def resolve_with_the_cli(bank: Bank, run_id: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """`finrpa tasks resolve RUN --action retry --no-resume`, as the person on duty types it."""
    monkeypatch.setenv("FINRPA_DATABASE_URL", bank.settings.database_url or "")
    monkeypatch.setenv("FINRPA_DATA_DIR", str(bank.settings.data_dir))
    arguments = ["tasks", "resolve", run_id, "--action", "retry", "--user", bank.operator_id, "--no-resume"]
    result = await asyncio.to_thread(CliRunner().invoke, finrpa_cli, arguments)
    if result.exception is not None:
        raise result.exception
    assert result.exit_code == 0, result.output
    return result.output


async def next_request(bank: Bank, run_id: str, known: set[str], deadline_s: float = 120) -> Approval:
    """The run's approval request that is not in ``known``, once the run waits for it."""
    started = time.monotonic()
    while time.monotonic() - started < deadline_s:
        run, events, _ = await bank.run(run_id)
        if run.status in ("COMPLETED", "FAILED", "ABORTED", "NEEDS_HUMAN"):
            failures = [e.payload for e in events if e.type in ("subtask_failed", "needs_human")]
            raise AssertionError(f"run ended {run.status} instead of asking again: {failures}")
        fresh = [a for a in await bank.approvals_of(run_id) if a.id not in known]
        if run.status == "WAITING_APPROVAL" and fresh:
            assert len(fresh) == 1, fresh
            return fresh[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"run {run_id} never asked for approval again")


# ~20 s each on a loaded 2-core machine; the timeout variant differs only in how the first request ends.
@pytest.mark.parametrize("ending", ["rejected", pytest.param("timed_out", marks=pytest.mark.slow)])
async def test_retry_after_a_rejection_or_a_timeout_asks_again_and_pays_once_when_approved(
    bank: Bank, sandbox: SandboxServer, manager: BrowserManager, monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    args = payment(sandbox, HIGH_AMOUNT)
    run_id = await start_run(
        bank.app, bank.org_id, "bank_payment_submission", args, created_by=bank.operator_id, dept_id=bank.dept_id
    )
    first_runner = in_process_runner(bank, manager, worker_id="first", approval_timeout_high_s=3)
    execution = asyncio.create_task(first_runner.execute(run_id, bank.org_id))
    try:
        first = await bank.wait_until_waiting(run_id)
        if ending == "rejected":
            await bank.decide("approver", first.id, approve=False, bus=first_runner.bus)
        stopped = await asyncio.wait_for(execution, 120)
    finally:
        execution.cancel()
        await asyncio.gather(execution, return_exceptions=True)
    assert stopped.status is TaskStatus.NEEDS_HUMAN, stopped.last_error
    first_status = ApprovalStatus.REJECTED if ending == "rejected" else ApprovalStatus.TIMEOUT
    assert [(a.id, a.status) for a in await bank.approvals_of(run_id)] == [(first.id, first_status)]

    assert "PENDING" in await resolve_with_the_cli(bank, run_id, monkeypatch)
    second_runner = in_process_runner(bank, manager, worker_id="second")
    execution = asyncio.create_task(second_runner.execute(run_id, bank.org_id))
    try:
        second = await next_request(bank, run_id, {first.id})
        assert (second.attempt, second.status, second.payload_hash) == (1, ApprovalStatus.PENDING, first.payload_hash)
        assert paid(sandbox, args["business_ref"]) == [], "nothing is paid before the new approval"
        await bank.decide("approver", second.id, bus=second_runner.bus)
        final = await asyncio.wait_for(execution, 120)
    finally:
        execution.cancel()
        await asyncio.gather(execution, return_exceptions=True)

    _, events, effects = await bank.run(run_id)
    story = "\n".join(f"{e.type} {str(e.payload)[:200]}" for e in events if e.type not in ("action", "run_created"))
    assert final.status is TaskStatus.COMPLETED, story
    payments = paid(sandbox, args["business_ref"])
    assert len(payments) == 1, payments
    assert [(e.state, e.external_ref) for e in effects] == [("succeeded", payments[0]["reference"])]
    decided = [(e.payload["approval_id"], e.payload["status"]) for e in events if e.type == "approval_decided"]
    assert decided == [(first.id, first_status.value), (second.id, "APPROVED")]
    requested = [(e.payload["approval_id"], e.payload["attempt"]) for e in events if e.type == "approval_requested"]
    assert requested == [(first.id, 0), (second.id, 1)]
    approvals = {a.id: a for a in await bank.approvals_of(run_id)}
    assert (approvals[first.id].status, approvals[second.id].status) == (first_status, ApprovalStatus.APPROVED)
    assert await bank.deliveries("approval.requested", second.id) == 1, "approvers were told about the new request"

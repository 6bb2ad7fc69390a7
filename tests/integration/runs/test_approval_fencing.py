"""A worker that another worker has taken the run from asks for no approval: the request and the run's waiting
state commit together, so the fenced-off worker's attempt leaves neither (no orphaned request for approvers to
decide). On SQLite and PostgreSQL; no browser is needed to reach the gate."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest
from sqlalchemy import select

from finrpa.browser import BrowserManager
from finrpa.commands.runs import start_run
from finrpa.db.engine import unit_of_work
from finrpa.runs.journal import StaleWorkerError
from finrpa.runs.models import Run
from finrpa.sandbox.server import SandboxServer
from finrpa.skills.base import SideEffect
from finrpa.tenancy.context import system_context
from tests.integration.runs import test_approval_runs as approval_runs
from tests.integration.runs.test_approval_runs import HIGH_AMOUNT, Bank, in_process_runner, payment

pytestmark = [pytest.mark.asyncio(loop_scope="module")]

bank = approval_runs.bank
_cheap_password_hashing = approval_runs._cheap_password_hashing


async def test_a_fenced_off_worker_leaves_no_approval_request_and_no_waiting_run(bank: Bank) -> None:
    # the portal is never opened: the gate comes before the browser acts
    arguments = payment(cast(SandboxServer, SimpleNamespace(base_url="http://127.0.0.1:9")), HIGH_AMOUNT)
    run_id = await start_run(
        bank.app, bank.org_id, "bank_payment_submission", arguments, created_by=bank.operator_id, dept_id=bank.dept_id
    )
    runner = in_process_runner(bank, BrowserManager())
    with system_context("test: two workers", org_id=bank.org_id):
        stale = await runner.claim(run_id)
        await runner.claim(run_id)  # another worker took the run over
        state = await runner.load_state(run_id)
        async with unit_of_work(bank.app.database.sessions) as session:
            run = (await session.execute(select(Run).where(Run.id == run_id))).scalar_one()
        step = next(s for s in state.plan.subtasks if s.skill_call and s.skill_call.side_effect is not SideEffect.READ)
        assert step.skill_call is not None
        gate = runner._gate(run)
        assert (await gate.assess(step, step.skill_call)).requires_approval  # the payment would need an approver
        with pytest.raises(StaleWorkerError):
            await gate.check(run, stale, step, step.skill_call, None)
    assert await bank.approvals_of(run_id) == []
    after, events, _ = await bank.run(run_id)
    assert after.status != "WAITING_APPROVAL"
    assert not [event for event in events if event.type == "approval_requested"]

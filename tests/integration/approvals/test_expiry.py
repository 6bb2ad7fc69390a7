"""The deadline sweep every worker runs: overdue requests of every organisation become TIMEOUT (audited, notified,
waiters woken) even when nobody waits on them; requests still in time are left alone."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from finrpa.approvals.expiry import expire_overdue, run_expiry
from finrpa.approvals.models import ApprovalStatus
from finrpa.audit.schemas import AuditQuery
from finrpa.bus import InProcessBus
from tests.integration.approvals.support import Desk, open_desk
from tests.integration.tenancy.support import Backend

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def timeout_audit_rows(desk: Desk, run_id: str) -> list[str]:
    with desk.as_run():
        async with desk.backend.db.sessions() as session:
            page = await desk.audit.search(session, desk.org_id, AuditQuery(task_id=run_id))
    return [row.execution_result for row in page.items if row.action_type == "APPROVAL_DECISION"]


async def test_the_sweep_times_out_overdue_requests_of_every_organisation(backend: Backend) -> None:
    bus = InProcessBus()
    first, second = await open_desk(backend, bus), await open_desk(backend, bus)
    overdue_first, overdue_second = await first.ask("high"), await second.ask("high")  # 30 minutes
    in_time = await first.ask("critical")  # 60 minutes
    notified_before = (await first.deliveries("approval.timed_out"), await second.deliveries("approval.timed_out"))
    waiter = asyncio.create_task(first.wait(overdue_first.id, timeout_s=30))
    await asyncio.sleep(0.1)  # subscribed and waiting

    later = overdue_first.created_at + timedelta(minutes=45)
    expired = await expire_overdue(backend.db.sessions, first.settings, audit=first.audit, bus=bus, now=later)

    assert {overdue_first.id, overdue_second.id} <= {approval.id for approval in expired}
    assert in_time.id not in {approval.id for approval in expired}
    assert await asyncio.wait_for(waiter, 5) is ApprovalStatus.TIMEOUT  # woken, not left to its own deadline
    assert (await first.get(in_time.id)).status is ApprovalStatus.PENDING
    assert (await second.get(overdue_second.id)).status is ApprovalStatus.TIMEOUT
    notified_after = (await first.deliveries("approval.timed_out"), await second.deliveries("approval.timed_out"))
    assert notified_after == (notified_before[0] + 1, notified_before[1] + 1)
    assert await timeout_audit_rows(second, overdue_second.run_id) == ["TIMEOUT"]
    again = await expire_overdue(backend.db.sessions, first.settings, audit=first.audit, bus=bus, now=later)
    assert not {overdue_first.id, overdue_second.id} & {approval.id for approval in again}, "timed out once"


async def test_the_worker_loop_times_out_a_request_nobody_waits_for(backend: Backend) -> None:
    bus = InProcessBus()
    desk = await open_desk(backend, bus, approval_timeout_high_s=1)
    approval = await desk.ask("high")
    stop = asyncio.Event()
    sweeper = asyncio.create_task(run_expiry(backend.db.sessions, desk.settings, stop, 0.1, audit=desk.audit, bus=bus))
    try:
        for _ in range(100):
            if (await desk.get(approval.id)).status is not ApprovalStatus.PENDING:
                break
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        await asyncio.wait_for(sweeper, 5)
    final = await desk.get(approval.id)
    assert final.status is ApprovalStatus.TIMEOUT, "the sweep did not time the request out within 10 s"
    assert "counts as rejected" in (final.resolution or "")
    assert await timeout_audit_rows(desk, approval.run_id) == ["TIMEOUT"]

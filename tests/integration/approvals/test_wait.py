"""The wait: subscribe first, then read, then wait — no decision is ever missed, and no wait lasts forever.

Waiters here re-read the database only every 60 s on their own (``recheck_s``), so a wake-up lost by the
bus would show up as a TIMEOUT after the 10 s test limit, not as a pass.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from finrpa.approvals.errors import ApprovalAlreadyDecidedError
from finrpa.approvals.models import ApprovalDecision, ApprovalStatus
from finrpa.approvals.service import ApprovalService
from finrpa.approvals.waiter import WaitHooks
from finrpa.audit.schemas import AuditQuery
from finrpa.bus import InProcessBus
from tests.integration.approvals.support import Desk, open_desk
from tests.integration.tenancy.support import Backend

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_a_decision_committed_right_after_the_read_wakes_the_waiter(desk: Desk) -> None:
    approval = await desk.ask("high")

    async def decide_now() -> None:
        await desk.decide("alice", approval.id)

    assert await desk.wait(approval.id, hooks=WaitHooks(after_read=decide_now)) is ApprovalStatus.APPROVED


async def test_a_decision_committed_before_the_subscription_is_seen_by_the_read(desk: Desk) -> None:
    approval = await desk.ask("high")

    async def decide_now() -> None:
        await desk.decide("alice", approval.id, approve=False)

    assert await desk.wait(approval.id, hooks=WaitHooks(before_subscribe=decide_now)) is ApprovalStatus.REJECTED


async def test_a_decision_between_subscribing_and_reading_is_not_lost(desk: Desk) -> None:
    approval = await desk.ask("high")

    async def decide_now() -> None:
        await desk.decide("bob", approval.id)

    assert await desk.wait(approval.id, hooks=WaitHooks(after_subscribe=decide_now)) is ApprovalStatus.APPROVED


async def test_dual_control_keeps_the_waiter_waiting_until_the_second_approval(desk: Desk) -> None:
    approval = await desk.ask("critical")
    seen: list[ApprovalStatus] = []

    async def approvers() -> None:
        await asyncio.sleep(0.1)
        seen.append((await desk.decide("alice", approval.id)).status)
        await asyncio.sleep(0.2)
        seen.append((await desk.decide("bob", approval.id)).status)

    background = asyncio.create_task(approvers())
    status = await desk.wait(approval.id)
    await background
    assert status is ApprovalStatus.APPROVED
    assert seen == [ApprovalStatus.PENDING, ApprovalStatus.APPROVED]


async def test_a_timeout_marks_timeout_notifies_and_does_nothing_else(desk: Desk) -> None:
    approval = await desk.ask("high")
    timed_out_before = await desk.deliveries("approval.timed_out")
    requested_before = await desk.deliveries("approval.requested")

    assert await desk.wait(approval.id, timeout_s=0.3) is ApprovalStatus.TIMEOUT

    final = await desk.get(approval.id)
    assert final.status is ApprovalStatus.TIMEOUT and final.decisions == () and final.approvals == 0
    assert "counts as rejected" in (final.resolution or "")
    assert await desk.deliveries("approval.timed_out") == timed_out_before + 1
    assert await desk.deliveries("approval.requested") == requested_before
    with pytest.raises(ApprovalAlreadyDecidedError, match="TIMEOUT"):
        await desk.decide("alice", approval.id)
    with desk.as_run():
        async with desk.backend.db.sessions() as session:
            page = await desk.audit.search(session, desk.org_id, AuditQuery(task_id=approval.run_id))
            decisions = await session.scalar(select(func.count()).where(ApprovalDecision.approval_id == approval.id))
    assert sorted((row.action_type, row.execution_result) for row in page.items) == [
        ("APPROVAL_DECISION", "TIMEOUT"),
        ("APPROVAL_REQUESTED", "requested"),
    ]
    assert decisions == 0


async def test_without_a_limit_the_wait_ends_at_the_requests_own_deadline(backend: Backend) -> None:
    desk = await open_desk(backend, InProcessBus(), approval_timeout_high_s=1)
    approval = await desk.ask("high")
    assert approval.timeout_s == 1
    assert await desk.wait(approval.id, timeout_s=None) is ApprovalStatus.TIMEOUT


async def test_waiting_on_a_decided_request_returns_its_status_at_once(desk: Desk) -> None:
    approval = await desk.ask("high")
    await desk.decide("alice", approval.id)
    assert await desk.wait(approval.id, timeout_s=0.01) is ApprovalStatus.APPROVED


async def test_the_deadline_sweep_times_out_only_overdue_requests_and_wakes_their_waiters(desk: Desk) -> None:
    high = await desk.ask("high")  # 30 minutes
    critical = await desk.ask("critical")  # 60 minutes
    later = high.created_at + timedelta(minutes=45)
    waiter = asyncio.create_task(desk.wait(high.id))
    await asyncio.sleep(0.1)  # the waiter is subscribed and waiting

    with desk.as_run():
        async with desk.backend.db.sessions() as session:
            async with session.begin():
                service = ApprovalService(session, desk.settings, audit=desk.audit, bus=desk.bus, clock=lambda: later)
                expired = await service.expire_due()
            await service.publish_wakeups()

    assert high.id in {a.id for a in expired} and critical.id not in {a.id for a in expired}
    assert await waiter is ApprovalStatus.TIMEOUT
    assert (await desk.get(critical.id)).status is ApprovalStatus.PENDING


async def test_the_waiter_always_unsubscribes(memory_desk: Desk) -> None:
    desk = memory_desk
    bus = InProcessBus()
    approval = await desk.ask("high")
    channel = f"approval:{approval.id}"
    assert await desk.wait(approval.id, timeout_s=0.05, bus=bus) is ApprovalStatus.TIMEOUT
    assert bus.subscriber_count(channel) == 0

    async def fail() -> None:
        raise RuntimeError("the worker is being stopped")

    other = await desk.ask("high")
    with pytest.raises(RuntimeError):
        await desk.wait(other.id, bus=bus, hooks=WaitHooks(after_read=fail))
    assert bus.subscriber_count(f"approval:{other.id}") == 0
    assert (await desk.get(other.id)).status is ApprovalStatus.PENDING

"""Decided once: concurrent decisions race on one conditional UPDATE, and exactly one wins.

A barrier holds every contender after its checks and before its first write, so all of them saw the
request PENDING; without the conditional UPDATE two of them would both "win".
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select

from finrpa.approvals.errors import ApprovalAlreadyDecidedError
from finrpa.approvals.models import ApprovalDecision, ApprovalStatus
from finrpa.approvals.repository import ApprovalRepository
from finrpa.approvals.schemas import Approval
from finrpa.db.engine import unit_of_work
from tests.integration.approvals.support import Desk

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def hold_writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``hold_writes(n)``: the next n decisions wait for each other right before they write."""
    original = ApprovalRepository.insert_decision

    def arm(parties: int) -> None:
        barrier = asyncio.Barrier(parties)

        async def held(self: ApprovalRepository, *args: Any, **kwargs: Any) -> bool:
            await barrier.wait()
            return await original(self, *args, **kwargs)

        monkeypatch.setattr(ApprovalRepository, "insert_decision", held)

    yield arm


async def _decision_rows(desk: Desk, approval_id: str) -> int:
    with desk.as_run():
        async with unit_of_work(desk.backend.db.sessions) as session:
            query = select(func.count()).where(ApprovalDecision.approval_id == approval_id)
            return int(await session.scalar(query) or 0)


def _outcomes(results: list[Approval | BaseException]) -> tuple[list[Approval], list[BaseException]]:
    won = [r for r in results if isinstance(r, Approval)]
    lost = [r for r in results if isinstance(r, BaseException)]
    return won, lost


async def test_two_approvers_at_once_on_a_single_approval_exactly_one_wins(memory_desk: Desk, hold_writes: Any) -> None:
    desk = memory_desk
    for _ in range(3):
        approval = await desk.ask("high")
        hold_writes(2)
        results = await asyncio.gather(
            desk.decide("alice", approval.id), desk.decide("bob", approval.id), return_exceptions=True
        )
        won, lost = _outcomes(results)
        assert len(won) == 1 and won[0].status is ApprovalStatus.APPROVED
        assert len(lost) == 1 and isinstance(lost[0], ApprovalAlreadyDecidedError)
        assert await _decision_rows(desk, approval.id) == 1  # the loser's row rolled back with its transaction


async def test_approve_and_reject_at_once_leave_one_consistent_outcome(memory_desk: Desk, hold_writes: Any) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    hold_writes(2)
    results = await asyncio.gather(
        desk.decide("alice", approval.id), desk.decide("bob", approval.id, approve=False), return_exceptions=True
    )
    won, lost = _outcomes(results)
    assert len(won) == 1 and len(lost) == 1
    final = await desk.get(approval.id)
    assert final.status is won[0].status and final.status in (ApprovalStatus.APPROVED, ApprovalStatus.REJECTED)
    assert [d.verdict.value for d in final.decisions] == (
        ["approve"] if final.status.value == "APPROVED" else ["reject"]
    )


async def test_dual_control_two_approvers_at_once_both_count(memory_desk: Desk, hold_writes: Any) -> None:
    desk = memory_desk
    approval = await desk.ask("critical")
    hold_writes(2)
    results = await asyncio.gather(
        desk.decide("alice", approval.id), desk.decide("bob", approval.id), return_exceptions=True
    )
    won, lost = _outcomes(results)
    assert lost == [] and sorted(a.approvals for a in won) == [1, 2]
    final = await desk.get(approval.id)
    assert (final.status, final.approvals) == (ApprovalStatus.APPROVED, 2)


async def test_the_same_approver_twice_at_once_counts_once(memory_desk: Desk, hold_writes: Any) -> None:
    desk = memory_desk
    approval = await desk.ask("critical")
    hold_writes(2)
    results = await asyncio.gather(
        desk.decide("alice", approval.id), desk.decide("alice", approval.id), return_exceptions=True
    )
    won, lost = _outcomes(results)
    assert lost == [] and [a.approvals for a in won] == [1, 1]  # both callers see the one recorded approval
    final = await desk.get(approval.id)
    assert (final.status, final.approvals) == (ApprovalStatus.PENDING, 1)
    assert await _decision_rows(desk, approval.id) == 1


async def test_a_timeout_and_a_decision_at_once_leave_one_outcome(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high")

    async def time_out() -> Approval:
        with desk.as_run():
            async with desk.transaction() as service:
                return await service.time_out(approval.id)

    results = await asyncio.gather(desk.decide("alice", approval.id), time_out(), return_exceptions=True)
    final = await desk.get(approval.id)
    assert final.status in (ApprovalStatus.APPROVED, ApprovalStatus.TIMEOUT)
    decided = [r for r in results if isinstance(r, Approval)]
    assert all(r.status is final.status for r in decided)
    assert (await _decision_rows(desk, approval.id) == 1) is (final.status is ApprovalStatus.APPROVED)

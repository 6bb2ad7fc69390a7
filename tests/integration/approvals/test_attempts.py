"""One approval request per attempt of a step (SPEC §C11, §C5): a step a person retries after a rejection or a
timeout asks afresh, while asking again within one attempt (a resumed worker) finds the same request. The
approvals_0002 migration keeps existing requests and decisions (attempt 0) and the maker-checker CHECKs."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from finrpa.approvals.errors import InvalidApprovalRequestError
from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.schemas import Approval
from finrpa.db.base import new_id
from finrpa.db.engine import create_engine
from finrpa.db.migrate import downgrade, upgrade
from tests.integration.approvals.support import TRANSFER, Desk

pytestmark = pytest.mark.asyncio(loop_scope="module")

DECISION_INSERT = sa.text(
    "INSERT INTO approval_decisions (id, org_id, approval_id, approver_user_id, requested_by, verdict, comment, "
    "payload_hash, decided_at) VALUES (:id, :org, :approval, :approver, :requested_by, 'approve', '', :hash, "
    "CURRENT_TIMESTAMP)"
)


async def ask(desk: Desk, run_id: str, attempt: int, action: Mapping[str, object] = TRANSFER) -> Approval:
    with desk.as_run():
        async with desk.transaction() as service:
            return await service.request(
                run_id, "pay", action, {"level": "high", "reasons": ["high test"]},
                requested_by=desk.user_id("olga"), dept_id=desk.org.department.id, bl_id=None, org_id=desk.org_id,
                attempt=attempt,
            )  # fmt: skip


async def test_a_retried_step_gets_a_new_request_and_the_same_attempt_gets_the_same_one(memory_desk: Desk) -> None:
    desk, run_id = memory_desk, new_id()
    first = await ask(desk, run_id, 0)
    rejected = await desk.decide("alice", first.id, approve=False)
    assert rejected.status is ApprovalStatus.REJECTED
    again = await ask(desk, run_id, 0)  # a worker resuming the same attempt: the decision stands
    assert (again.id, again.status, again.attempt) == (first.id, ApprovalStatus.REJECTED, 0)

    retried = await ask(desk, run_id, 1)  # a person answered the stop with "retry"
    assert retried.id != first.id and retried.attempt == 1
    assert (retried.status, retried.approvals, retried.decisions) == (ApprovalStatus.PENDING, 0, ())
    assert retried.payload_hash == first.payload_hash, "the same action, bound by the same hash"
    approved = await desk.decide("alice", retried.id)  # alice rejected attempt 0; she may decide attempt 1
    assert approved.status is ApprovalStatus.APPROVED
    assert (await ask(desk, run_id, 1)).id == retried.id
    assert (await desk.get(first.id)).status is ApprovalStatus.REJECTED, "the earlier attempt keeps its decision"


async def test_a_new_attempt_does_not_cancel_the_earlier_one_and_a_changed_action_still_does(
    memory_desk: Desk,
) -> None:
    desk, run_id = memory_desk, new_id()
    first = await ask(desk, run_id, 0)
    changed = await ask(desk, run_id, 0, {**TRANSFER, "amount": "1.00"})
    assert (await desk.get(first.id)).status is ApprovalStatus.CANCELLED
    assert changed.status is ApprovalStatus.PENDING


async def test_a_negative_attempt_is_refused_with_a_clear_message(memory_desk: Desk) -> None:
    with pytest.raises(InvalidApprovalRequestError, match="grows with each retry"):
        await ask(memory_desk, new_id(), -1)


async def test_the_migration_keeps_requests_decisions_and_the_maker_checker_checks(memory_desk: Desk) -> None:
    desk, run_id = memory_desk, new_id()
    decided = await desk.decide("alice", (await ask(desk, run_id, 0)).id)
    later = await ask(desk, run_id, 1)
    await downgrade(desk.backend.url, "approvals_0001")  # keeps the latest attempt of each action
    try:
        engine = create_engine(desk.backend.url)
        try:
            async with engine.connect() as connection:
                kept = (await connection.execute(sa.text("SELECT id FROM approval_requests"))).scalars().all()
            assert later.id in kept and decided.id not in kept
        finally:
            await engine.dispose()
    finally:
        await upgrade(desk.backend.url)

    kept_decided = await desk.decide("bob", (await ask(desk, new_id(), 0)).id)
    await downgrade(desk.backend.url, "approvals_0001")
    await upgrade(desk.backend.url)
    after = await desk.get(kept_decided.id)
    assert (after.status, after.attempt) == (ApprovalStatus.APPROVED, 0)
    assert [d.approver_user_id for d in after.decisions] == [desk.user_id("bob")], "decisions survive the rebuild"
    pending = await ask(desk, new_id(), 0)
    engine = create_engine(desk.backend.url)  # the owner, no ORM, no service: only the database decides
    values = {"id": new_id(), "org": desk.org_id, "approval": pending.id, "hash": pending.payload_hash}
    olga = desk.user_id("olga")
    try:
        with pytest.raises(IntegrityError, match="not_requester"):
            async with engine.begin() as connection:
                await connection.execute(DECISION_INSERT, {**values, "approver": olga, "requested_by": olga})
        with pytest.raises(IntegrityError, match="attempt"):
            async with engine.begin() as connection:
                await connection.execute(sa.text("UPDATE approval_requests SET attempt = -1 WHERE id = :id"),
                                         {"id": pending.id})  # fmt: skip
    finally:
        await engine.dispose()

"""Maker-checker, eligibility, dual control and idempotent, audited decisions (SPEC §C11, §C8)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from finrpa.approvals.errors import (
    ApprovalActionChangedError,
    ApprovalAlreadyDecidedError,
    ApprovalExpiredError,
    ApproverNotEligibleError,
    DecisionAlreadyRecordedError,
    RequesterCannotApproveError,
)
from finrpa.approvals.models import ApprovalStatus, Verdict
from finrpa.approvals.payload import payload_hash
from finrpa.approvals.service import ApprovalService
from finrpa.audit.schemas import AuditQuery
from finrpa.db.base import new_id
from finrpa.db.engine import create_engine
from finrpa.exceptions import NotFoundError
from finrpa.identity.permissions import Principal
from finrpa.tenancy import use_tenant
from tests.integration.approvals.support import TRANSFER, Desk, open_desk

pytestmark = pytest.mark.asyncio(loop_scope="module")

DECISION_INSERT = sa.text(
    "INSERT INTO approval_decisions (id, org_id, approval_id, approver_user_id, requested_by, verdict, comment, "
    "payload_hash, decided_at) VALUES (:id, :org, :approval, :approver, :requested_by, 'approve', '', :hash, "
    "CURRENT_TIMESTAMP)"
)


async def test_the_requester_cannot_approve_their_own_request(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high", requested_by="alice")  # alice is an approver, but asked this time
    with pytest.raises(RequesterCannotApproveError, match="maker-checker"):
        await desk.decide("alice", approval.id)
    after = await desk.get(approval.id)
    assert after.status is ApprovalStatus.PENDING and after.decisions == ()
    assert (await desk.decide("bob", approval.id)).status is ApprovalStatus.APPROVED


async def test_the_database_refuses_a_decision_by_the_requester_whatever_writes_it(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high", requested_by="alice")
    values = {"org": desk.org_id, "approval": approval.id, "hash": approval.payload_hash}
    engine = create_engine(desk.backend.url)  # the owner, no ORM, no service: only the database decides
    try:
        with pytest.raises(IntegrityError, match="not_requester"):
            async with engine.begin() as connection:
                alice = desk.user_id("alice")
                await connection.execute(
                    DECISION_INSERT, {**values, "id": new_id(), "approver": alice, "requested_by": alice}
                )
        with pytest.raises(IntegrityError):  # nor can the row claim another requester than the request's
            async with engine.begin() as connection:
                await connection.execute(
                    DECISION_INSERT,
                    {**values, "id": new_id(), "approver": desk.user_id("alice"), "requested_by": desk.user_id("bob")},
                )
    finally:
        await engine.dispose()
    assert (await desk.get(approval.id)).decisions == ()


@pytest.mark.parametrize("name", ["rita", "vera", "oscar", "olga"])
async def test_users_without_the_right_to_approve_here_are_refused(memory_desk: Desk, name: str) -> None:
    """rita approves in another department, vera only views, oscar and olga operate in ops."""
    desk = memory_desk
    approval = await desk.ask("high", requested_by="bob")
    with pytest.raises((ApproverNotEligibleError, NotFoundError)):
        await desk.decide(name, approval.id)
    assert (await desk.get(approval.id)).status is ApprovalStatus.PENDING


async def test_operator_with_a_cross_department_grant_is_refused_by_maker_checker(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    with pytest.raises(ApproverNotEligibleError, match="maker-checker") as refused:
        await desk.decide("oscar", approval.id)
    assert refused.value.code.endswith("maker_checker")


async def test_the_platform_itself_cannot_approve(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    platform = Principal.platform(desk.org_id, "test")
    with desk.as_run(), pytest.raises(ApproverNotEligibleError, match="a person"):
        async with desk.transaction() as service:
            await service.decide(approval.id, platform, True)


async def test_a_cross_department_approver_may_decide(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    decided = await desk.decide("xena", approval.id, comment="checked the payee")
    assert decided.status is ApprovalStatus.APPROVED
    assert [(d.approver_user_id, d.verdict, d.comment) for d in decided.decisions] == [
        (desk.user_id("xena"), Verdict.APPROVE, "checked the payee")
    ]


async def test_high_risk_needs_one_approval_and_records_when_it_was_decided(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    assert (approval.required_approvals, approval.timeout_s) == (1, 30 * 60)
    assert approval.expires_at - approval.created_at == timedelta(minutes=30)
    decided = await desk.decide("alice", approval.id)
    assert decided.status is ApprovalStatus.APPROVED and decided.approvals == 1
    assert decided.decided_at is not None and decided.covers(TRANSFER)


async def test_critical_needs_two_different_approvers_and_each_counts_once(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("critical")
    assert (approval.required_approvals, approval.timeout_s) == (2, 60 * 60)

    first = await desk.decide("alice", approval.id)
    assert (first.status, first.approvals) == (ApprovalStatus.PENDING, 1)
    again = await desk.decide("alice", approval.id)  # idempotent: the same approver counts once
    assert (again.status, again.approvals, len(again.decisions)) == (ApprovalStatus.PENDING, 1, 1)
    assert not again.covers(TRANSFER)

    second = await desk.decide("bob", approval.id)
    assert (second.status, second.approvals) == (ApprovalStatus.APPROVED, 2)
    assert {d.approver_user_id for d in second.decisions} == {desk.user_id("alice"), desk.user_id("bob")}


async def test_an_approver_cannot_change_a_recorded_decision(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("critical")
    await desk.decide("alice", approval.id)
    with pytest.raises(DecisionAlreadyRecordedError, match="cannot be changed"):
        await desk.decide("alice", approval.id, approve=False)
    assert (await desk.get(approval.id)).approvals == 1


async def test_any_rejection_finalises_rejected_and_nothing_is_decided_after(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("critical")
    await desk.decide("alice", approval.id)
    rejected = await desk.decide("bob", approval.id, approve=False, comment="payee unknown")
    assert rejected.status is ApprovalStatus.REJECTED and not rejected.covers(TRANSFER)
    with pytest.raises(ApprovalAlreadyDecidedError, match="REJECTED"):
        await desk.decide("xena", approval.id)


async def test_a_decision_is_bound_to_the_payload_hash(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    principal = desk.principals["alice"]
    with use_tenant(principal.tenant_context()), pytest.raises(ApprovalActionChangedError):
        async with desk.transaction() as service:
            await service.decide(approval.id, principal, True, payload_hash=payload_hash({"other": "action"}))
    with use_tenant(principal.tenant_context()):
        async with desk.transaction() as service:
            decided = await service.decide(approval.id, principal, True, payload_hash=approval.payload_hash)
    changed = {**TRANSFER, "params": {"fields": {"收款账号": "6222021234567890", "金额": "9,500,000.00"}}}
    assert decided.covers(TRANSFER) and not decided.covers(changed)
    assert decided.decisions[0].payload_hash == approval.payload_hash


async def test_asking_again_after_a_crash_returns_the_decision_made_meanwhile(memory_desk: Desk) -> None:
    desk = memory_desk
    run_id = new_id()
    first = await desk.ask("high", run_id=run_id)
    await desk.decide("alice", first.id)
    again = await desk.ask("high", run_id=run_id)
    assert again.id == first.id and again.status is ApprovalStatus.APPROVED


async def test_a_changed_action_needs_a_new_approval_and_cancels_the_stale_one(memory_desk: Desk) -> None:
    desk = memory_desk
    run_id = new_id()
    stale = await desk.ask("high", run_id=run_id)
    fresh = await desk.ask("high", run_id=run_id, action={**TRANSFER, "note": "amount corrected"})
    assert fresh.id != stale.id and fresh.status is ApprovalStatus.PENDING
    cancelled = await desk.get(stale.id)
    assert cancelled.status is ApprovalStatus.CANCELLED and "action changed" in (cancelled.resolution or "")
    with pytest.raises(ApprovalAlreadyDecidedError):
        await desk.decide("alice", stale.id)


async def test_an_expired_request_cannot_be_decided(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    principal = desk.principals["alice"]
    later = approval.expires_at + timedelta(seconds=1)
    with use_tenant(principal.tenant_context()), pytest.raises(ApprovalExpiredError, match="counts as rejected"):
        async with desk.backend.db.sessions() as session, session.begin():
            service = ApprovalService(session, desk.settings, audit=desk.audit, clock=lambda: later)
            await service.decide(approval.id, principal, True)


async def test_requests_and_decisions_are_audited_with_masked_values(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("critical")
    assert approval.action["params"] == {
        "fields": {"收款账号": "************7890", "金额": "1,500,000.00", "收款人": "张**"}
    }
    await desk.decide("alice", approval.id)
    await desk.decide("bob", approval.id, comment="ok")
    with desk.as_run():
        async with desk.backend.db.sessions() as session:
            page = await desk.audit.search(session, desk.org_id, AuditQuery(task_id=approval.run_id))
    rows = sorted(page.items, key=lambda row: row.seq)
    assert [(row.action_type, row.execution_result) for row in rows] == [
        ("APPROVAL_REQUESTED", "requested"),
        ("APPROVAL_DECISION", "PENDING"),
        ("APPROVAL_DECISION", "APPROVED"),
    ]
    assert all(row.approval_id == approval.id for row in rows)
    assert rows[2].approver_user_id == desk.user_id("bob") and rows[2].has_approval
    assert "6222021234567890" not in repr(rows)


async def test_a_request_notifies_the_approvers_channel(memory_desk: Desk) -> None:
    desk = memory_desk
    before = await desk.deliveries("approval.requested")
    approval = await desk.ask("critical")
    assert await desk.deliveries("approval.requested") == before + 1
    await desk.ask("critical", run_id=approval.run_id)  # the same request again: no second message
    assert await desk.deliveries("approval.requested") == before + 1


async def test_the_approvers_queue_holds_what_they_may_decide_and_have_not(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("critical")

    async def queue(name: str) -> set[str]:
        principal = desk.principals[name]
        with use_tenant(principal.tenant_context()):
            async with desk.transaction() as service:
                return {item.id for item in await service.pending_for(principal)}

    assert approval.id in await queue("alice") and approval.id in await queue("xena")
    for outsider in ("olga", "rita", "vera", "oscar"):
        assert approval.id not in await queue(outsider)
    await desk.decide("alice", approval.id)
    assert approval.id not in await queue("alice") and approval.id in await queue("bob")
    await desk.decide("bob", approval.id)
    assert approval.id not in await queue("xena")


async def test_another_organisation_sees_nothing(memory_desk: Desk) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    other = await open_desk(desk.backend, desk.bus)
    with pytest.raises(NotFoundError):
        await other.decide("alice", approval.id)
    with pytest.raises(NotFoundError):
        await other.get(approval.id)
    assert (await desk.get(approval.id)).status is ApprovalStatus.PENDING

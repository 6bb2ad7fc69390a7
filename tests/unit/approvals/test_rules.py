"""Who may decide an approval, how many must, and by when (§C11 on top of the §C8 permission chain)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from finrpa.approvals.errors import ApproverNotEligibleError, RequesterCannotApproveError
from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.rules import check_eligible, is_eligible, terms_for
from finrpa.approvals.schemas import Approval, RiskSummary
from finrpa.config import Settings
from finrpa.identity.models import GrantKind, Role
from finrpa.identity.permissions import CrossDeptGrant, Principal
from finrpa.risk.levels import RiskLevel

ORG, OPS, RISK = "org-1", "dept-ops", "dept-risk"
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _approval(requested_by: str | None = "u-olga", dept_id: str | None = OPS) -> Approval:
    return Approval(
        id="a1", org_id=ORG, run_id="r1", subtask_id="s1", action={}, action_summary="{}", payload_hash="0" * 64,
        risk=RiskSummary(level=RiskLevel.HIGH), evidence=None, requested_by=requested_by, dept_id=dept_id,
        bl_id=None, required_approvals=1, approvals=0, status=ApprovalStatus.PENDING, timeout_s=1800,
        created_at=NOW, expires_at=NOW + timedelta(minutes=30), decided_at=None, resolution=None,
    )  # fmt: skip


def _user(user_id: str, roles: dict[str, frozenset[Role]] | None = None, **extra: object) -> Principal:
    return Principal(user_id=user_id, org_id=ORG, username=user_id, department_roles=roles or {}, **extra)  # type: ignore[arg-type]


APPROVER = frozenset({Role.APPROVER})


def test_critical_needs_dual_control_for_an_hour_everything_else_one_approver_for_half_an_hour() -> None:
    settings = Settings()
    critical = terms_for(RiskLevel.CRITICAL, settings)
    assert (critical.required_approvals, critical.timeout_s) == (2, 3600)
    for level in (RiskLevel.HIGH, RiskLevel.MEDIUM, RiskLevel.LOW):
        terms = terms_for(level, settings)
        assert (terms.required_approvals, terms.timeout_s) == (1, 1800)
    custom = terms_for(RiskLevel.CRITICAL, Settings(approval_required_critical=3, approval_timeout_critical_s=600))
    assert (custom.required_approvals, custom.timeout_s) == (3, 600)


def test_an_approver_of_the_department_may_decide() -> None:
    check_eligible(_approval(), _user("u-alice", {OPS: APPROVER}))


def test_the_requester_may_not_decide_even_as_an_approver_or_admin() -> None:
    with pytest.raises(RequesterCannotApproveError, match="maker-checker"):
        check_eligible(_approval(requested_by="u-alice"), _user("u-alice", {OPS: APPROVER}))
    with pytest.raises(RequesterCannotApproveError):
        check_eligible(_approval(requested_by="u-root"), _user("u-root", is_org_admin=True))


@pytest.mark.parametrize(
    "principal",
    [
        _user("u-rita", {RISK: APPROVER}),  # approver elsewhere
        _user("u-vera", {OPS: frozenset({Role.VIEWER})}),
        _user("u-olga2", {OPS: frozenset({Role.OPERATOR})}),
        _user(
            "u-oscar",
            {OPS: frozenset({Role.OPERATOR})},
            grants=frozenset({CrossDeptGrant(GrantKind.CROSS_DEPT_APPROVE, None)}),
        ),
        _user("u-key", {OPS: APPROVER}, scopes=frozenset()),  # an API key without the approve scope
        Principal.platform(ORG, "worker"),
    ],
)
def test_everyone_else_is_refused(principal: Principal) -> None:
    with pytest.raises(ApproverNotEligibleError):
        check_eligible(_approval(), principal)
    assert not is_eligible(_approval(), principal)


def test_a_cross_department_approve_grant_covers_its_department() -> None:
    grant = frozenset({CrossDeptGrant(GrantKind.CROSS_DEPT_APPROVE, OPS)})
    assert is_eligible(_approval(), _user("u-xena", grants=grant))
    assert not is_eligible(_approval(dept_id=RISK), _user("u-xena", grants=grant))


def test_without_a_requester_any_eligible_approver_may_decide() -> None:
    assert is_eligible(_approval(requested_by=None), _user("u-alice", {OPS: APPROVER}))

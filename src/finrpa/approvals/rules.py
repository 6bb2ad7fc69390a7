"""Who must approve what, and by when (SPEC §C11, §C8).

* Required approvals: 2 distinct approvers for critical risk (dual control), 1 otherwise; timeouts 60 and
  30 minutes. All four numbers come from settings.
* Eligible approver: the permission chain allows APPROVE on the request's department and business line
  (approver role there, or a CROSS_DEPT_APPROVE grant, or an admin); never the requester; never the
  platform itself (a person must decide).
"""

from __future__ import annotations

from dataclasses import dataclass

from finrpa.approvals.errors import ApproverNotEligibleError, RequesterCannotApproveError
from finrpa.approvals.schemas import Approval
from finrpa.config import Settings
from finrpa.identity.permissions import Action, Principal, Resource, decide_permission
from finrpa.risk.levels import RiskLevel

PLATFORM_USER_ID = "system"  # Principal.platform(...) acts as this user id


@dataclass(frozen=True, slots=True)
class ApprovalTerms:
    required_approvals: int
    timeout_s: int


def terms_for(level: RiskLevel, settings: Settings) -> ApprovalTerms:
    """How many distinct approvals a request of this risk level needs, and how long it may wait."""
    if level is RiskLevel.CRITICAL:
        return ApprovalTerms(settings.approval_required_critical, settings.approval_timeout_critical_s)
    return ApprovalTerms(settings.approval_required_high, settings.approval_timeout_high_s)


def approval_resource(approval: Approval) -> Resource:
    return Resource(approval.org_id, dept_id=approval.dept_id, bl_id=approval.bl_id, kind="approval", id=approval.id)


def check_eligible(approval: Approval, approver: Principal) -> None:
    """Raise unless ``approver`` may decide ``approval``; the error says why and what to do."""
    if approver.user_id == PLATFORM_USER_ID:
        raise ApproverNotEligibleError(
            "The platform cannot decide an approval; a person with the approver role must (use --user)."
        )
    if approval.requested_by is not None and approver.user_id == approval.requested_by:
        raise RequesterCannotApproveError(
            f"User {approver.username or approver.user_id} requested approval {approval.id} and so may not "
            "decide it (maker-checker). Ask another approver of the department."
        )
    decision = decide_permission(approver, Action.APPROVE, approval_resource(approval))
    if not decision.allowed:
        raise ApproverNotEligibleError(decision.reason, code=f"approval.not_eligible.{decision.rule.value}")


def is_eligible(approval: Approval, approver: Principal) -> bool:
    try:
        check_eligible(approval, approver)
    except (ApproverNotEligibleError, RequesterCannotApproveError):
        return False
    return True

"""Why an approval request or decision is refused.

Tree (all derive from :mod:`finrpa.exceptions`)::

    PermissionDeniedError (403)
    ├── RequesterCannotApproveError   the requester tried to decide their own request (maker-checker)
    └── ApproverNotEligibleError      no approver role in the department and no CROSS_DEPT_APPROVE grant
    ConflictError (409)
    ├── ApprovalAlreadyDecidedError   the request is no longer PENDING (decided, timed out or cancelled)
    ├── ApprovalExpiredError          the request's deadline passed before the decision
    ├── ApprovalActionChangedError    the decision named another payload hash than the request's
    └── DecisionAlreadyRecordedError  this approver already decided otherwise; a decision is not changed
    ValidationFailedError (422)
    └── InvalidApprovalRequestError   the proposed action or risk cannot be put before approvers
"""

from __future__ import annotations

from finrpa.exceptions import ConflictError, PermissionDeniedError, ValidationFailedError


class RequesterCannotApproveError(PermissionDeniedError):
    code = "approval.maker_checker"


class ApproverNotEligibleError(PermissionDeniedError):
    code = "approval.not_eligible"


class ApprovalAlreadyDecidedError(ConflictError):
    code = "approval.already_decided"


class ApprovalExpiredError(ConflictError):
    code = "approval.expired"


class ApprovalActionChangedError(ConflictError):
    code = "approval.action_changed"


class DecisionAlreadyRecordedError(ConflictError):
    code = "approval.decision_recorded"


class InvalidApprovalRequestError(ValidationFailedError):
    code = "approval.invalid_request"

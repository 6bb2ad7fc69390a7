"""Approval tables: one request per risky action, and one decision row per (request, approver).

Maker-checker lives in the database too: a decision row carries the request's ``requested_by`` (a
composite foreign key makes sure it is the request's own value) and a CHECK refuses a row whose approver is
the requester. ``requested_by`` is ``''`` when the run has no owning user (a schedule, the platform), so
the foreign key always applies. Each approver counts once: (approval_id, approver_user_id) is unique.

A request is unique per (run, subtask, payload hash, attempt). ``attempt`` is 0 for the first request of a
step and grows by one each time a person answers the step's NEEDS_HUMAN with "retry", so a retried step asks
afresh instead of finding the earlier REJECTED or TIMEOUT request (while a resumed worker still finds the
request of the attempt it was waiting on).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, TimestampMixin, new_id, utcnow
from finrpa.tenancy.scoping import DepartmentScoped

NO_REQUESTER = ""


class ApprovalStatus(StrEnum):
    PENDING = "PENDING"
    APPROVED = "APPROVED"
    REJECTED = "REJECTED"
    TIMEOUT = "TIMEOUT"  # nobody decided in time: counts as rejected
    CANCELLED = "CANCELLED"  # the run moved on (aborted, or the proposed action changed)

    @property
    def is_final(self) -> bool:
        return self is not ApprovalStatus.PENDING


class Verdict(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


class ApprovalRequest(DepartmentScoped, TimestampMixin, Base):
    """A proposed action waiting for (or decided by) approvers; ``action`` is stored sanitized."""

    __tablename__ = "approval_requests"
    __table_args__ = (
        UniqueConstraint(
            "org_id", "run_id", "subtask_id", "payload_hash", "attempt", name="uq_approval_requests_action_attempt"
        ),
        UniqueConstraint("org_id", "id"),
        UniqueConstraint("id", "requested_by"),
        CheckConstraint("status IN ('PENDING', 'APPROVED', 'REJECTED', 'TIMEOUT', 'CANCELLED')", name="status"),
        CheckConstraint("risk_level IN ('low', 'medium', 'high', 'critical')", name="risk_level"),
        CheckConstraint("required_approvals >= 1", name="required_approvals"),
        CheckConstraint("approvals >= 0 AND approvals <= required_approvals", name="approvals"),
        CheckConstraint("(status = 'PENDING') = (decided_at IS NULL)", name="decided_at"),
        CheckConstraint("attempt >= 0", name="attempt"),
        Index("ix_approval_requests_status_expires_at", "status", "expires_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    run_id: Mapped[str] = mapped_column(String(32), nullable=False, index=True)
    subtask_id: Mapped[str] = mapped_column(String(64), nullable=False)
    action: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    action_summary: Mapped[str] = mapped_column(String(300), nullable=False)
    payload_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    attempt: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    risk_level: Mapped[str] = mapped_column(String(10), nullable=False)
    risk_reasons: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    evidence_bucket: Mapped[str | None] = mapped_column(String(63))
    evidence_key: Mapped[str | None] = mapped_column(String(1024))
    evidence_sha256: Mapped[str | None] = mapped_column(String(64))
    evidence_size: Mapped[int | None] = mapped_column(Integer)
    requested_by: Mapped[str] = mapped_column(String(64), nullable=False, default=NO_REQUESTER)
    required_approvals: Mapped[int] = mapped_column(Integer, nullable=False)
    approvals: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    status: Mapped[str] = mapped_column(String(12), nullable=False)
    timeout_s: Mapped[int] = mapped_column(Integer, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    resolution: Mapped[str | None] = mapped_column(Text)


class ApprovalDecision(TenantScoped, Base):
    """One approver's verdict on one request, bound to the payload hash the approver saw."""

    __tablename__ = "approval_decisions"
    __table_args__ = (
        UniqueConstraint("approval_id", "approver_user_id"),
        ForeignKeyConstraint(
            ["org_id", "approval_id"],
            ["approval_requests.org_id", "approval_requests.id"],
            ondelete="CASCADE",
        ),
        ForeignKeyConstraint(
            ["approval_id", "requested_by"],
            ["approval_requests.id", "approval_requests.requested_by"],
            ondelete="CASCADE",
        ),
        ForeignKeyConstraint(["org_id", "approver_user_id"], ["users.org_id", "users.id"]),
        CheckConstraint("approver_user_id <> requested_by", name="not_requester"),
        CheckConstraint("verdict IN ('approve', 'reject')", name="verdict"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    approval_id: Mapped[str] = mapped_column(String(32), nullable=False, index=True)
    approver_user_id: Mapped[str] = mapped_column(String(32), nullable=False)
    requested_by: Mapped[str] = mapped_column(String(64), nullable=False)
    verdict: Mapped[str] = mapped_column(String(8), nullable=False)
    comment: Mapped[str] = mapped_column(Text, nullable=False, default="")
    payload_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    decided_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)

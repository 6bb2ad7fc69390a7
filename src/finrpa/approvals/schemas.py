"""What the approvals service returns and accepts: Pydantic views, never ORM rows."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from finrpa.approvals.models import NO_REQUESTER, ApprovalDecision, ApprovalRequest, ApprovalStatus, Verdict
from finrpa.approvals.payload import payload_hash
from finrpa.objectstore.port import StoredObject
from finrpa.risk.levels import RiskLevel
from finrpa.risk.schemas import RiskDecision


class RiskSummary(BaseModel):
    """The part of a risk decision approvers see: the final level and the reasons."""

    model_config = ConfigDict(frozen=True)

    level: RiskLevel
    reasons: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, risk: RiskSummary | RiskDecision | Mapping[str, object]) -> RiskSummary:
        if isinstance(risk, RiskSummary):
            return risk
        if isinstance(risk, RiskDecision):
            return cls(level=risk.final_level, reasons=list(risk.reasons))
        return cls.model_validate(dict(risk))


class Evidence(BaseModel):
    """The screenshot shown with the request: where it is and its SHA-256."""

    model_config = ConfigDict(frozen=True)

    bucket: str
    key: str
    sha256: str
    size: int

    def stored(self) -> StoredObject:
        return StoredObject(bucket=self.bucket, key=self.key, sha256=self.sha256, size=self.size)


class DecisionView(BaseModel):
    model_config = ConfigDict(frozen=True)

    approver_user_id: str
    verdict: Verdict
    comment: str
    payload_hash: str
    decided_at: datetime

    @classmethod
    def of(cls, row: ApprovalDecision) -> DecisionView:
        return cls(
            approver_user_id=row.approver_user_id,
            verdict=Verdict(row.verdict),
            comment=row.comment,
            payload_hash=row.payload_hash,
            decided_at=as_utc(row.decided_at),
        )


class Approval(BaseModel):
    """An approval request with its decisions so far."""

    model_config = ConfigDict(frozen=True)

    id: str
    org_id: str
    run_id: str
    subtask_id: str
    action: dict[str, object] = Field(description="The proposed action, sanitized.")
    action_summary: str
    payload_hash: str
    attempt: int = Field(0, description="0 for a step's first request; one more each time a person retried it.")
    risk: RiskSummary
    evidence: Evidence | None
    requested_by: str | None
    dept_id: str | None
    bl_id: str | None
    required_approvals: int
    approvals: int
    status: ApprovalStatus
    timeout_s: int
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None
    resolution: str | None
    decisions: tuple[DecisionView, ...] = ()

    @classmethod
    def of(cls, row: ApprovalRequest, decisions: tuple[DecisionView, ...] = ()) -> Approval:
        evidence = None
        if row.evidence_bucket and row.evidence_key and row.evidence_sha256:
            size = row.evidence_size or 0
            evidence = Evidence(bucket=row.evidence_bucket, key=row.evidence_key, sha256=row.evidence_sha256, size=size)
        return cls(
            id=row.id,
            org_id=row.org_id,
            run_id=row.run_id,
            subtask_id=row.subtask_id,
            action=dict(row.action),
            action_summary=row.action_summary,
            payload_hash=row.payload_hash,
            attempt=row.attempt,
            risk=RiskSummary(level=RiskLevel(row.risk_level), reasons=list(row.risk_reasons)),
            evidence=evidence,
            requested_by=None if row.requested_by == NO_REQUESTER else row.requested_by,
            dept_id=row.dept_id,
            bl_id=row.bl_id,
            required_approvals=row.required_approvals,
            approvals=row.approvals,
            status=ApprovalStatus(row.status),
            timeout_s=row.timeout_s,
            created_at=as_utc(row.created_at),
            expires_at=as_utc(row.expires_at),
            decided_at=as_utc(row.decided_at) if row.decided_at else None,
            resolution=row.resolution,
            decisions=decisions,
        )

    def covers(self, action: Mapping[str, object]) -> bool:
        """True only when this approval is APPROVED and was given for exactly ``action``."""
        return self.status is ApprovalStatus.APPROVED and payload_hash(action) == self.payload_hash


def as_utc(moment: datetime) -> datetime:
    """Timestamps come back naive from SQLite; they were written in UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)

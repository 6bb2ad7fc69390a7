"""Audit tables: the append-only audit log and the per-organisation chain head.

``audit_records`` is append-only (database triggers reject UPDATE, DELETE and TRUNCATE; on PostgreSQL the
application role also lacks those privileges). ``audit_chain_heads`` holds, per organisation, the seq and
row_hash of the last row; appends lock it so that seq stays contiguous and the chain never forks. Nothing
trusts the head for verification: checkpoints outside the database are the anchor.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, DateTime, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, new_id, utcnow
from finrpa.tenancy.scoping import DepartmentScoped


class AuditRecord(DepartmentScoped, Base):
    """One browser action or key event. Columns match :data:`finrpa.audit.canonical.CHAINED_FIELDS`."""

    __tablename__ = "audit_records"
    __table_args__ = (
        UniqueConstraint("org_id", "seq"),
        Index("ix_audit_records_org_task", "org_id", "task_id", "seq"),
        Index("ix_audit_records_org_created", "org_id", "created_at"),
        Index("ix_audit_records_org_type", "org_id", "action_type", "seq"),
        Index("ix_audit_records_org_user", "org_id", "user_id", "seq"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    seq: Mapped[int] = mapped_column(BigInteger, nullable=False)
    task_id: Mapped[str | None] = mapped_column(String(64))
    user_id: Mapped[str | None] = mapped_column(String(64))
    action_index: Mapped[int | None] = mapped_column(Integer)
    action_type: Mapped[str] = mapped_column(String(48), nullable=False)
    target_element: Mapped[str | None] = mapped_column(Text)
    input_value: Mapped[str | None] = mapped_column(Text)
    input_value_raw_hash: Mapped[str | None] = mapped_column(String(64))
    screenshot_bucket: Mapped[str | None] = mapped_column(String(63))
    screenshot_before_key: Mapped[str | None] = mapped_column(String(1024))
    screenshot_before_sha256: Mapped[str | None] = mapped_column(String(64))
    screenshot_after_key: Mapped[str | None] = mapped_column(String(1024))
    screenshot_after_sha256: Mapped[str | None] = mapped_column(String(64))
    has_approval: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    approval_id: Mapped[str | None] = mapped_column(String(64))
    approver_user_id: Mapped[str | None] = mapped_column(String(64))
    executor: Mapped[str] = mapped_column(String(80), nullable=False)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    execution_result: Mapped[str] = mapped_column(String(64), nullable=False)
    details: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)
    prev_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    row_hash: Mapped[str] = mapped_column(String(64), nullable=False)


class AuditChainHead(TenantScoped, Base):
    """The last (seq, row_hash) of one organisation's chain; locked by every append."""

    __tablename__ = "audit_chain_heads"

    org_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, nullable=False)
    row_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)

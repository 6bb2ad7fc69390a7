"""Run tables: the run row, its append-only event log, its latest checkpoint, and the effect ledger."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, TimestampMixin, new_id, utcnow
from finrpa.tenancy.scoping import DepartmentScoped


class Run(DepartmentScoped, TimestampMixin, Base):
    """One execution of a template or goal. ``status`` is a TaskStatus value."""

    __tablename__ = "runs"
    __table_args__ = (UniqueConstraint("org_id", "idempotency_key"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    created_by: Mapped[str | None] = mapped_column(String(64))
    template_id: Mapped[str | None] = mapped_column(String(100), index=True)
    template_version: Mapped[int | None] = mapped_column(Integer)
    goal: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(20), index=True)
    # Workflow arguments; sensitive ones are only ever secret:// references.
    arguments: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    versions: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    error_message: Mapped[str | None] = mapped_column(Text)
    result: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    worker_id: Mapped[str | None] = mapped_column(String(100), index=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    fencing_token: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class RunEvent(TenantScoped, Base):
    """Append-only: the canonical record of a run. ``seq`` is contiguous per run from 1."""

    __tablename__ = "run_events"

    run_id: Mapped[str] = mapped_column(String(32), ForeignKey("runs.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    type: Mapped[str] = mapped_column(String(50), index=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RunCheckpoint(TenantScoped, Base):
    """The latest CoordinationState of a run, with its browser session (encrypted) and URL."""

    __tablename__ = "run_checkpoints"

    run_id: Mapped[str] = mapped_column(String(32), ForeignKey("runs.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    storage_state: Mapped[str | None] = mapped_column(Text)  # AES-GCM token, never plaintext cookies
    url: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class Effect(TenantScoped, TimestampMixin, Base):
    """The effect ledger: one row per portal-changing operation, keyed for idempotency."""

    __tablename__ = "effects"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    idempotency_key: Mapped[str] = mapped_column(String(300), unique=True)
    run_id: Mapped[str] = mapped_column(String(32), ForeignKey("runs.id"), index=True)
    subtask_id: Mapped[str] = mapped_column(String(32))
    operation: Mapped[str] = mapped_column(String(100))
    business_id: Mapped[str] = mapped_column(String(200))
    args_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(20), index=True)
    external_ref: Mapped[str | None] = mapped_column(String(200))
    fencing_token: Mapped[int] = mapped_column(Integer)
    detail: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


from finrpa.runs.workers import Worker  # noqa: E402  (registered with the metadata beside the run tables)

__all__ = ["Effect", "Run", "RunCheckpoint", "RunEvent", "Worker"]

"""The Idempotency-Key table: one stored response per (organisation, caller, route, key)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, TimestampMixin, new_id


class IdempotencyRecord(TenantScoped, TimestampMixin, Base):
    """The response a POST with an ``Idempotency-Key`` produced, kept so a retry gets the same answer."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("org_id", "caller", "route", "key"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    caller: Mapped[str] = mapped_column(String(64), nullable=False)
    route: Mapped[str] = mapped_column(String(200), nullable=False)
    key: Mapped[str] = mapped_column(String(200), nullable=False)
    request_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    status_code: Mapped[int] = mapped_column(Integer, nullable=False)
    response_body: Mapped[Any] = mapped_column(JSON, nullable=False)
    location: Mapped[str | None] = mapped_column(String(500), nullable=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, index=True)

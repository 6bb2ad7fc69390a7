"""Tables of the notification domain: an organisation's channels, and the outbox of deliveries.

One delivery row per (event, channel), keyed by ``idempotency_key`` = ``<event id>:<channel id>`` (unique).
Life of a delivery::

    pending ──claim──▶ sending ──ok──▶ sent
       ▲                  │ ├─ retryable failure, attempts left ─▶ pending (next_attempt_at = now + backoff)
       │                  │ └─ permanent failure or no attempts left ─▶ dead
       └── lease expired ─┘   (the dispatcher died between claiming and recording: claimed again)
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, CheckConstraint, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, TimestampMixin, new_id, utcnow

CHANNEL_KINDS = ("wecom", "dingtalk", "webhook", "email")
DELIVERY_STATUSES = ("pending", "sending", "sent", "dead")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


class NotifyChannel(TenantScoped, TimestampMixin, Base):
    __tablename__ = "notify_channels"
    __table_args__ = (CheckConstraint(_in("kind", CHANNEL_KINDS), name="kind"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(100), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    # Event kinds this channel receives (a JSON list of strings).
    events: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    # The kind's settings (schemas.ChannelConfig); secrets appear only as secret:// references.
    config: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, default=utcnow, onupdate=utcnow
    )


# One name per organisation (an index rather than a constraint so SQLite batch migrations stay simple).
Index("uq_notify_channels_org_id_name", NotifyChannel.org_id, NotifyChannel.name, unique=True)


class NotifyDelivery(TenantScoped, TimestampMixin, Base):
    __tablename__ = "notify_deliveries"
    __table_args__ = (
        CheckConstraint(_in("status", DELIVERY_STATUSES), name="status"),
        CheckConstraint("attempts >= 0", name="attempts_not_negative"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    channel_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("notify_channels.id", ondelete="CASCADE"), nullable=False, index=True
    )
    event_id: Mapped[str] = mapped_column(String(64), nullable=False)
    event_kind: Mapped[str] = mapped_column(String(40), nullable=False)
    idempotency_key: Mapped[str] = mapped_column(String(100), nullable=False, unique=True)
    # The event as JSON (events.NotificationEvent); rendered at send time.
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    status: Mapped[str] = mapped_column(String(12), nullable=False, default="pending")
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    claim_token: Mapped[str | None] = mapped_column(String(32), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(500), nullable=True)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


# The dispatcher's scan: due pending rows and expired claims, oldest first.
Index("ix_notify_deliveries_due", NotifyDelivery.status, NotifyDelivery.next_attempt_at)

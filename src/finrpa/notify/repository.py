"""Queries on channels and the delivery outbox. Nothing here commits: the caller's unit of work does.

Claiming due deliveries is one UPDATE … RETURNING that moves rows to ``sending`` with a fresh claim token
and a lease. On PostgreSQL the candidate rows are selected ``FOR UPDATE SKIP LOCKED`` so concurrent
dispatchers split the work without waiting; on SQLite the single writer makes the same UPDATE atomic (a
claim by update). Every later write names the claim token, so a dispatcher whose lease expired cannot
overwrite the outcome recorded by the one that took over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import new_id
from finrpa.notify.models import NotifyChannel, NotifyDelivery
from finrpa.notify.schemas import DeliveryStatus

ABANDONED_ERROR = "The last attempt was interrupted (the dispatcher stopped); its outcome is unknown."


@dataclass(frozen=True)
class NewDelivery:
    org_id: str
    channel_id: str
    event_id: str
    event_kind: str
    payload: dict[str, Any]

    @property
    def idempotency_key(self) -> str:
        return f"{self.event_id}:{self.channel_id}"


@dataclass(frozen=True)
class ClaimedDelivery:
    """A delivery this dispatcher holds until ``claimed_until``; ``attempts`` includes this attempt."""

    id: str
    org_id: str
    channel_id: str
    idempotency_key: str
    payload: dict[str, Any]
    attempts: int
    claim_token: str


@dataclass(frozen=True)
class Outcome:
    """What to record after an attempt."""

    status: DeliveryStatus
    error: str | None = None
    next_attempt_at: datetime | None = None


def as_utc(moment: datetime) -> datetime:
    """SQLite returns naive datetimes (stored as UTC); PostgreSQL returns aware ones."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


# Channels ---------------------------------------------------------------------------------------------


async def list_channels(session: AsyncSession, org_id: str | None = None) -> Sequence[NotifyChannel]:
    query = select(NotifyChannel).order_by(NotifyChannel.org_id, NotifyChannel.name)
    if org_id is not None:
        query = query.where(NotifyChannel.org_id == org_id)
    return (await session.scalars(query)).all()


async def find_channel(session: AsyncSession, org_id: str, name_or_id: str) -> NotifyChannel | None:
    query = select(NotifyChannel).where(
        NotifyChannel.org_id == org_id, or_(NotifyChannel.name == name_or_id, NotifyChannel.id == name_or_id)
    )
    return (await session.scalars(query)).first()


async def channels_for_event(session: AsyncSession, org_id: str, event_kind: str) -> list[NotifyChannel]:
    """Enabled channels of the organisation subscribed to ``event_kind`` (few per org: filtered here)."""
    query = select(NotifyChannel).where(NotifyChannel.org_id == org_id, NotifyChannel.enabled.is_(True))
    return [channel for channel in (await session.scalars(query)).all() if event_kind in channel.events]


async def channels_by_id(session: AsyncSession, ids: set[str]) -> dict[str, NotifyChannel]:
    if not ids:
        return {}
    rows = await session.scalars(select(NotifyChannel).where(NotifyChannel.id.in_(ids)))
    return {channel.id: channel for channel in rows}


async def delete_channel(session: AsyncSession, channel: NotifyChannel) -> None:
    await session.execute(delete(NotifyChannel).where(NotifyChannel.id == channel.id))


# Outbox ------------------------------------------------------------------------------------------------


async def insert_deliveries(session: AsyncSession, rows: Sequence[NewDelivery], now: datetime) -> list[str]:
    """Insert pending deliveries; a row whose idempotency key exists already is skipped, not an error."""
    if not rows:
        return []
    values = [
        {
            "id": new_id(),
            "org_id": row.org_id,
            "channel_id": row.channel_id,
            "event_id": row.event_id,
            "event_kind": row.event_kind,
            "idempotency_key": row.idempotency_key,
            "payload": row.payload,
            "status": DeliveryStatus.PENDING.value,
            "attempts": 0,
            "next_attempt_at": now,
            "created_at": now,
        }
        for row in rows
    ]
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = (
        dialect.insert(NotifyDelivery)
        .values(values)
        .on_conflict_do_nothing(index_elements=["idempotency_key"])
        .returning(NotifyDelivery.id)
    )
    return list((await session.scalars(statement)).all())


async def claim_due(
    session: AsyncSession, *, now: datetime, lease_until: datetime, limit: int, max_attempts: int
) -> list[ClaimedDelivery]:
    """Claim up to ``limit`` due deliveries (pending and due, or claimed with an expired lease)."""
    token = new_id()
    due = or_(
        and_(NotifyDelivery.status == DeliveryStatus.PENDING.value, NotifyDelivery.next_attempt_at <= now),
        and_(NotifyDelivery.status == DeliveryStatus.SENDING.value, NotifyDelivery.claimed_until < now),
    )
    candidates = (
        select(NotifyDelivery.id)
        .where(due, NotifyDelivery.attempts < max_attempts)
        .order_by(NotifyDelivery.next_attempt_at)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        candidates = candidates.with_for_update(skip_locked=True)
    statement = (
        update(NotifyDelivery)
        .where(NotifyDelivery.id.in_(candidates.scalar_subquery()))
        .values(
            status=DeliveryStatus.SENDING.value,
            claim_token=token,
            claimed_until=lease_until,
            attempts=NotifyDelivery.attempts + 1,
        )
        .returning(
            NotifyDelivery.id,
            NotifyDelivery.org_id,
            NotifyDelivery.channel_id,
            NotifyDelivery.idempotency_key,
            NotifyDelivery.payload,
            NotifyDelivery.attempts,
        )
        .execution_options(synchronize_session=False)
    )
    result = await session.execute(statement)
    return [
        ClaimedDelivery(
            row.id, row.org_id, row.channel_id, row.idempotency_key, row.payload, row.attempts, token
        )
        for row in result
    ]


async def bury_abandoned(session: AsyncSession, *, now: datetime, max_attempts: int) -> int:
    """Mark dead the deliveries whose last allowed attempt was claimed and never recorded."""
    statement = (
        update(NotifyDelivery)
        .where(
            NotifyDelivery.status == DeliveryStatus.SENDING.value,
            NotifyDelivery.claimed_until < now,
            NotifyDelivery.attempts >= max_attempts,
        )
        .values(
            status=DeliveryStatus.DEAD.value,
            claim_token=None,
            claimed_until=None,
            last_error=ABANDONED_ERROR,
        )
        .execution_options(synchronize_session=False)
    )
    result = await session.execute(statement)
    return int(getattr(result, "rowcount", 0) or 0)


async def record_outcome(
    session: AsyncSession, claimed: ClaimedDelivery, outcome: Outcome, now: datetime
) -> bool:
    """Record an attempt's outcome; False when the claim was lost (lease expired, taken over)."""
    values: dict[str, Any] = {
        "status": outcome.status.value,
        "claim_token": None,
        "claimed_until": None,
        "last_error": outcome.error,
    }
    if outcome.status is DeliveryStatus.SENT:
        values["sent_at"] = now
    if outcome.next_attempt_at is not None:
        values["next_attempt_at"] = outcome.next_attempt_at
    statement = (
        update(NotifyDelivery)
        .where(NotifyDelivery.id == claimed.id, NotifyDelivery.claim_token == claimed.claim_token)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    result = await session.execute(statement)
    return bool(getattr(result, "rowcount", 0))


async def list_deliveries(
    session: AsyncSession, org_id: str | None, status: DeliveryStatus | None = None, limit: int = 50
) -> Sequence[NotifyDelivery]:
    query = select(NotifyDelivery).order_by(NotifyDelivery.created_at.desc()).limit(limit)
    if org_id is not None:
        query = query.where(NotifyDelivery.org_id == org_id)
    if status is not None:
        query = query.where(NotifyDelivery.status == status.value)
    return (await session.scalars(query)).all()


async def requeue_dead(session: AsyncSession, org_id: str, delivery_id: str, now: datetime) -> bool:
    """Give a dead delivery a fresh set of attempts (after its channel was fixed)."""
    statement = (
        update(NotifyDelivery)
        .where(
            NotifyDelivery.org_id == org_id,
            NotifyDelivery.id == delivery_id,
            NotifyDelivery.status == DeliveryStatus.DEAD.value,
        )
        .values(status=DeliveryStatus.PENDING.value, attempts=0, next_attempt_at=now, last_error=None)
        .execution_options(synchronize_session=False)
    )
    result = await session.execute(statement)
    return bool(getattr(result, "rowcount", 0))

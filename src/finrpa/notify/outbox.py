"""The transactional outbox: events go in with the caller's own transaction, one row per channel.

``enqueue`` runs a SELECT of the organisation's subscribed channels and one
``INSERT … ON CONFLICT (idempotency_key) DO NOTHING``. It never commits, never talks to the network and
never renders anything, so a notification cannot fail or slow the run that raised it; if the caller's
transaction rolls back, the notification disappears with it. The only error that can come out is the
database's own, in which case the caller's transaction is failing anyway.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import utcnow
from finrpa.notify import repository
from finrpa.notify.events import NotificationEvent
from finrpa.notify.repository import NewDelivery


async def enqueue(
    session: AsyncSession, event: NotificationEvent, *, now: datetime | None = None
) -> list[str]:
    """Queue ``event`` for every enabled channel of ``event.org_id`` subscribed to its kind.

    Returns the ids of the deliveries created; empty when no channel is subscribed or when this event
    (same ``event_id``) was queued before.
    """
    channels = await repository.channels_for_event(session, event.org_id, str(event.kind))
    payload = event.model_dump(mode="json")
    rows = [
        NewDelivery(
            org_id=event.org_id,
            channel_id=channel.id,
            event_id=event.event_id,
            event_kind=str(event.kind),
            payload=payload,
        )
        for channel in channels
    ]
    return await repository.insert_deliveries(session, rows, now or utcnow())

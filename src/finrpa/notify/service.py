"""Managing an organisation's channels and inspecting its outbox. Services never commit."""

from __future__ import annotations

from datetime import datetime

from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.config import Settings
from finrpa.db.base import new_id, utcnow
from finrpa.exceptions import ConflictError
from finrpa.notify import repository
from finrpa.notify.errors import ChannelConfigError, ChannelNotFoundError
from finrpa.notify.events import EventKind
from finrpa.notify.masking import mask_endpoint
from finrpa.notify.models import NotifyChannel, NotifyDelivery
from finrpa.notify.schemas import (
    ChannelConfig,
    ChannelCreate,
    ChannelKind,
    ChannelView,
    DeliveryStatus,
    DeliveryView,
    parse_channel_config,
)

_KNOWN_EVENTS = frozenset(kind.value for kind in EventKind)


def http_allowed(settings: Settings) -> bool:
    """Plain-http endpoints are refused outside development unless explicitly allowed."""
    return settings.env == "development" or settings.notify_allow_http


async def add_channel(
    session: AsyncSession, org_id: str, create: ChannelCreate, settings: Settings
) -> ChannelView:
    """Add a channel to ``org_id``; the name must be new in that organisation."""
    _refuse_plain_http(create.config, settings)
    if await repository.find_channel(session, org_id, create.name) is not None:
        raise ConflictError(
            f"A notification channel named {create.name!r} exists already; choose another name or remove it."
        )
    now = utcnow()
    channel = NotifyChannel(
        id=new_id(),
        org_id=org_id,
        name=create.name,
        kind=create.config.kind.value,
        events=[str(kind) for kind in create.events],
        config=create.config.model_dump(mode="json"),
        enabled=create.enabled,
        created_at=now,
        updated_at=now,
    )
    session.add(channel)
    await session.flush()
    return channel_view(channel)


async def list_channels(session: AsyncSession, org_id: str | None = None) -> list[ChannelView]:
    """Channels of one organisation (or of all, for an operator), secrets and keys masked."""
    return [channel_view(channel) for channel in await repository.list_channels(session, org_id)]


async def get_channel(session: AsyncSession, org_id: str, name_or_id: str) -> NotifyChannel:
    channel = await repository.find_channel(session, org_id, name_or_id)
    if channel is None:
        raise ChannelNotFoundError(
            f"No notification channel {name_or_id!r} in organisation {org_id}. "
            "List them with: finrpa notify channels"
        )
    return channel


async def remove_channel(session: AsyncSession, org_id: str, name_or_id: str) -> None:
    """Remove a channel and its deliveries (sent history included)."""
    await repository.delete_channel(session, await get_channel(session, org_id, name_or_id))


async def set_channel_enabled(session: AsyncSession, org_id: str, name_or_id: str, enabled: bool) -> None:
    channel = await get_channel(session, org_id, name_or_id)
    channel.enabled = enabled
    channel.updated_at = utcnow()
    await session.flush()


async def list_deliveries(
    session: AsyncSession, org_id: str | None, status: DeliveryStatus | None = None, limit: int = 50
) -> list[DeliveryView]:
    rows = await repository.list_deliveries(session, org_id, status, limit)
    return [delivery_view(row) for row in rows]


async def redeliver(
    session: AsyncSession, org_id: str, delivery_id: str, now: datetime | None = None
) -> None:
    """Send a dead delivery again, with a fresh set of attempts (after its channel was fixed)."""
    if not await repository.requeue_dead(session, org_id, delivery_id, now or utcnow()):
        raise ChannelNotFoundError(
            f"No dead delivery {delivery_id!r} in organisation {org_id}. "
            "List them with: finrpa notify deliveries --status dead"
        )


def parse_stored_config(name: str, raw: object) -> ChannelConfig:
    """A channel's stored settings, typed; ChannelConfigError when they no longer validate."""
    try:
        return parse_channel_config(raw)
    except ValidationError as exc:
        raise ChannelConfigError(
            f"The settings of channel {name!r} are not valid any more ({exc.error_count()} problems); "
            "remove the channel and add it again."
        ) from exc


def channel_view(channel: NotifyChannel) -> ChannelView:
    try:
        endpoint = mask_endpoint(parse_channel_config(channel.config).endpoint())
    except ValidationError:
        endpoint = "<invalid settings>"
    return ChannelView(
        id=channel.id,
        org_id=channel.org_id,
        name=channel.name,
        kind=ChannelKind(channel.kind),
        events=tuple(EventKind(kind) for kind in channel.events if kind in _KNOWN_EVENTS),
        endpoint=endpoint,
        enabled=channel.enabled,
        created_at=repository.as_utc(channel.created_at),
    )


def delivery_view(row: NotifyDelivery) -> DeliveryView:
    return DeliveryView(
        id=row.id,
        org_id=row.org_id,
        channel_id=row.channel_id,
        event_kind=row.event_kind,
        idempotency_key=row.idempotency_key,
        status=DeliveryStatus(row.status),
        attempts=row.attempts,
        next_attempt_at=repository.as_utc(row.next_attempt_at),
        last_error=row.last_error,
        sent_at=repository.as_utc(row.sent_at) if row.sent_at else None,
        created_at=repository.as_utc(row.created_at),
    )


def _refuse_plain_http(config: ChannelConfig, settings: Settings) -> None:
    endpoint = config.endpoint()
    if endpoint.startswith("http://") and not http_allowed(settings):
        raise ChannelConfigError(
            f"{mask_endpoint(endpoint)} is plain http. Use https, or set FINRPA_NOTIFY_ALLOW_HTTP=true "
            "for an internal endpoint you trust."
        )

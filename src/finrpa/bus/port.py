"""The pub/sub port: ``subscribe(channel)`` as an async context manager, ``publish(channel, message)``.

Two adapters: :class:`~finrpa.bus.memory.InProcessBus` (embedded, one process, one event loop per
subscriber) and :class:`~finrpa.bus.redis_bus.RedisBus` (production, Redis 7 pub/sub). Delivery is
at-most-once and only to subscribers that were subscribed when the message was published; a subscription
is active on the server by the time ``subscribe`` yields it, which is what lets a listener subscribe first
and then read the state it waits on without missing a change.

Errors::

    BusUnavailableError (ExternalServiceError, 503, retryable)  the broker cannot be reached, or a
                                                              subscription's connection dropped
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from finrpa.exceptions import ExternalServiceError


class BusUnavailableError(ExternalServiceError):
    http_status = 503
    code = "bus_unavailable"


class Subscription(Protocol):
    """Messages of one channel, in publishing order, from the moment of subscribing."""

    channel: str

    async def get(self, timeout_s: float | None) -> str | None:
        """The next message, or None when ``timeout_s`` passed first (None: wait without limit).

        Raises BusUnavailableError once the subscription's connection is lost; messages published
        since then are gone, so the caller must re-read whatever it waits on.
        """
        ...

    def __aiter__(self) -> AsyncIterator[str]: ...


class Bus(Protocol):
    def subscribe(self, channel: str) -> AbstractAsyncContextManager[Subscription]:
        """Subscribe for the duration of the block; leaving it always unsubscribes and closes."""
        ...

    async def publish(self, channel: str, message: str) -> int:
        """Send ``message`` to the channel's current subscribers; the number that received it."""
        ...

    async def close(self) -> None: ...

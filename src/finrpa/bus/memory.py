"""The embedded bus: channels are sets of queues in this process (``finrpa demo`` / ``finrpa serve``)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

# A subscriber that does not read is only ever woken up; older wake-ups beyond this are dropped.
_QUEUE_LIMIT = 100


class _LocalSubscription:
    def __init__(self, channel: str) -> None:
        self.channel = channel
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[str] = asyncio.Queue(maxsize=_QUEUE_LIMIT)

    def deliver(self, message: str) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._put(message)
        else:  # published from another thread's loop: hand it over to the subscriber's loop
            self._loop.call_soon_threadsafe(self._put, message)

    def _put(self, message: str) -> None:
        if self._queue.full():
            self._queue.get_nowait()
        self._queue.put_nowait(message)

    async def get(self, timeout_s: float | None) -> str | None:
        try:
            async with asyncio.timeout(timeout_s):
                return await self._queue.get()
        except TimeoutError:
            return None

    async def __aiter__(self) -> AsyncIterator[str]:
        while True:
            message = await self.get(None)
            if message is not None:
                yield message


class InProcessBus:
    """Publish/subscribe inside one process; nothing to connect to, so it is never unavailable."""

    def __init__(self) -> None:
        self._subscribers: defaultdict[str, set[_LocalSubscription]] = defaultdict(set)

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[_LocalSubscription]:
        subscription = _LocalSubscription(channel)
        self._subscribers[channel].add(subscription)
        try:
            yield subscription
        finally:
            subscribers = self._subscribers.get(channel)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[channel]

    async def publish(self, channel: str, message: str) -> int:
        subscribers = list(self._subscribers.get(channel, ()))
        for subscription in subscribers:
            subscription.deliver(message)
        return len(subscribers)

    def subscriber_count(self, channel: str) -> int:
        return len(self._subscribers.get(channel, ()))

    async def close(self) -> None:
        """Nothing to release; open subscriptions end with their own blocks (the bus may be shared)."""

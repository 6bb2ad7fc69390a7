"""The production bus: Redis 7 pub/sub through ``redis.asyncio``, every channel under one namespace.

Each subscription holds its own connection and is confirmed by the server before ``subscribe`` yields.
Subscription connections never reconnect by themselves: redis-py would silently re-subscribe and hide the
gap in which messages were lost, so a dropped connection surfaces as BusUnavailableError and the caller
re-reads the state it waits on (and polls). Publishing retries once on a fresh connection, which covers a
pooled connection left stale by a Redis restart.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redis import exceptions as redis_errors
from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from finrpa.bus.port import BusUnavailableError
from finrpa.kit.urls import mask_url_password

logger = logging.getLogger(__name__)

_ERRORS = (redis_errors.RedisError, OSError)


class _RedisSubscription:
    def __init__(self, channel: str, pubsub: PubSub, url: str) -> None:
        self.channel = channel
        self._pubsub = pubsub
        self._url = url
        self.broken = False

    async def get(self, timeout_s: float | None) -> str | None:
        if self.broken:
            raise BusUnavailableError(f"The subscription to {self.channel} at {self._url} was lost.")
        try:
            message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=timeout_s)
        except _ERRORS as exc:
            self.broken = True
            raise BusUnavailableError(
                f"The subscription to {self.channel} at {self._url} was lost ({type(exc).__name__}); "
                "re-read the state you wait on."
            ) from exc
        if message is None or message.get("type") != "message":
            return None
        return str(message["data"])

    async def __aiter__(self) -> AsyncIterator[str]:
        while True:
            message = await self.get(None)
            if message is not None:
                yield message

    async def confirm(self, name: str, timeout_s: float) -> None:
        """SUBSCRIBE and wait for the server's confirmation: from then on no message can be missed."""
        try:
            async with asyncio.timeout(timeout_s):
                await self._pubsub.subscribe(name)
                while True:
                    message = await self._pubsub.get_message(timeout=timeout_s)
                    if message is not None and message.get("type") == "subscribe":
                        return
        except (*_ERRORS, TimeoutError) as exc:
            self.broken = True
            raise BusUnavailableError(
                f"Cannot subscribe to {self.channel} at {self._url} ({type(exc).__name__}). "
                "Check that Redis is running and FINRPA_REDIS_URL is right."
            ) from exc

    async def close(self) -> None:
        """Unsubscribe (when the connection still works) and give the connection back, closed."""
        try:
            if not self.broken:
                await self._pubsub.unsubscribe()
        except _ERRORS as exc:
            logger.info("bus.unsubscribe_failed", extra={"channel": self.channel, "error": type(exc).__name__})
        finally:
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated


class RedisBus:
    """Channels are ``<namespace><channel>``; ``namespace`` separates deployments sharing one Redis."""

    def __init__(
        self,
        url: str,
        *,
        namespace: str = "finrpa:",
        timeout_s: float = 2.0,
        client_name: str | None = None,
    ) -> None:
        self._url = mask_url_password(url)
        self._ns = namespace
        self._timeout_s = timeout_s
        common = {
            "decode_responses": True,
            "socket_timeout": timeout_s,
            "socket_connect_timeout": timeout_s,
            "client_name": client_name,
        }
        self._publisher = Redis.from_pool(ConnectionPool.from_url(url, retry=Retry(NoBackoff(), 1), **common))
        self._listener = Redis.from_pool(ConnectionPool.from_url(url, retry=Retry(NoBackoff(), 0), **common))

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[_RedisSubscription]:
        subscription = _RedisSubscription(channel, self._listener.pubsub(), self._url)
        try:
            await subscription.confirm(self._ns + channel, self._timeout_s)
            yield subscription
        finally:
            await subscription.close()

    async def publish(self, channel: str, message: str) -> int:
        try:
            return int(await self._publisher.publish(self._ns + channel, message))
        except _ERRORS as exc:
            raise BusUnavailableError(
                f"Cannot publish to {channel} at {self._url} ({type(exc).__name__}). "
                "Check that Redis is running and FINRPA_REDIS_URL is right."
            ) from exc

    async def close(self) -> None:
        await self._publisher.aclose(close_connection_pool=True)
        await self._listener.aclose(close_connection_pool=True)

"""The Bus contract, on the in-process adapter and on real Redis alike, and how each fails."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from finrpa.bus import Bus, BusUnavailableError, InProcessBus, RedisBus, build_bus, process_bus
from finrpa.config import Settings

REDIS_ENV = "FINRPA_TEST_REDIS_URL"
needs_redis = pytest.mark.skipif(not os.environ.get(REDIS_ENV), reason="needs FINRPA_TEST_REDIS_URL (a real Redis)")


def _kinds() -> list[str]:
    return ["memory", "redis"] if os.environ.get(REDIS_ENV) else ["memory"]


@pytest_asyncio.fixture(params=_kinds())
async def bus(request: pytest.FixtureRequest) -> AsyncIterator[Bus]:
    adapter: Bus = InProcessBus()
    if request.param == "redis":
        adapter = RedisBus(os.environ[REDIS_ENV], namespace=f"finrpa-test-{uuid.uuid4().hex[:10]}:")
    try:
        yield adapter
    finally:
        await adapter.close()


def _closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"redis://127.0.0.1:{probe.getsockname()[1]}/0"


async def test_subscribers_get_what_is_published_after_they_subscribed(bus: Bus) -> None:
    await bus.publish("approval:1", "too early")
    async with bus.subscribe("approval:1") as first, bus.subscribe("approval:1") as second:
        assert await bus.publish("approval:1", "decided") == 2
        await bus.publish("approval:2", "another channel")
        assert await first.get(2.0) == "decided"
        assert await second.get(2.0) == "decided"
        assert await first.get(0.05) is None
    assert await bus.publish("approval:1", "nobody listens") == 0


async def test_a_subscription_is_an_async_iterator(bus: Bus) -> None:
    async with bus.subscribe("ch") as subscription:
        for word in ("a", "b", "c"):
            await bus.publish("ch", word)
        received: list[str] = []
        async for message in subscription:
            received.append(message)
            if len(received) == 3:
                break
    assert received == ["a", "b", "c"]


async def test_in_process_messages_cross_threads_into_the_subscribers_loop() -> None:
    bus = InProcessBus()
    async with bus.subscribe("ch") as subscription:
        thread = threading.Thread(target=lambda: asyncio.run(bus.publish("ch", "from a worker thread")))
        thread.start()
        thread.join()
        assert await subscription.get(2.0) == "from a worker thread"
    assert bus.subscriber_count("ch") == 0


async def test_an_unreachable_redis_is_a_clear_error_for_subscribers_and_publishers() -> None:
    bus = RedisBus(_closed_port(), timeout_s=0.5)
    try:
        with pytest.raises(BusUnavailableError, match="Check that Redis is running"):
            async with bus.subscribe("ch"):
                pass
        with pytest.raises(BusUnavailableError, match="Cannot publish"):
            await bus.publish("ch", "x")
    finally:
        await bus.close()


@needs_redis
async def test_a_dropped_subscription_stays_failed_instead_of_silently_reconnecting() -> None:
    url = os.environ[REDIS_ENV]
    name = f"finrpa-test-{uuid.uuid4().hex[:10]}"
    bus = RedisBus(url, namespace=f"{name}:", client_name=name)
    admin = Redis.from_url(url, decode_responses=True)
    try:
        async with bus.subscribe("ch") as subscription:
            for client in await admin.client_list():
                if client.get("name") == name:
                    await admin.client_kill_filter(_id=client["id"])
            with pytest.raises(BusUnavailableError, match="was lost"):
                await subscription.get(2.0)
            await bus.publish("ch", "sent after the drop")  # the publisher reconnects by itself
            with pytest.raises(BusUnavailableError):
                await subscription.get(0.2)  # no silent re-subscribe that would hide the gap
        channels = await admin.pubsub_channels(f"{name}:*")
    finally:
        await bus.close()
        await admin.aclose()
    assert channels == []


@needs_redis
async def test_leaving_the_block_unsubscribes_on_the_server() -> None:
    url = os.environ[REDIS_ENV]
    namespace = f"finrpa-test-{uuid.uuid4().hex[:10]}:"
    bus = RedisBus(url, namespace=namespace)
    admin = Redis.from_url(url, decode_responses=True)
    try:
        async with bus.subscribe("approval:9"):
            assert await admin.pubsub_numsub(f"{namespace}approval:9") == [(f"{namespace}approval:9", 1)]
        assert await admin.pubsub_numsub(f"{namespace}approval:9") == [(f"{namespace}approval:9", 0)]
    finally:
        await bus.close()
        await admin.aclose()


async def test_the_factory_picks_redis_only_when_configured() -> None:
    assert build_bus(Settings()) is process_bus()
    redis_bus = build_bus(Settings(redis_url="redis://127.0.0.1:6379/15"))
    try:
        assert isinstance(redis_bus, RedisBus)
    finally:
        await redis_bus.close()

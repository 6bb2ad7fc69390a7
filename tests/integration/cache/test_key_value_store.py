"""The KeyValueStore contract, run against the in-process adapter and real Redis alike."""

from __future__ import annotations

import asyncio

import pytest

from finrpa.cache import CacheUnavailableError, InProcessKeyValueStore, KeyValueStore, RedisKeyValueStore
from finrpa.cache.factory import build_key_value_store
from finrpa.config import Settings


async def test_set_get_delete(key_value_store: KeyValueStore) -> None:
    assert await key_value_store.get("a") is None
    await key_value_store.set("a", "值 1")
    assert await key_value_store.get("a") == "值 1"
    await key_value_store.set("a", "2")
    assert await key_value_store.get("a") == "2"
    assert await key_value_store.delete("a", "missing") == 1
    assert await key_value_store.get("a") is None


async def test_values_expire(key_value_store: KeyValueStore) -> None:
    await key_value_store.set("short", "x", ttl_s=0.15)
    await key_value_store.set("long", "y", ttl_s=60)
    remaining = await key_value_store.ttl("long")
    assert remaining is not None and 55 < remaining <= 60
    await asyncio.sleep(0.3)
    assert await key_value_store.get("short") is None
    assert await key_value_store.get("long") == "y"
    assert await key_value_store.ttl("short") is None


async def test_set_if_absent_only_stores_once(key_value_store: KeyValueStore) -> None:
    assert await key_value_store.set_if_absent("lock", "first", ttl_s=10)
    assert not await key_value_store.set_if_absent("lock", "second", ttl_s=10)
    assert await key_value_store.get("lock") == "first"


async def test_counters_keep_the_ttl_of_their_creation(key_value_store: KeyValueStore) -> None:
    assert await key_value_store.incr("hits", ttl_s=60) == 1
    assert await key_value_store.incr("hits", 4, ttl_s=1) == 5
    remaining = await key_value_store.ttl("hits")
    assert remaining is not None and remaining > 30
    assert await key_value_store.incr("no-expiry") == 1
    assert await key_value_store.ttl("no-expiry") is None


async def test_capped_lists_keep_the_newest_first(key_value_store: KeyValueStore) -> None:
    for item in "abcdef":
        await key_value_store.push_capped("recent", item, max_len=4)
    assert await key_value_store.list_range("recent") == ["f", "e", "d", "c"]
    assert await key_value_store.list_range("recent", 2) == ["f", "e"]
    assert await key_value_store.list_range("absent") == []


async def test_prefix_scan_and_delete_treat_glob_characters_literally(key_value_store: KeyValueStore) -> None:
    for key in ("org:a*:1", "org:a*:2", "org:ab:1", "org:a:1", "other:1"):
        await key_value_store.set(key, "v")
    assert sorted(await key_value_store.scan_prefix("org:a*:")) == ["org:a*:1", "org:a*:2"]
    assert await key_value_store.delete_prefix("org:a*:") == 2
    assert sorted(await key_value_store.scan_prefix("org:")) == ["org:a:1", "org:ab:1"]


async def test_concurrent_increments_are_not_lost(key_value_store: KeyValueStore) -> None:
    await asyncio.gather(*(key_value_store.incr("n") for _ in range(200)))
    assert await key_value_store.get("n") == "200"


def test_in_process_store_is_thread_safe() -> None:
    store = InProcessKeyValueStore()

    def work() -> None:
        for _ in range(500):
            asyncio.run(store.incr("n"))

    import threading

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert asyncio.run(store.get("n")) == "2000"


def test_in_process_expiry_follows_its_clock() -> None:
    now = [1000.0]
    store = InProcessKeyValueStore(clock=lambda: now[0])
    asyncio.run(store.set("k", "v", ttl_s=24 * 3600))
    now[0] += 24 * 3600 - 1
    assert asyncio.run(store.get("k")) == "v"
    now[0] += 2
    assert asyncio.run(store.get("k")) is None


async def test_unreachable_redis_is_a_clear_error() -> None:
    store = RedisKeyValueStore("redis://:hunter2@127.0.0.1:1/0", timeout_s=0.5)
    with pytest.raises(CacheUnavailableError) as caught:
        await store.get("anything")
    await store.close()
    assert "FINRPA_REDIS_URL" in caught.value.message
    assert "hunter2" not in caught.value.message


def test_the_adapter_follows_the_settings() -> None:
    assert isinstance(build_key_value_store(Settings()), InProcessKeyValueStore)
    assert isinstance(build_key_value_store(Settings(redis_url="redis://127.0.0.1:6379/15")), RedisKeyValueStore)

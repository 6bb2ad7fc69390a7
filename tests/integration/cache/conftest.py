"""Key-value stores for tests: the in-process adapter always, Redis when FINRPA_TEST_REDIS_URL is set.

Each Redis store gets a namespace of its own, removed afterwards, so tests never see each other's keys.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

import pytest

from finrpa.cache import InProcessKeyValueStore, KeyValueStore, RedisKeyValueStore

REDIS_ENV = "FINRPA_TEST_REDIS_URL"


def store_backends() -> list[str]:
    return ["memory", "redis"] if os.environ.get(REDIS_ENV) else ["memory"]


@pytest.fixture(params=store_backends())
async def key_value_store(request: pytest.FixtureRequest) -> AsyncIterator[KeyValueStore]:
    """A fresh KeyValueStore of each configured backend."""
    if request.param == "memory":
        yield InProcessKeyValueStore()
        return
    store = RedisKeyValueStore(os.environ[REDIS_ENV], namespace=f"finrpa-test-{uuid.uuid4().hex[:10]}:")
    try:
        yield store
    finally:
        await store.delete_prefix("")
        await store.close()

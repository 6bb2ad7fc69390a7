"""Choose the key-value store adapter from settings: Redis when ``FINRPA_REDIS_URL`` is set, else in-process."""

from __future__ import annotations

from finrpa.cache.memory import InProcessKeyValueStore
from finrpa.cache.port import KeyValueStore
from finrpa.cache.redis_store import RedisKeyValueStore
from finrpa.config import Settings


def build_key_value_store(settings: Settings) -> KeyValueStore:
    if settings.redis_url:
        return RedisKeyValueStore(settings.redis_url)
    return InProcessKeyValueStore()

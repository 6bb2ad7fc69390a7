"""FinRPA's key-value store port (``KeyValueStore``) with in-process and Redis adapters."""

from finrpa.cache.factory import build_key_value_store
from finrpa.cache.memory import InProcessKeyValueStore
from finrpa.cache.port import CacheUnavailableError, KeyValueStore
from finrpa.cache.redis_store import RedisKeyValueStore

__all__ = [
    "CacheUnavailableError",
    "InProcessKeyValueStore",
    "KeyValueStore",
    "RedisKeyValueStore",
    "build_key_value_store",
]

"""The key-value store port used across FinRPA (action cache, router state, counters, cooldowns).

Two adapters: :class:`~finrpa.cache.memory.InProcessKeyValueStore` (embedded, one process) and
:class:`~finrpa.cache.redis_store.RedisKeyValueStore` (production, Redis 7). Values are strings; lists keep
the newest item first. Every write can carry a TTL in seconds. An unreachable store raises
:class:`CacheUnavailableError`, which callers treat as "no cached value" rather than as a crash.
"""

from __future__ import annotations

from typing import Protocol

from finrpa.exceptions import ExternalServiceError


class CacheUnavailableError(ExternalServiceError):
    code = "cache_unavailable"
    http_status = 503


class KeyValueStore(Protocol):
    async def get(self, key: str) -> str | None:
        """The value, or None when absent or expired."""
        ...

    async def set(self, key: str, value: str, *, ttl_s: float | None = None) -> None: ...

    async def set_if_absent(self, key: str, value: str, *, ttl_s: float | None = None) -> bool:
        """Store only when the key does not exist; True when this call stored it."""
        ...

    async def delete(self, *keys: str) -> int:
        """Remove keys; the number that existed."""
        ...

    async def incr(self, key: str, amount: int = 1, *, ttl_s: float | None = None) -> int:
        """Add to an integer counter (created at 0); ``ttl_s`` applies when the counter is created."""
        ...

    async def ttl(self, key: str) -> float | None:
        """Seconds left before the key expires; None when it has no expiry or does not exist."""
        ...

    async def push_capped(self, key: str, value: str, *, max_len: int, ttl_s: float | None = None) -> None:
        """Prepend to a list and keep only its ``max_len`` newest items."""
        ...

    async def list_range(self, key: str, count: int | None = None) -> list[str]:
        """The newest ``count`` items of a list (all when None), newest first."""
        ...

    async def scan_prefix(self, prefix: str) -> list[str]:
        """Every live key starting with ``prefix``."""
        ...

    async def delete_prefix(self, prefix: str) -> int:
        """Delete every key starting with ``prefix``; the number deleted."""
        ...

    async def close(self) -> None: ...

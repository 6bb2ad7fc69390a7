"""The production key-value store: Redis 7 through ``redis.asyncio``, every key under one namespace."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, Redis

from finrpa.cache.port import CacheUnavailableError
from finrpa.kit.urls import mask_url_password

_GLOB_SPECIALS = "\\*?[]"
_DELETE_BATCH = 500


class RedisKeyValueStore:
    """Keys are stored as ``<namespace><key>``; ``namespace`` separates deployments sharing one Redis."""

    def __init__(
        self, url: str, *, namespace: str = "finrpa:", timeout_s: float = 2.0, max_connections: int = 50
    ) -> None:
        self._url = mask_url_password(url)
        self._ns = namespace
        # A blocking pool: a burst of concurrent callers waits for a connection instead of failing.
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=timeout_s * 5,
            decode_responses=True,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
        )
        self._redis = Redis.from_pool(pool)

    async def get(self, key: str) -> str | None:
        async with self._guard():
            value = await self._redis.get(self._ns + key)
            return None if value is None else _text(value)

    async def set(self, key: str, value: str, *, ttl_s: float | None = None) -> None:
        async with self._guard():
            await self._redis.set(self._ns + key, value, px=_ms(ttl_s))

    async def set_if_absent(self, key: str, value: str, *, ttl_s: float | None = None) -> bool:
        async with self._guard():
            return bool(await self._redis.set(self._ns + key, value, px=_ms(ttl_s), nx=True))

    async def delete(self, *keys: str) -> int:
        if not keys:
            return 0
        async with self._guard():
            return int(await self._redis.delete(*(self._ns + key for key in keys)))

    async def incr(self, key: str, amount: int = 1, *, ttl_s: float | None = None) -> int:
        async with self._guard(), self._redis.pipeline(transaction=True) as pipe:
            pipe.incrby(self._ns + key, amount)
            if ttl_s is not None:
                pipe.pexpire(self._ns + key, _ms(ttl_s) or 1, nx=True)
            results = await pipe.execute()
            return int(results[0])

    async def ttl(self, key: str) -> float | None:
        async with self._guard():
            remaining = int(await self._redis.pttl(self._ns + key))
            return remaining / 1000 if remaining >= 0 else None

    async def push_capped(self, key: str, value: str, *, max_len: int, ttl_s: float | None = None) -> None:
        async with self._guard(), self._redis.pipeline(transaction=True) as pipe:
            pipe.lpush(self._ns + key, value)
            pipe.ltrim(self._ns + key, 0, max_len - 1)
            if ttl_s is not None:
                pipe.pexpire(self._ns + key, _ms(ttl_s) or 1)
            await pipe.execute()

    async def list_range(self, key: str, count: int | None = None) -> list[str]:
        async with self._guard():
            end = -1 if count is None else count - 1
            return [_text(item) for item in await self._redis.lrange(self._ns + key, 0, end)]

    async def scan_prefix(self, prefix: str) -> list[str]:
        async with self._guard():
            return [key[len(self._ns) :] async for key in self._scan(prefix)]

    async def delete_prefix(self, prefix: str) -> int:
        deleted = 0
        async with self._guard():
            batch: list[str] = []
            async for key in self._scan(prefix):
                batch.append(key)
                if len(batch) >= _DELETE_BATCH:
                    deleted += int(await self._redis.unlink(*batch))
                    batch.clear()
            if batch:
                deleted += int(await self._redis.unlink(*batch))
        return deleted

    async def close(self) -> None:
        await self._redis.aclose()

    async def ping(self) -> None:
        async with self._guard():
            await self._redis.ping()

    def _scan(self, prefix: str) -> AsyncIterator[str]:
        pattern = "".join(f"\\{char}" if char in _GLOB_SPECIALS else char for char in self._ns + prefix)
        return self._redis.scan_iter(match=pattern + "*", count=500)

    @asynccontextmanager
    async def _guard(self) -> AsyncIterator[None]:
        try:
            yield
        except (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError) as exc:
            raise CacheUnavailableError(
                f"Redis at {self._url} cannot be reached ({type(exc).__name__}). Check that it is running "
                "and that FINRPA_REDIS_URL is right, or unset FINRPA_REDIS_URL to use the in-process cache."
            ) from exc


def _ms(ttl_s: float | None) -> int | None:
    return None if ttl_s is None else max(1, round(ttl_s * 1000))


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value

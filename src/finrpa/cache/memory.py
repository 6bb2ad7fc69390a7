"""The embedded key-value store: a dict with expiry times, safe across threads and asyncio tasks."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Entry:
    value: str | list[str]
    expires_at: float | None


_SWEEP_EVERY = 1024  # writes between two sweeps of expired keys, so memory stays bounded


class InProcessKeyValueStore:
    """One process's store. ``clock`` (monotonic seconds) is injectable so expiry can be tested."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._writes = 0

    async def get(self, key: str) -> str | None:
        with self._lock:
            entry = self._live(key)
            return _as_text(key, entry.value) if entry else None

    async def set(self, key: str, value: str, *, ttl_s: float | None = None) -> None:
        with self._lock:
            self._write(key, _Entry(value, self._expiry(ttl_s)))

    async def set_if_absent(self, key: str, value: str, *, ttl_s: float | None = None) -> bool:
        with self._lock:
            if self._live(key) is not None:
                return False
            self._write(key, _Entry(value, self._expiry(ttl_s)))
            return True

    async def delete(self, *keys: str) -> int:
        with self._lock:
            present = [key for key in dict.fromkeys(keys) if self._live(key) is not None]
            for key in present:
                del self._entries[key]
            return len(present)

    async def incr(self, key: str, amount: int = 1, *, ttl_s: float | None = None) -> int:
        with self._lock:
            entry = self._live(key)
            if entry is None:
                entry = _Entry("0", self._expiry(ttl_s))
            current = _as_text(key, entry.value)
            if not current.lstrip("-").isdigit():
                raise TypeError(f"The value at {key!r} is not an integer counter.")
            entry.value = str(int(current) + amount)
            self._write(key, entry)
            return int(entry.value)

    async def ttl(self, key: str) -> float | None:
        with self._lock:
            entry = self._live(key)
            if entry is None or entry.expires_at is None:
                return None
            return entry.expires_at - self._clock()

    async def push_capped(self, key: str, value: str, *, max_len: int, ttl_s: float | None = None) -> None:
        with self._lock:
            entry = self._live(key) or _Entry([], None)
            items = _as_list(key, entry.value)
            entry.value = [value, *items][:max_len]
            if ttl_s is not None:
                entry.expires_at = self._expiry(ttl_s)
            self._write(key, entry)

    async def list_range(self, key: str, count: int | None = None) -> list[str]:
        with self._lock:
            entry = self._live(key)
            items = _as_list(key, entry.value) if entry else []
            return list(items if count is None else items[:count])

    async def scan_prefix(self, prefix: str) -> list[str]:
        with self._lock:
            return [key for key in list(self._entries) if key.startswith(prefix) and self._live(key)]

    async def delete_prefix(self, prefix: str) -> int:
        with self._lock:
            doomed = [key for key in list(self._entries) if key.startswith(prefix) and self._live(key)]
            for key in doomed:
                del self._entries[key]
            return len(doomed)

    async def close(self) -> None:
        with self._lock:
            self._entries.clear()

    def _expiry(self, ttl_s: float | None) -> float | None:
        return None if ttl_s is None else self._clock() + ttl_s

    def _live(self, key: str) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is not None and entry.expires_at is not None and entry.expires_at <= self._clock():
            del self._entries[key]
            return None
        return entry

    def _write(self, key: str, entry: _Entry) -> None:
        self._entries[key] = entry
        self._writes += 1
        if self._writes % _SWEEP_EVERY == 0:
            for stale in list(self._entries):
                self._live(stale)


def _as_text(key: str, value: str | list[str]) -> str:
    if isinstance(value, list):
        raise TypeError(f"The value at {key!r} is a list; read it with list_range.")
    return value


def _as_list(key: str, value: str | list[str]) -> list[str]:
    if not isinstance(value, list):
        raise TypeError(f"The value at {key!r} is a string, not a list.")
    return value

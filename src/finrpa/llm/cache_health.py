"""Action-cache hit and miss counting per organisation, and the hit-rate-drop detector.

Each verified lookup adds an outcome to a capped per-org list (newest first). The detector compares the hit
rate of the newest ``window`` outcomes with the ``baseline`` outcomes before them; a fall of at least
``drop`` (absolute) raises a :class:`HitRateDropAlert` — "the target system may have changed" — at most once
per cooldown. The alert carries the fields of ``finrpa.notify``'s ``CacheHitRateDropped`` event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from finrpa.cache import KeyValueStore
from finrpa.config import Settings
from finrpa.db.base import utcnow

HIT = "hit"
_REASON = re.compile(r"[^a-z0-9_]+")


@dataclass(frozen=True)
class DetectorSettings:
    window: int = 20
    baseline: int = 100
    drop: float = 0.3
    cooldown_s: int = 3600

    @classmethod
    def from_settings(cls, settings: Settings) -> DetectorSettings:
        return cls(
            window=settings.action_cache_alert_window,
            baseline=settings.action_cache_alert_baseline,
            drop=settings.action_cache_alert_drop,
            cooldown_s=settings.action_cache_alert_cooldown_s,
        )


@dataclass(frozen=True)
class HitRateDropAlert:
    """A signal for the notification layer: the cache hit rate of an organisation fell sharply."""

    org_id: str
    hit_rate: float
    baseline_rate: float
    window: int
    baseline_size: int
    occurred_at: datetime = field(default_factory=utcnow)
    scope: str | None = None

    @property
    def message(self) -> str:
        return (
            f"The action cache hit rate of organisation {self.org_id} fell from {self.baseline_rate:.0%} to "
            f"{self.hit_rate:.0%} over the last {self.window} lookups: the target system may have changed "
            "(a portal redesign or new layout). Check recent runs and the portal before trusting old decisions."
        )

    def event_fields(self) -> dict[str, Any]:
        """Keyword arguments for ``finrpa.notify.events.CacheHitRateDropped``."""
        return {
            "org_id": self.org_id,
            "hit_rate": self.hit_rate,
            "baseline_rate": self.baseline_rate,
            "window": self.window,
            "scope": self.scope,
            "occurred_at": self.occurred_at,
        }


@dataclass(frozen=True)
class CacheStats:
    """Cumulative counts of one organisation: verified hits and misses by reason."""

    org_id: str
    hits: int
    misses_by_reason: dict[str, int]

    @property
    def misses(self) -> int:
        return sum(self.misses_by_reason.values())

    @property
    def hit_rate(self) -> float | None:
        total = self.hits + self.misses
        return self.hits / total if total else None


def miss_reason_slug(reason: str) -> str:
    """A bounded counter label from a free-text reason (``Element not found`` → ``element_not_found``)."""
    slug = _REASON.sub("_", reason.strip().lower()).strip("_")[:48]
    return slug or "unspecified"


class CacheHealth:
    """Counters and the detector, kept in the KeyValueStore under ``action_cache_stats:{org_id}:``."""

    def __init__(self, store: KeyValueStore, settings: DetectorSettings) -> None:
        self._store = store
        self._settings = settings

    async def count_hit(self, org_id: str) -> HitRateDropAlert | None:
        await self._store.incr(f"{_prefix(org_id)}hits")
        return await self._remember(org_id, "1")

    async def count_miss(self, org_id: str, reason: str) -> HitRateDropAlert | None:
        await self._store.incr(f"{_prefix(org_id)}miss:{miss_reason_slug(reason)}")
        return await self._remember(org_id, "0")

    async def stats(self, org_id: str) -> CacheStats:
        hits = int(await self._store.get(f"{_prefix(org_id)}hits") or 0)
        misses: dict[str, int] = {}
        miss_prefix = f"{_prefix(org_id)}miss:"
        for key in sorted(await self._store.scan_prefix(miss_prefix)):
            misses[key.removeprefix(miss_prefix)] = int(await self._store.get(key) or 0)
        return CacheStats(org_id=org_id, hits=hits, misses_by_reason=misses)

    async def check(self, org_id: str) -> HitRateDropAlert | None:
        """The alert when the recent hit rate fell by ``drop`` against the baseline (once per cooldown)."""
        outcomes = await self._store.list_range(_outcomes_key(org_id))
        window, baseline = self._settings.window, self._settings.baseline
        recent, before = outcomes[:window], outcomes[window : window + baseline]
        if len(recent) < window or len(before) < window:
            return None
        recent_rate, baseline_rate = _rate(recent), _rate(before)
        if baseline_rate - recent_rate < self._settings.drop:
            return None
        cooldown_key = f"{_prefix(org_id)}alerted"
        if not await self._store.set_if_absent(cooldown_key, utcnow().isoformat(), ttl_s=self._settings.cooldown_s):
            return None
        return HitRateDropAlert(org_id, recent_rate, baseline_rate, window, len(before))

    async def clear(self, org_id: str) -> int:
        return await self._store.delete_prefix(_prefix(org_id))

    async def _remember(self, org_id: str, outcome: str) -> HitRateDropAlert | None:
        size = self._settings.window + self._settings.baseline
        await self._store.push_capped(_outcomes_key(org_id), outcome, max_len=size)
        return await self.check(org_id)


def _prefix(org_id: str) -> str:
    return f"action_cache_stats:{org_id}:"


def _outcomes_key(org_id: str) -> str:
    return f"{_prefix(org_id)}outcomes"


def _rate(outcomes: list[str]) -> float:
    return sum(1 for outcome in outcomes if outcome == "1") / len(outcomes)

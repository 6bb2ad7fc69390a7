"""When to try a failed delivery again: exponential backoff with jitter, capped, up to N attempts."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta

from finrpa.config import Settings


@dataclass(frozen=True)
class BackoffPolicy:
    """Attempt n (1-based) failed → wait ``initial_s × multiplier^(n-1)`` ± ``jitter``, at most ``max_s``."""

    initial_s: float = 30.0
    multiplier: float = 2.0
    max_s: float = 3600.0
    max_attempts: int = 8
    jitter: float = 0.2  # ± this fraction, so that many failed deliveries do not retry in one burst

    @classmethod
    def from_settings(cls, settings: Settings) -> BackoffPolicy:
        return cls(
            initial_s=settings.notify_backoff_initial_s,
            multiplier=settings.notify_backoff_multiplier,
            max_s=settings.notify_backoff_max_s,
            max_attempts=max(1, settings.notify_max_attempts),
        )

    def delay_after(self, attempt: int, rng: random.Random | None = None) -> timedelta:
        """How long to wait after failed attempt number ``attempt``."""
        base = min(self.max_s, self.initial_s * self.multiplier ** max(0, attempt - 1))
        spread = (rng or random).uniform(1 - self.jitter, 1 + self.jitter)
        return timedelta(seconds=min(self.max_s, base * spread))

    def exhausted(self, attempts: int) -> bool:
        """Whether ``attempts`` attempts are all this delivery gets."""
        return attempts >= self.max_attempts

"""Choose the bus adapter from settings: Redis when ``FINRPA_REDIS_URL`` is set, else this process's bus."""

from __future__ import annotations

from functools import lru_cache

from finrpa.bus.memory import InProcessBus
from finrpa.bus.port import Bus
from finrpa.bus.redis_bus import RedisBus
from finrpa.config import Settings


@lru_cache(maxsize=1)
def process_bus() -> InProcessBus:
    """The one in-process bus of this process: publishers and subscribers must share it to meet."""
    return InProcessBus()


def build_bus(settings: Settings) -> Bus:
    """A RedisBus for ``settings.redis_url`` (close it when done), or the shared in-process bus."""
    if settings.redis_url:
        return RedisBus(settings.redis_url)
    return process_bus()

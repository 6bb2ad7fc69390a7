"""FinRPA's pub/sub port (``Bus``): wake-up messages between processes, in-process or through Redis 7.

Messages only wake a listener up; what they announce is always read again from the database, so a lost
message costs latency, never correctness. Public API: :class:`Bus`, :class:`Subscription`,
:class:`BusUnavailableError`, :class:`InProcessBus`, :class:`RedisBus`, :func:`build_bus`,
:func:`process_bus`.
"""

from finrpa.bus.factory import build_bus, process_bus
from finrpa.bus.memory import InProcessBus
from finrpa.bus.port import Bus, BusUnavailableError, Subscription
from finrpa.bus.redis_bus import RedisBus

__all__ = [
    "Bus",
    "BusUnavailableError",
    "InProcessBus",
    "RedisBus",
    "Subscription",
    "build_bus",
    "process_bus",
]

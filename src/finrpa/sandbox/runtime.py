"""The live sandbox: its switches, submitted state, sessions and fault injector, shared by every request."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Literal

from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.sessions import SessionStore
from finrpa.sandbox.state import SandboxState

FaultKind = Literal["http500", "busy"]


class FaultInjector:
    """Decides which requests fail. The n-th eligible request fails the same way for the same seed."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(f"faults:{seed}")
        self._lock = threading.Lock()

    def draw(self, rate: float) -> FaultKind | None:
        with self._lock:
            roll, kind = self._rng.random(), self._rng.random()
        if roll >= rate:
            return None
        return "http500" if kind < 0.5 else "busy"


class SandboxRuntime:
    """Everything a request handler may read or change; one per app, so several sandboxes can coexist."""

    def __init__(
        self,
        config: SandboxConfig,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = datetime.now,
    ) -> None:
        self._lock = threading.Lock()
        self._config = config
        self.clock = clock
        self.now = now
        self.state = SandboxState()
        self.sessions = SessionStore(clock)
        self.faults = FaultInjector(config.seed)

    @property
    def config(self) -> SandboxConfig:
        with self._lock:
            return self._config

    def set_config(self, changes: dict[str, object]) -> SandboxConfig:
        """Apply switch changes at runtime (validated); a new seed restarts the fault sequence."""
        with self._lock:
            updated = self._config.with_changes(changes)
            if updated.seed != self._config.seed:
                self.faults = FaultInjector(updated.seed)
            self._config = updated
            return updated

    def reset(self) -> None:
        """Forget submissions, failures, lockouts and sessions; restart the fault sequence."""
        self.state.reset()
        self.sessions.clear()
        with self._lock:
            self.faults = FaultInjector(self._config.seed)

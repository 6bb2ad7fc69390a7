"""The notifier plug-in base: one class per channel kind turns a rendered event into one request.

A notifier raises :class:`~finrpa.notify.errors.DeliveryFailedError` (``retryable`` set honestly) and
nothing else for a failed send; the dispatcher records the error after scrubbing every secret it resolved.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar

import httpx

from finrpa.notify.events import NotificationEvent
from finrpa.notify.masking import url_secrets
from finrpa.notify.render import RenderedMessage
from finrpa.notify.schemas import ChannelKind
from finrpa.notify.secret_refs import SecretResolver, resolve_value


@dataclass(frozen=True)
class Delivery:
    """One event for one channel, as the notifier sends it."""

    idempotency_key: str
    org_id: str
    event: NotificationEvent
    message: RenderedMessage
    attempt: int


@dataclass
class SendContext:
    """What a send may use: the shared HTTP client, the secret store, limits and the clock."""

    http: httpx.AsyncClient
    secrets: SecretResolver
    timeout_s: float
    allow_http: bool
    clock: Callable[[], datetime]
    # Every secret value resolved during this send, so the dispatcher can scrub them from errors.
    revealed: list[str] = field(default_factory=list)

    async def reveal(self, org_id: str, value: str) -> str:
        """``value``, or the secret it references; remembered for scrubbing."""
        resolved = await resolve_value(self.secrets, org_id, value)
        self.revealed.extend(url_secrets(resolved) if "://" in resolved else [resolved])
        return resolved


class Notifier(ABC):
    kind: ClassVar[ChannelKind]

    @abstractmethod
    async def send(self, delivery: Delivery, context: SendContext) -> None:
        """Send one delivery; raise DeliveryFailedError when it was not accepted."""

    @abstractmethod
    def endpoint(self) -> str:
        """Where this channel sends (may be a secret:// reference; mask before showing)."""

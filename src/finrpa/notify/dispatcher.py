"""The outbox dispatcher: claims due deliveries, sends them, records the outcome, retries with backoff.

Guarantees and their one window:

* A delivery that was recorded as sent is never sent again: claims are exclusive (SKIP LOCKED on PostgreSQL,
  an atomic claim-by-update on SQLite) and a sent row is never claimable.
* If the dispatcher stops between sending and recording (crash, kill), the claim's lease expires and the
  delivery is sent again by the next dispatcher: at most one extra copy, carrying the same
  ``X-FinRPA-Delivery`` header and e-mail Message-ID. A timeout is the same kind of uncertainty (the
  receiver may have acted) and is retried too: missing a NEEDS_HUMAN alert is worse than a duplicate.
  Webhook receivers de-duplicate by ``X-FinRPA-Delivery``.
* Sending happens outside any database transaction; each outcome is recorded in its own short one.
* Nothing here raises into the code that enqueued the event, and one broken channel does not hold up the
  others (deliveries are sent concurrently, each with its own timeout).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.config import Settings, get_settings
from finrpa.db.base import utcnow
from finrpa.db.engine import unit_of_work
from finrpa.notify import repository, service
from finrpa.notify.errors import ChannelConfigError, DeliveryFailedError, SecretUnavailableError
from finrpa.notify.events import ChannelTest, NotificationEvent, parse_event
from finrpa.notify.masking import mask_endpoint, scrub
from finrpa.notify.models import NotifyChannel
from finrpa.notify.notifiers import Delivery, SendContext, build_notifier
from finrpa.notify.render import RenderOptions, render
from finrpa.notify.repository import ClaimedDelivery, Outcome
from finrpa.notify.retry import BackoffPolicy
from finrpa.notify.schemas import DeliveryStatus
from finrpa.notify.secret_refs import SecretResolver
from finrpa.notify.vault_secrets import deployment_secret_resolver
from finrpa.tenancy import TenantContext, current_tenant, system_context

logger = logging.getLogger(__name__)

Sessions = async_sessionmaker[AsyncSession]
_SYSTEM_REASON = "notify dispatcher: deliver queued notifications of every organisation"


@dataclass(frozen=True)
class DispatcherConfig:
    backoff: BackoffPolicy
    render: RenderOptions
    timeout_s: float = 10.0
    lease_s: float = 120.0
    batch_size: int = 50
    concurrency: int = 8
    allow_http: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> DispatcherConfig:
        dashboard = settings.notify_dashboard_url or f"http://{settings.host}:{settings.port}"
        return cls(
            backoff=BackoffPolicy.from_settings(settings),
            render=RenderOptions(dashboard_url=dashboard, timezone=settings.notify_timezone),
            timeout_s=settings.notify_timeout_s,
            lease_s=settings.notify_lease_s,
            batch_size=max(1, settings.notify_batch_size),
            concurrency=max(1, settings.notify_concurrency),
            allow_http=service.http_allowed(settings),
        )

    @property
    def effective_lease(self) -> timedelta:
        # An SMTP conversation is several round trips, each bounded by the timeout; a lease shorter than
        # that would let a second dispatcher take a delivery that is still being sent.
        return timedelta(seconds=max(self.lease_s, 6 * self.timeout_s))


@dataclass(frozen=True)
class ChannelSnapshot:
    """What sending needs of a channel, read inside the claim transaction."""

    id: str
    org_id: str
    name: str
    enabled: bool
    config: dict[str, Any]


def _snapshot(channel: NotifyChannel) -> ChannelSnapshot:
    return ChannelSnapshot(channel.id, channel.org_id, channel.name, channel.enabled, dict(channel.config))


@dataclass(frozen=True)
class DispatchReport:
    claimed: int = 0
    sent: int = 0
    retrying: int = 0
    dead: int = 0
    lost_claims: int = 0  # outcomes not recorded because another dispatcher took the delivery over

    def __add__(self, other: DispatchReport) -> DispatchReport:
        return DispatchReport(
            self.claimed + other.claimed,
            self.sent + other.sent,
            self.retrying + other.retrying,
            self.dead + other.dead,
            self.lost_claims + other.lost_claims,
        )


class Dispatcher:
    """Sends what the outbox holds. One instance per worker; safe to run on many workers at once."""

    def __init__(
        self,
        sessions: Sessions,
        *,
        config: DispatcherConfig | None = None,
        secrets: SecretResolver | None = None,
        http: httpx.AsyncClient | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.sessions = sessions
        self.config = config or DispatcherConfig.from_settings(get_settings())
        self.secrets = secrets or deployment_secret_resolver(sessions, get_settings())
        self._http = http
        self._clock = clock

    async def dispatch_due(self, now: datetime | None = None) -> DispatchReport:
        """Claim one batch of due deliveries, send them concurrently and record each outcome."""
        now = now or self._clock()
        with _cross_org_scope():
            claimed, channels = await self._claim(now)
            if not claimed:
                return DispatchReport()
            async with self._client() as http:
                return await self._deliver(claimed, channels, http, now)

    async def run(self, stop: asyncio.Event, *, interval_s: float = 2.0) -> None:
        """Dispatch until ``stop`` is set; a full batch is followed at once by the next one."""
        with _cross_org_scope():
            async with self._client() as http:
                while not stop.is_set():
                    report = await self._dispatch_guarded(http)
                    if report.claimed < self.config.batch_size:
                        await _wait(stop, interval_s)

    async def send_test(self, org_id: str, name_or_id: str) -> str:
        """Send a test message to one channel now, not through the outbox; return its masked endpoint.

        Runs in the caller's tenant context (a user of ``org_id``, or a system context bound to it).
        """
        async with unit_of_work(self.sessions) as session:
            channel = _snapshot(await service.get_channel(session, org_id, name_or_id))
        event = ChannelTest(org_id=org_id, channel_name=channel.name, occurred_at=self._clock())
        async with self._client() as http:
            context = self._context(http)
            try:
                await self._send(channel, event, f"{event.event_id}:{channel.id}", 1, context)
            except DeliveryFailedError as exc:
                raise DeliveryFailedError(
                    scrub(exc.message, context.revealed), retryable=exc.retryable
                ) from None
        return mask_endpoint(service.parse_stored_config(channel.name, channel.config).endpoint())

    async def _deliver(
        self,
        claimed: list[ClaimedDelivery],
        channels: dict[str, ChannelSnapshot],
        http: httpx.AsyncClient,
        now: datetime,
    ) -> DispatchReport:
        gate = asyncio.Semaphore(self.config.concurrency)
        reports = await asyncio.gather(
            *(self._attempt(item, channels.get(item.channel_id), http, gate, now) for item in claimed)
        )
        return sum(reports, DispatchReport(claimed=len(claimed)))

    async def _dispatch_guarded(self, http: httpx.AsyncClient) -> DispatchReport:
        now = self._clock()
        try:
            claimed, channels = await self._claim(now)
            return await self._deliver(claimed, channels, http, now)
        except (SQLAlchemyError, OSError) as exc:  # database restarting: wait and try again, never die
            logger.warning("notify.dispatch.database_unavailable", extra={"error": type(exc).__name__})
            return DispatchReport()

    async def _claim(self, now: datetime) -> tuple[list[ClaimedDelivery], dict[str, ChannelSnapshot]]:
        async with unit_of_work(self.sessions) as session:
            max_attempts = self.config.backoff.max_attempts
            buried = await repository.bury_abandoned(session, now=now, max_attempts=max_attempts)
            if buried:
                logger.warning("notify.dispatch.abandoned_marked_dead", extra={"count": buried})
            claimed = await repository.claim_due(
                session,
                now=now,
                lease_until=now + self.config.effective_lease,
                limit=self.config.batch_size,
                max_attempts=max_attempts,
            )
            channels = await repository.channels_by_id(session, {item.channel_id for item in claimed})
            return claimed, {key: _snapshot(channel) for key, channel in channels.items()}

    async def _attempt(
        self,
        claimed: ClaimedDelivery,
        channel: ChannelSnapshot | None,
        http: httpx.AsyncClient,
        gate: asyncio.Semaphore,
        now: datetime,
    ) -> DispatchReport:
        async with gate:
            outcome = await self._outcome(claimed, channel, self._context(http), now)
        async with unit_of_work(self.sessions) as session:
            recorded = await repository.record_outcome(session, claimed, outcome, now)
        _log_outcome(claimed, outcome, recorded)
        if not recorded:
            return DispatchReport(lost_claims=1)
        if outcome.status is DeliveryStatus.SENT:
            return DispatchReport(sent=1)
        if outcome.status is DeliveryStatus.PENDING:
            return DispatchReport(retrying=1)
        return DispatchReport(dead=1)

    async def _outcome(
        self, claimed: ClaimedDelivery, channel: ChannelSnapshot | None, context: SendContext, now: datetime
    ) -> Outcome:
        if channel is None or not channel.enabled:
            return Outcome(DeliveryStatus.DEAD, "The channel was disabled or removed before sending.")
        try:
            event = parse_event(claimed.payload)
            await self._send(channel, event, claimed.idempotency_key, claimed.attempts, context)
        except DeliveryFailedError as exc:
            return self._failure(claimed, scrub(exc.message, context.revealed), exc.retryable, now)
        except (SecretUnavailableError, ChannelConfigError) as exc:
            return Outcome(DeliveryStatus.DEAD, scrub(exc.message, context.revealed))
        except ValidationError:
            return Outcome(DeliveryStatus.DEAD, "The stored event is not valid for this FinRPA version.")
        # A bug in one notifier must not stop the outbox: the error is recorded, retried and logged.
        except Exception as exc:  # noqa: BLE001
            logger.error("notify.dispatch.unexpected_error", extra={"error": type(exc).__name__})
            return self._failure(claimed, f"Unexpected {type(exc).__name__} while sending.", True, now)
        return Outcome(DeliveryStatus.SENT)

    async def _send(
        self, channel: ChannelSnapshot, event: NotificationEvent, key: str, attempt: int, context: SendContext
    ) -> None:
        notifier = build_notifier(service.parse_stored_config(channel.name, channel.config))
        message = render(event, self.config.render)
        delivery = Delivery(key, channel.org_id, event, message, attempt)
        await notifier.send(delivery, context)

    def _failure(self, claimed: ClaimedDelivery, error: str, retryable: bool, now: datetime) -> Outcome:
        policy = self.config.backoff
        if not retryable:
            return Outcome(DeliveryStatus.DEAD, error)
        if policy.exhausted(claimed.attempts):
            return Outcome(DeliveryStatus.DEAD, f"{error} Gave up after {claimed.attempts} attempts.")
        return Outcome(DeliveryStatus.PENDING, error, now + policy.delay_after(claimed.attempts))

    def _context(self, http: httpx.AsyncClient) -> SendContext:
        return SendContext(
            http=http,
            secrets=self.secrets,
            timeout_s=self.config.timeout_s,
            allow_http=self.config.allow_http,
            clock=self._clock,
        )

    @asynccontextmanager
    async def _client(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._http is not None:
            yield self._http
            return
        async with httpx.AsyncClient(timeout=self.config.timeout_s, follow_redirects=False) as http:
            yield http


async def dispatch_due(
    sessions: Sessions,
    now: datetime | None = None,
    *,
    config: DispatcherConfig | None = None,
    secrets: SecretResolver | None = None,
    http: httpx.AsyncClient | None = None,
) -> DispatchReport:
    """Send one batch of due deliveries (see :class:`Dispatcher`)."""
    return await Dispatcher(sessions, config=config, secrets=secrets, http=http).dispatch_due(now)


async def run_dispatcher(
    sessions: Sessions,
    stop: asyncio.Event,
    *,
    config: DispatcherConfig | None = None,
    secrets: SecretResolver | None = None,
) -> None:
    """The background loop for ``finrpa worker``/``serve``: dispatch until ``stop`` is set."""
    settings = get_settings()
    dispatcher = Dispatcher(sessions, config=config, secrets=secrets)
    await dispatcher.run(stop, interval_s=settings.notify_poll_interval_s)


def _cross_org_scope() -> AbstractContextManager[TenantContext | None]:
    ctx = current_tenant()
    if ctx is not None and ctx.is_system and ctx.org_id is None:
        return nullcontext(ctx)  # already inside the loop's scope: do not log a new one every poll
    return system_context(_SYSTEM_REASON)


async def _wait(stop: asyncio.Event, seconds: float) -> None:
    try:
        await asyncio.wait_for(stop.wait(), timeout=seconds)
    except TimeoutError:
        return


def _log_outcome(claimed: ClaimedDelivery, outcome: Outcome, recorded: bool) -> None:
    fields = {
        "delivery_id": claimed.id,
        "org_id": claimed.org_id,
        "attempt": claimed.attempts,
        "status": outcome.status.value,
        "recorded": recorded,
    }
    if outcome.status is DeliveryStatus.SENT:
        logger.info("notify.delivery.sent", extra=fields)
    else:
        logger.warning("notify.delivery.failed", extra={**fields, "error": outcome.error})


__all__ = ["DispatchReport", "Dispatcher", "DispatcherConfig", "dispatch_due", "run_dispatcher"]

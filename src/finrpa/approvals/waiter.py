"""Waiting for an approval decision without ever missing it (SPEC §C11).

Order matters: subscribe to ``approval:{id}`` FIRST, THEN read the request from the database, then wait.
A decision committed before the read is seen by the read; one committed after it is published to a
subscription that already exists. The database is the truth; a message only says "read again".

Degradation: if the bus cannot be reached, or the subscription's connection drops mid-wait, the waiter
polls the database with backoff (``poll_initial_s`` doubling up to ``poll_max_s``). Even with a healthy
bus it re-reads every ``recheck_s``, so a wake-up lost between a commit and its publish (a crashed
decider) costs at most that long. When the wait runs out — ``timeout_s``, or the request's own deadline,
whichever comes first — the request is marked TIMEOUT with the same race-safe rule as a decision (a
decision that lands first wins), ApprovalTimedOut is queued, and the final status is returned.

Call it in the tenant context of the run (``system_context(reason, org_id=run.org_id)``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.repository import ApprovalRepository
from finrpa.approvals.schemas import as_utc
from finrpa.approvals.service import ApprovalService, approval_channel
from finrpa.audit.service import AuditService
from finrpa.bus.port import Bus, BusUnavailableError, Subscription
from finrpa.config import Settings, get_settings
from finrpa.db.base import utcnow
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import NotFoundError

logger = logging.getLogger(__name__)

Hook = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class WaitPolicy:
    poll_initial_s: float = 0.05
    poll_max_s: float = 1.0
    poll_factor: float = 2.0
    recheck_s: float = 5.0

    @classmethod
    def from_settings(cls, settings: Settings) -> WaitPolicy:
        return cls(
            poll_initial_s=settings.approval_poll_initial_s,
            poll_max_s=settings.approval_poll_max_s,
            recheck_s=settings.approval_recheck_s,
        )


@dataclass(frozen=True)
class WaitHooks:
    """Points where tests step in to change the world mid-wait (e.g. commit a decision)."""

    before_subscribe: Hook | None = None
    after_subscribe: Hook | None = None
    after_read: Hook | None = None


async def wait_for_decision(
    sessions: async_sessionmaker[AsyncSession],
    bus: Bus,
    approval_id: str,
    timeout_s: float | None = None,
    *,
    audit: AuditService | None = None,
    settings: Settings | None = None,
    policy: WaitPolicy | None = None,
    hooks: WaitHooks | None = None,
) -> ApprovalStatus:
    """Wait until the request is decided or the wait runs out; returns its final status.

    ``timeout_s`` None waits until the request's own deadline. APPROVED is the only status that allows the
    action; TIMEOUT counts as rejected.
    """
    settings = settings or get_settings()
    policy = policy or WaitPolicy.from_settings(settings)
    hooks = hooks or WaitHooks()
    await _run(hooks.before_subscribe)
    async with AsyncExitStack() as stack:
        subscription = await _subscribe(stack, bus, approval_channel(approval_id))
        await _run(hooks.after_subscribe)
        status, expires_at = await _read(sessions, approval_id)
        await _run(hooks.after_read)
        deadline = _deadline(timeout_s, expires_at)
        loop = asyncio.get_running_loop()
        delay = policy.poll_initial_s
        while not status.is_final:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return await _time_out(sessions, bus, approval_id, settings, audit)
            if subscription is not None:
                subscription = await _listen(subscription, min(remaining, policy.recheck_s))
            else:
                await asyncio.sleep(min(remaining, delay))
                delay = min(delay * policy.poll_factor, policy.poll_max_s)
            status, _ = await _read(sessions, approval_id)
        return status


async def _run(hook: Hook | None) -> None:
    if hook is not None:
        await hook()


async def _subscribe(stack: AsyncExitStack, bus: Bus, channel: str) -> Subscription | None:
    try:
        return await stack.enter_async_context(bus.subscribe(channel))
    except BusUnavailableError as exc:
        logger.warning("approvals.wait_polls", extra={"channel": channel, "reason": exc.message})
        return None


async def _listen(subscription: Subscription, timeout_s: float) -> Subscription | None:
    """Wait for a message or the timeout; None once the subscription is lost (then poll instead)."""
    try:
        await subscription.get(timeout_s)
    except BusUnavailableError as exc:
        logger.warning("approvals.wait_polls", extra={"channel": subscription.channel, "reason": exc.message})
        return None
    return subscription


async def _read(sessions: async_sessionmaker[AsyncSession], approval_id: str) -> tuple[ApprovalStatus, datetime]:
    async with unit_of_work(sessions) as session:
        found = await ApprovalRepository(session).status_of(approval_id)
    if found is None:
        raise NotFoundError(f"No approval {approval_id!r} in this organisation; wait inside the run's tenant context.")
    status, expires_at = found
    return status, as_utc(expires_at)


def _deadline(timeout_s: float | None, expires_at: datetime) -> float:
    """The loop time at which the wait ends: the earlier of the caller's limit and the request's deadline."""
    loop_now = asyncio.get_running_loop().time()
    until_expiry = (expires_at - utcnow()).total_seconds()
    limit = until_expiry if timeout_s is None else min(timeout_s, until_expiry)
    return loop_now + max(0.0, limit)


async def _time_out(
    sessions: async_sessionmaker[AsyncSession],
    bus: Bus,
    approval_id: str,
    settings: Settings,
    audit: AuditService | None,
) -> ApprovalStatus:
    audit = audit or AuditService.from_settings(settings)
    async with unit_of_work(sessions) as session:
        service = ApprovalService(session, settings, audit=audit, bus=bus)
        approval = await service.time_out(approval_id)
    await service.publish_wakeups()
    return approval.status

"""The approvals deadline sweep: every worker times out overdue PENDING requests of every organisation.

A waiting run times out its own request when the deadline comes (:mod:`finrpa.approvals.waiter`). The sweep
covers the requests nobody waits on any more — the worker holding the run died, or no worker runs at all — so
the request becomes TIMEOUT on time, its audit row is written and "approval timed out" is queued for the
organisation's channels, whether or not the run is ever resumed. Each organisation is swept in its own tenant
context and transaction; the timeout is the same race-safe conditional UPDATE as a decision, so several
workers sweeping at once (or a decision landing at the deadline) leave one outcome.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.approvals.models import ApprovalRequest, ApprovalStatus
from finrpa.approvals.schemas import Approval
from finrpa.approvals.service import approvals_transaction
from finrpa.audit.service import AuditService
from finrpa.bus.port import Bus
from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.db.engine import unit_of_work
from finrpa.tenancy.context import system_context

logger = logging.getLogger(__name__)

_ORGS_PER_SWEEP = 1000


async def organisations_with_overdue_requests(sessions: async_sessionmaker[AsyncSession], now: datetime) -> list[str]:
    """Ids of the organisations holding a PENDING request whose deadline has passed (a platform-wide read)."""
    with system_context("approvals deadline sweep: find organisations with overdue requests"):
        async with unit_of_work(sessions) as session:
            statement = (
                select(ApprovalRequest.org_id)
                .where(ApprovalRequest.status == ApprovalStatus.PENDING.value, ApprovalRequest.expires_at <= now)
                .distinct()
                .limit(_ORGS_PER_SWEEP)
            )
            return [str(org_id) for org_id in (await session.execute(statement)).scalars()]


async def expire_overdue(
    sessions: async_sessionmaker[AsyncSession],
    settings: Settings,
    *,
    audit: AuditService,
    bus: Bus | None,
    now: datetime | None = None,
) -> list[Approval]:
    """Time out every overdue PENDING request (audit row, notification, wake-up); returns those it timed out."""
    now = now or utcnow()
    expired: list[Approval] = []
    for org_id in await organisations_with_overdue_requests(sessions, now):
        with system_context("approvals deadline sweep", org_id=org_id):
            async with approvals_transaction(sessions, settings, audit=audit, bus=bus) as service:
                expired.extend(await service.expire_due(now))
    return expired


async def run_expiry(
    sessions: async_sessionmaker[AsyncSession],
    settings: Settings,
    stop: asyncio.Event,
    interval_s: float,
    *,
    audit: AuditService,
    bus: Bus | None,
) -> None:
    """Sweep every ``interval_s`` until ``stop`` is set. A database error is logged and the next sweep retries:
    the sweep must not take the worker (and the runs it holds) down with it."""
    while not stop.is_set():
        try:
            expired = await expire_overdue(sessions, settings, audit=audit, bus=bus)
        except DBAPIError as exc:
            logger.warning("approvals.sweep_failed", extra={"error": type(exc.orig).__name__})
        else:
            if expired:
                logger.info("approvals.timed_out", extra={"approvals": [approval.id for approval in expired]})
        try:
            await asyncio.wait_for(stop.wait(), interval_s)
        except TimeoutError:
            continue

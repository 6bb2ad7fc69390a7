"""Periodic signed checkpoints: every ``audit_checkpoint_interval_s`` the worker (``finrpa worker``, and the
embedded worker of ``finrpa serve``) signs a checkpoint for each organisation whose chain grew since its last one.

A checkpoint is only signed over a chain that verifies (:meth:`AuditService.checkpoint`). The sweep verifies
incrementally: only the rows after the newest signature-checked checkpoint are re-read, linked to its last row
hash and added to its Merkle frontier (``finrpa audit verify`` re-checks every row). An organisation whose
chain does not verify is reported and logged as an error, and the others are still checkpointed. Several
processes may sweep at once: each organisation is re-checked just before signing, and a checkpoint of the same
tree is written once (an identical one is accepted, a different one is refused as a fork).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy.exc import DBAPIError

from finrpa.audit.repository import AuditRepository
from finrpa.audit.service import AuditService
from finrpa.exceptions import FinRPAError
from finrpa.tenancy import TenantDatabase, system_context

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckpointOutcome:
    """What one sweep did for one organisation: signed a checkpoint of ``tree_size`` rows, or failed."""

    org_id: str
    tree_size: int
    error: str | None = None


async def checkpoint_due(service: AuditService, database: TenantDatabase) -> list[CheckpointOutcome]:
    """Sign a checkpoint for every organisation with rows after its newest checkpoint."""
    with system_context("audit checkpoints: find organisations with new rows"):
        async with database.sessions() as session, session.begin():
            heads = await AuditRepository(session).chain_heads()
    outcomes = []
    for org_id, head_seq in sorted(heads.items()):
        if head_seq <= await service.checkpoints.latest_tree_size(org_id):
            continue
        outcomes.append(await _checkpoint_one(service, database, org_id))
    return outcomes


async def _checkpoint_one(service: AuditService, database: TenantDatabase, org_id: str) -> CheckpointOutcome:
    try:
        with system_context("audit checkpoints: sign the grown chain", org_id=org_id):
            async with database.sessions() as session, session.begin():
                signed = await service.checkpoint(session, org_id, incremental=True)
    except FinRPAError as exc:  # the chain did not verify, or the store holds a different checkpoint
        logger.error("audit.checkpoint_refused", extra={"org_id": org_id, "error": exc.message})
        return CheckpointOutcome(org_id, 0, exc.message)
    size = signed.checkpoint.tree_size if signed else 0
    logger.info("audit.checkpoint_signed", extra={"org_id": org_id, "tree_size": size})
    return CheckpointOutcome(org_id, size)


async def run_periodic_checkpoints(
    service: AuditService, database: TenantDatabase, stop: asyncio.Event, interval_s: float
) -> None:
    """Sweep every ``interval_s`` until ``stop`` is set (the first sweep after a random part of the interval, so
    that processes started together do not sweep together). Errors are logged; the next sweep retries."""
    delay = random.uniform(0, interval_s)  # spreading start times, not security
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), delay)
            return
        except TimeoutError:
            pass
        try:
            await checkpoint_due(service, database)
        except (DBAPIError, OSError) as exc:
            logger.warning("audit.checkpoint_sweep_failed", extra={"error": f"{type(exc).__name__}: {exc}"})
        delay = interval_s


@contextlib.asynccontextmanager
async def periodic_checkpoints(
    service: AuditService, database: TenantDatabase, interval_s: float
) -> AsyncIterator[asyncio.Task[None] | None]:
    """Run :func:`run_periodic_checkpoints` in the background for the duration of the block (0 s: off)."""
    if interval_s <= 0:
        yield None
        return
    stop = asyncio.Event()
    task = asyncio.create_task(
        run_periodic_checkpoints(service, database, stop, interval_s), name="finrpa-audit-checkpoints"
    )
    try:
        yield task
    finally:
        stop.set()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

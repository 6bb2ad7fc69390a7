"""Workers: each `finrpa worker` announces itself with heartbeats; a supervisor (whoever holds the advisory lock)
declares a worker dead when its heartbeat is older than ``dead_after_s`` and hands that worker's runs to the
live workers through the durable engine."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import DateTime, Integer, String, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, utcnow
from finrpa.db.engine import unit_of_work

logger = logging.getLogger(__name__)

SUPERVISOR_LOCK_KEY = 0x46494E525041  # "FINRPA": one supervisor at a time across all workers


class Worker(Base):
    """A worker process (platform-wide, not tenant data)."""

    __tablename__ = "workers"

    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    host: Mapped[str] = mapped_column(String(200))
    pid: Mapped[int] = mapped_column(Integer)
    slots: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(20), index=True)  # alive | dead | stopped
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


async def register(sessions: async_sessionmaker[AsyncSession], worker_id: str, slots: int) -> None:
    async with unit_of_work(sessions) as session:
        now = utcnow()
        worker = await session.get(Worker, worker_id)
        if worker is None:
            session.add(
                Worker(
                    id=worker_id,
                    host=socket.gethostname(),
                    pid=os.getpid(),
                    slots=slots,
                    status="alive",
                    started_at=now,
                    heartbeat_at=now,
                )
            )
        else:
            worker.status, worker.heartbeat_at, worker.pid, worker.slots = "alive", now, os.getpid(), slots


async def beat(sessions: async_sessionmaker[AsyncSession], worker_id: str) -> bool:
    """Record that the worker lives; False when it was declared dead meanwhile (its runs went to others)."""
    async with unit_of_work(sessions) as session:
        worker = await session.get(Worker, worker_id)
        if worker is None or worker.status != "alive":
            return False
        worker.heartbeat_at = utcnow()
        return True


async def mark_stopped(sessions: async_sessionmaker[AsyncSession], worker_id: str) -> None:
    """After a graceful stop: the supervisor hands whatever the worker left unfinished to live workers."""
    async with unit_of_work(sessions) as session:
        worker = await session.get(Worker, worker_id)
        if worker is not None and worker.status == "alive":
            worker.status = "stopped"


async def find_dead(session: AsyncSession, dead_after_s: float, now: datetime, *, supervisor: str = "") -> list[Worker]:
    """Workers whose runs must move: alive ones silent for ``dead_after_s``, and ones that stopped (a stopped worker
    may have left runs mid-way). The supervisor never declares itself dead: it is evidently running."""
    cutoff = now - timedelta(seconds=dead_after_s)
    silent = (Worker.status == "alive") & (Worker.heartbeat_at < cutoff)
    statement = select(Worker).where(silent | (Worker.status == "stopped"), Worker.id != supervisor).with_for_update()
    return list((await session.execute(statement)).scalars())


async def _supervisor_lock(session: AsyncSession) -> bool:
    """Only one supervisor acts at a time (PostgreSQL advisory lock; SQLite's single writer serialises)."""
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        result = await session.execute(text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": SUPERVISOR_LOCK_KEY})
        return bool(result.scalar())
    return True


async def supervise_once(
    sessions: async_sessionmaker[AsyncSession],
    recover: Callable[[list[str]], int],
    dead_after_s: float,
    supervisor: str = "",
) -> list[str]:
    """Declare stale (and stopped) workers dead and give their runs to live workers; returns their ids."""
    async with unit_of_work(sessions) as session:
        if not await _supervisor_lock(session):
            return []
        dead = await find_dead(session, dead_after_s, utcnow(), supervisor=supervisor)
        for worker in dead:
            worker.status = "dead"
        ids = [worker.id for worker in dead]
    if ids:
        moved = await asyncio.to_thread(recover, ids)  # the engine's recovery does blocking database work
        logger.warning("workers declared dead; their runs moved to live workers", extra={"workers": ids, "runs": moved})
    return ids


async def run_heartbeats(
    sessions: async_sessionmaker[AsyncSession], worker_id: str, stop: asyncio.Event, interval_s: float
) -> None:
    """Beat until stopped. A worker that finds itself declared dead (it was paused or cut off for longer than
    ``dead_after``) stops: its runs now belong to other workers, and its fencing token no longer lets it act."""
    while not stop.is_set():
        if not await beat(sessions, worker_id):
            logger.error("this worker was declared dead and its runs were moved; it stops", extra={"worker": worker_id})
            stop.set()
            return
        try:
            await asyncio.wait_for(stop.wait(), interval_s)
        except TimeoutError:
            continue


async def run_supervisor(
    sessions: async_sessionmaker[AsyncSession],
    recover: Callable[[list[str]], int],
    stop: asyncio.Event,
    interval_s: float,
    dead_after_s: float,
    worker_id: str = "",
) -> None:
    while not stop.is_set():
        await supervise_once(sessions, recover, dead_after_s, worker_id)
        try:
            await asyncio.wait_for(stop.wait(), interval_s)
        except TimeoutError:
            continue

"""Workers: each `finrpa worker` announces itself with heartbeats; a supervisor (whoever holds the advisory lock)
declares a worker dead when its heartbeat is older than ``dead_after_s``, ends its database sessions (each worker's
carry its own ``application_name``), and hands that worker's runs to the live workers through the durable engine.

Ending the sessions matters for a worker that is paused rather than gone (SIGSTOP, a frozen VM): its open
transaction keeps its row locks — the run's fencing row, an approval request it was inserting — and PostgreSQL's
idle-in-transaction timeout does not end a session whose statement is still in progress, so the worker taking
the run over would wait on those locks."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import DateTime, Integer, String, bindparam, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.pool import NullPool

from finrpa.db.base import Base, utcnow
from finrpa.db.engine import APPLICATION_NAME_MAX_BYTES, create_engine, unit_of_work
from finrpa.exceptions import LockTimeoutError

logger = logging.getLogger(__name__)

SUPERVISOR_LOCK_KEY = 0x46494E525041  # "FINRPA": one supervisor at a time across all workers
APPLICATION_PREFIX = "finrpa-worker:"
TERMINATE_WAIT_S = 5.0  # how long the supervisor waits for an ended session to be gone (and its locks released)


def worker_application_name(worker_id: str) -> str:
    """The PostgreSQL ``application_name`` of every session of worker ``worker_id``: ``finrpa-worker:<id>``. An id
    that would not survive as is (over 63 bytes, or not printable ASCII) is shortened to a prefix and a hash of
    the whole id, so the supervisor, which derives the name from the id alike, still finds exactly its sessions."""
    name = APPLICATION_PREFIX + worker_id
    if len(name.encode()) <= APPLICATION_NAME_MAX_BYTES and name.isascii() and name.isprintable():
        return name
    digest = hashlib.sha256(worker_id.encode()).hexdigest()[:16]
    readable = "".join(c if c.isascii() and c.isprintable() else "_" for c in worker_id)
    keep = APPLICATION_NAME_MAX_BYTES - len(APPLICATION_PREFIX) - len(digest) - 1
    return f"{APPLICATION_PREFIX}{readable[:keep]}~{digest}"


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
    """After its engine stopped: the supervisor hands whatever the worker left unfinished to live workers.

    Also after it was declared dead: between being declared dead and noticing it, a worker may have taken a run
    from the queue (one its supervisor had just moved); marked stopped, it is handed over once more, and runs
    handed over before now belong to other workers, so that moves nothing twice."""
    async with unit_of_work(sessions) as session:
        worker = await session.get(Worker, worker_id)
        if worker is not None and worker.status in ("alive", "dead"):
            worker.status = "stopped"


@dataclass(frozen=True)
class EndedSession:
    """A database session of a dead worker that the supervisor ended."""

    worker_id: str
    pid: int
    state: str | None  # what the session was doing: "active", "idle in transaction", …
    gone: bool  # the session was gone (its locks released) within TERMINATE_WAIT_S


class SessionTerminator:
    """Ends the PostgreSQL sessions of workers declared dead, so the locks their open transactions hold are
    released before their runs move to live workers.

    It connects as the role FINRPA_DATABASE_URL logs in with, without the application's ``SET ROLE finrpa_app``:
    PostgreSQL lets a role end sessions that logged in as that same role, which every worker's sessions did. The
    application role gets no such right (``pg_signal_backend`` would let it end any non-superuser session of
    the whole cluster, and still none of a superuser). Only sessions of this database whose application_name is
    exactly a dead worker's are ended.

    SQLite: nothing to do. There are no sessions to end; a paused process holds the file's single write lock,
    which is why workers share a database only on PostgreSQL."""

    def __init__(self, url: str, application_name: str, *, wait_s: float = TERMINATE_WAIT_S) -> None:
        self.wait_s = wait_s
        self._engine = None
        if not url.startswith("sqlite"):
            self._engine = create_engine(url, application_name=application_name, poolclass=NullPool)

    async def terminate(self, worker_ids: Sequence[str]) -> list[EndedSession]:
        if self._engine is None or not worker_ids:
            return []
        names = {worker_application_name(worker_id): worker_id for worker_id in worker_ids}
        statement = text(
            "SELECT pid, application_name, state, pg_terminate_backend(pid, :wait_ms) AS gone "
            "FROM pg_stat_activity WHERE datname = current_database() AND application_name IN :names "
            "AND pid <> pg_backend_pid()"
        ).bindparams(bindparam("names", expanding=True))
        async with self._engine.begin() as connection:
            rows = await connection.execute(statement, {"wait_ms": int(self.wait_s * 1000), "names": list(names)})
            return [EndedSession(names[row.application_name], row.pid, row.state, bool(row.gone)) for row in rows]

    async def dispose(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()


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


async def _alive(session: AsyncSession, worker_id: str) -> bool:
    worker = await session.get(Worker, worker_id)
    return worker is not None and worker.status == "alive"


async def find_silent(session: AsyncSession, dead_after_s: float, now: datetime, *, supervisor: str = "") -> list[str]:
    """Alive workers silent for ``dead_after_s`` (read without locking their rows: a paused worker may hold one)."""
    cutoff = now - timedelta(seconds=dead_after_s)
    statement = select(Worker.id).where(Worker.status == "alive", Worker.heartbeat_at < cutoff, Worker.id != supervisor)
    return list((await session.execute(statement)).scalars())


async def end_sessions(terminator: SessionTerminator, worker_ids: Sequence[str], supervisor: str) -> None:
    """End the silent workers' database sessions, recorded in the log as the supervisor's act. A failure is logged
    and does not stop the handover: the backstops (idle-in-transaction timeout, lock_timeout) still hold. A worker
    that beats again in the moment between is not declared dead after all; it loses its open transactions (they
    fail like any database error and are tried again) and carries on."""
    try:
        ended = await terminator.terminate(worker_ids)
    except DBAPIError as exc:
        reason = _first_line(exc)
        logger.error(
            "supervisor %s could not end the database sessions of workers %s (%s); their locks go only with the "
            "server's timeouts",
            supervisor,
            ", ".join(worker_ids),
            reason,
            extra={"workers": list(worker_ids), "supervisor": supervisor, "reason": reason},
        )
        return
    for worker_id in worker_ids:
        mine = [session for session in ended if session.worker_id == worker_id]
        if mine:
            states = ", ".join(f"{s.pid} {s.state or '-'}{'' if s.gone else ' (still exiting)'}" for s in mine)
            logger.warning(
                "supervisor %s ended the database sessions of worker %s, declared dead, releasing their locks: %s",
                supervisor,
                worker_id,
                states,
                extra={
                    "worker": worker_id,
                    "supervisor": supervisor,
                    "sessions": [{"pid": s.pid, "state": s.state, "gone": s.gone} for s in mine],
                },
            )


async def supervise_once(
    sessions: async_sessionmaker[AsyncSession],
    recover: Callable[[list[str]], int],
    dead_after_s: float,
    supervisor: str = "",
    terminator: SessionTerminator | None = None,
) -> list[str]:
    """Declare stale (and stopped) workers dead and give their runs to live workers; returns their ids. A stale
    worker's database sessions are ended first (with ``terminator``), so no lock of its stays behind — not on its
    own ``workers`` row, which is locked next, and not on anything its runs need."""
    async with unit_of_work(sessions) as session:
        if not await _supervisor_lock(session):
            return []
        if supervisor and not await _alive(session, supervisor):
            return []  # paused long enough to be declared dead itself: it is about to stop, not to judge others
        if terminator is not None:
            silent = await find_silent(session, dead_after_s, utcnow(), supervisor=supervisor)
            if silent:
                await end_sessions(terminator, silent, supervisor)
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
    ``dead_after``) stops: its runs now belong to other workers, and its fencing token no longer lets it act.
    A beat that fails on the database (a lock wait that timed out; a session the supervisor ended while this
    worker was paused) is tried again at the next interval, on a new session: it must not end the beating, or a
    worker declared dead would never learn it and stop."""
    while not stop.is_set():
        try:
            alive = await beat(sessions, worker_id)
        except (LockTimeoutError, DBAPIError) as exc:
            logger.warning("heartbeat of worker %s failed (%s); trying again", worker_id, _first_line(exc))
            alive = True
        if not alive:
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
    terminator: SessionTerminator | None = None,
) -> None:
    while not stop.is_set():
        try:
            await supervise_once(sessions, recover, dead_after_s, worker_id, terminator)
        except (LockTimeoutError, DBAPIError) as exc:  # the next round finds the same workers again
            logger.warning("supervision by %s failed (%s); it tries again next round", worker_id, _first_line(exc))
        try:
            await asyncio.wait_for(stop.wait(), interval_s)
        except TimeoutError:
            continue


def _first_line(exc: Exception) -> str:
    message = str(getattr(exc, "orig", None) or exc)
    return next((line for line in message.splitlines() if line.strip()), type(exc).__name__)

"""Async engines and sessions for SQLite (embedded) and PostgreSQL (production).

On PostgreSQL every connection says who it is (``application_name``: ``finrpa`` or a worker's own name, so the
supervisor can end a dead worker's sessions) and no statement waits for a lock longer than ``lock_timeout``: such
a wait ends in :class:`~finrpa.exceptions.LockTimeoutError`, which is retryable."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, make_url, text
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from finrpa.db.sqlite import BUSY_TIMEOUT_S, inline_connector
from finrpa.exceptions import DatabaseUnavailableError, LockTimeoutError
from finrpa.kit.urls import mask_url_password

CONNECT_TIMEOUT_S = 5.0
APPLICATION_NAME = "finrpa"
APPLICATION_NAME_MAX_BYTES = 63  # PostgreSQL cuts longer names (NAMEDATALEN - 1), so they would not match
IDLE_IN_TRANSACTION_TIMEOUT_S = 15.0
LOCK_NOT_AVAILABLE = "55P03"  # SQLSTATE of a lock wait that reached lock_timeout


def create_engine(
    url: str,
    *,
    application_name: str = APPLICATION_NAME,
    lock_timeout_s: float | None = None,
    **kwargs: Any,
) -> AsyncEngine:
    """Create an engine with the settings FinRPA needs on each backend.

    ``application_name`` names the PostgreSQL sessions (``pg_stat_activity``); ``lock_timeout_s`` bounds every
    lock wait of its statements (None or 0: the server's setting). Both do nothing on SQLite, whose waits are
    bounded by its busy timeout."""
    if url.startswith("sqlite"):
        return _sqlite_engine(url, **kwargs)
    check_application_name(application_name)
    # A process paused or cut off inside a transaction must not hold row locks (e.g. a run's fencing row)
    # forever: PostgreSQL ends such sessions after a while, and the locks go with them. That covers a session
    # idle inside a transaction only; the supervisor ends a dead worker's sessions by name, and lock_timeout
    # is the backstop for whatever else holds a lock.
    server_settings = {
        "application_name": application_name,
        "idle_in_transaction_session_timeout": str(int(IDLE_IN_TRANSACTION_TIMEOUT_S * 1000)),
    }
    if lock_timeout_s:
        server_settings["lock_timeout"] = str(max(1, int(lock_timeout_s * 1000)))
    connect_args = {"timeout": CONNECT_TIMEOUT_S, "server_settings": server_settings}
    engine = create_async_engine(url, pool_pre_ping=True, connect_args=connect_args, **kwargs)
    event.listen(engine.sync_engine, "handle_error", _lock_timeout_error)
    return engine


def check_application_name(name: str) -> None:
    """PostgreSQL keeps printable ASCII of at most 63 bytes; anything else would be changed and not match."""
    if not name or len(name) > APPLICATION_NAME_MAX_BYTES or not all(" " <= c <= "~" for c in name):
        raise ValueError(f"{name!r} is not a PostgreSQL application_name (1-63 printable ASCII characters).")


def _lock_timeout_error(context: ExceptionContext) -> None:
    """Turn a lock wait that reached lock_timeout into FinRPA's retryable error; the transaction is rolled back
    as for any database error, and the statement can be tried again in a new one."""
    original = context.original_exception
    if getattr(original, "sqlstate", None) == LOCK_NOT_AVAILABLE:
        raise LockTimeoutError(
            "A database statement waited too long for a lock held by another session; it was rolled back and "
            "can be tried again (if it keeps happening, look for a stuck session in pg_stat_activity)."
        ) from context.sqlalchemy_exception


def _sqlite_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """The embedded database: a file (or memory) opened as :class:`~finrpa.db.sqlite.InlineConnection`, whose
    statements run in the event loop's thread and wait for a lock asynchronously; a URL with query options keeps
    aiosqlite's thread per connection and SQLite's own busy wait."""
    parsed = make_url(url)
    if parsed.query:
        engine = create_async_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S}, **kwargs)
        busy_timeout_ms = int(BUSY_TIMEOUT_S * 1000)
    else:
        engine = create_async_engine(url, async_creator=inline_connector(parsed.database or ":memory:"), **kwargs)
        busy_timeout_ms = 0  # never block the loop: InlineConnection waits for the lock
    _configure_sqlite(engine, busy_timeout_ms)
    return engine


def _configure_sqlite(engine: AsyncEngine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def unit_of_work(factory: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """One transaction: commits when the block ends normally, rolls back on any error."""
    async with factory() as session, session.begin():
        yield session


async def check_reachable(engine: AsyncEngine) -> None:
    """Raise DatabaseUnavailableError with one clear sentence if the database cannot be reached."""
    url = mask_url_password(engine.url.render_as_string(hide_password=False))
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT_S * 2):
            async with engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
    except (OSError, OperationalError, DBAPIError, TimeoutError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0] or type(exc).__name__
        raise DatabaseUnavailableError(
            f"Cannot reach the database at {url} ({reason}). Check that the server is running and that "
            "FINRPA_DATABASE_URL is right, or unset FINRPA_DATABASE_URL to use the embedded SQLite file."
        ) from exc

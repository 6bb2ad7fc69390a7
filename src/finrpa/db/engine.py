"""Async engines and sessions for SQLite (embedded) and PostgreSQL (production)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from finrpa.exceptions import DatabaseUnavailableError
from finrpa.kit.urls import mask_url_password

CONNECT_TIMEOUT_S = 5.0


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """Create an engine with the settings FinRPA needs on each backend."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30}, **kwargs)
        _configure_sqlite(engine)
        return engine
    # A process paused or cut off inside a transaction must not hold row locks (e.g. a run's fencing row)
    # forever: PostgreSQL ends such sessions after a while, and the locks go with them.
    server_settings = {"application_name": "finrpa", "idle_in_transaction_session_timeout": "15000"}
    connect_args = {"timeout": CONNECT_TIMEOUT_S, "server_settings": server_settings}
    return create_async_engine(url, pool_pre_ping=True, connect_args=connect_args, **kwargs)


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
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

"""The embedded database's connections: statements in the loop's thread, lock waits that never block the loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from finrpa.db.engine import create_engine
from finrpa.db.sqlite import InlineConnection, inline_connector


async def _open(path: Path, busy_timeout_s: float = 30.0) -> InlineConnection:
    return await inline_connector(str(path), busy_timeout_s)()


async def test_statements_run_in_the_event_loops_thread(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    threads: list[int] = []
    try:
        async with engine.connect() as connection:
            raw = await connection.get_raw_connection()
            assert isinstance(raw.driver_connection, InlineConnection)
            await raw.driver_connection.create_function("thread_id", 0, lambda: threads.append(threading.get_ident()))
            await connection.execute(text("SELECT thread_id()"))
            busy_timeout = (await connection.execute(text("PRAGMA busy_timeout"))).scalar_one()
    finally:
        await engine.dispose()
    assert threads == [threading.get_ident()]
    assert busy_timeout == 0  # SQLite itself never waits for a lock: that would stop the loop


async def test_a_url_with_options_keeps_aiosqlites_thread(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///file:{tmp_path / 'db.sqlite'}?mode=rwc&uri=true")
    try:
        async with engine.connect() as connection:
            raw = await connection.get_raw_connection()
            assert not isinstance(raw.driver_connection, InlineConnection)
            assert (await connection.execute(text("PRAGMA busy_timeout"))).scalar_one() == 30_000
    finally:
        await engine.dispose()


async def test_a_write_waits_for_the_lock_without_blocking_the_loop(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    holder, waiter = await _open(path), await _open(path)
    try:
        await holder.execute("PRAGMA journal_mode=WAL")
        await holder.execute("CREATE TABLE t (x INTEGER)")
        await holder.commit()
        await holder.execute("INSERT INTO t VALUES (1)")  # holds the write lock until it commits
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        ticker = asyncio.create_task(tick())
        insert = asyncio.create_task(waiter.execute("INSERT INTO t VALUES (2)"))
        await asyncio.sleep(0.2)
        assert not insert.done()  # still waiting for the lock ...
        assert ticks >= 10  # ... while the loop went on
        await holder.commit()
        await asyncio.wait_for(insert, 1)
        await waiter.commit()
        ticker.cancel()
        rows = await (await holder.execute("SELECT x FROM t ORDER BY x")).fetchall()
        assert [row[0] for row in rows] == [1, 2]
    finally:
        await holder.close()
        await waiter.close()


async def test_a_lock_held_past_the_busy_timeout_raises_database_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    holder, waiter = await _open(path), await _open(path, busy_timeout_s=0.1)
    try:
        await holder.execute("CREATE TABLE t (x INTEGER)")
        await holder.commit()
        await holder.execute("INSERT INTO t VALUES (1)")
        started = asyncio.get_running_loop().time()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            await waiter.execute("INSERT INTO t VALUES (2)")
        assert asyncio.get_running_loop().time() - started >= 0.1
        await waiter.rollback()
        await holder.commit()
    finally:
        await holder.close()
        await waiter.close()


async def test_a_stale_snapshot_is_raised_at_once(tmp_path: Path) -> None:
    """Waiting cannot make a read snapshot current again (SQLite does not wait for it either)."""
    path = tmp_path / "db.sqlite"
    writer, reader = await _open(path), await _open(path, busy_timeout_s=5)
    try:
        await writer.execute("PRAGMA journal_mode=WAL")
        await writer.execute("CREATE TABLE t (x INTEGER)")
        await writer.commit()
        await reader.execute("BEGIN")
        await (await reader.execute("SELECT count(*) FROM t")).fetchall()
        await writer.execute("INSERT INTO t VALUES (1)")
        await writer.commit()
        started = asyncio.get_running_loop().time()
        with pytest.raises(sqlite3.OperationalError) as raised:
            await reader.execute("INSERT INTO t VALUES (2)")
        assert raised.value.sqlite_errorcode == sqlite3.SQLITE_BUSY_SNAPSHOT
        assert asyncio.get_running_loop().time() - started < 1
        await reader.rollback()
    finally:
        await writer.close()
        await reader.close()

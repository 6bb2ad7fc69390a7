"""The embedded database's connections: SQLite called in the event loop's own thread.

SQLite is a library in this process, not a server: a run's statements (a row by key, an insert, a fenced update)
take tens of microseconds in it. aiosqlite runs each call on a thread of its own connection and hands the result
back to the event loop, and SQLAlchemy makes three or four such calls a statement (cursor, execute, fetch,
close): measured here, an ORM select by key cost 1.0 ms through those hops and 0.14 ms called directly, and a run
makes about a hundred statements. :class:`InlineConnection` keeps aiosqlite's interface (SQLAlchemy's
``sqlite+aiosqlite`` dialect drives it unchanged) but makes each call directly.

A call must then never block the loop waiting for a lock, which SQLite's own busy handler would do for as long
as another connection (of this process or another) holds the write lock. So the connection's busy timeout is 0:
a statement that finds the database locked fails at once, without effect, and is tried again after an
asynchronous pause (the holder, perhaps a coroutine of this loop, goes on meanwhile), backing off as SQLite's
handler does, for at most :data:`BUSY_TIMEOUT_S` — then the error is raised as before. A stale read snapshot
(``SQLITE_BUSY_SNAPSHOT``) is raised at once: waiting cannot cure it, and SQLite's handler does not wait for it
either.

What this costs: a long statement (a scan of a large table) holds the loop for its duration instead of a thread.
FinRPA's own statements are by key or bounded by a page size; deployments with large histories or many workers
use PostgreSQL.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from functools import partial
from typing import Any

import aiosqlite

BUSY_TIMEOUT_S = 30.0
_PAUSES_S = (0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.025, 0.025, 0.025, 0.05, 0.05, 0.1)  # as SQLite's handler
_RETRIED = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_BUSY_RECOVERY})
_ITER_CHUNK_SIZE = 64  # aiosqlite's default


class InlineConnection(aiosqlite.Connection):
    """An aiosqlite connection whose calls run in the calling thread (the event loop's); see the module."""

    def __init__(self, connector: Callable[[], sqlite3.Connection], busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        super().__init__(connector, _ITER_CHUNK_SIZE)
        self._thread.daemon = True  # it only opens and finally closes the connection
        self.busy_timeout_s = busy_timeout_s

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if not self._running or not self._connection:
            raise ValueError("Connection closed")
        pauses = iter(_PAUSES_S)
        deadline: float | None = None
        while True:
            try:
                return fn(*args, **kwargs)
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode not in _RETRIED:
                    raise
                now = asyncio.get_running_loop().time()
                deadline = deadline if deadline is not None else now + self.busy_timeout_s
                if now >= deadline:
                    raise
                await asyncio.sleep(min(next(pauses, _PAUSES_S[-1]), deadline - now))


def inline_connector(database: str, busy_timeout_s: float = BUSY_TIMEOUT_S) -> Callable[[], Any]:
    """An ``async_creator`` for SQLAlchemy's ``sqlite+aiosqlite`` dialect: opens ``database`` (a file path or
    ``:memory:``) as an :class:`InlineConnection`."""

    async def connect() -> InlineConnection:
        # check_same_thread: the connection is opened on aiosqlite's thread, then used from the loop's; never
        # from two threads at once (each call is awaited). timeout=0: SQLite's busy handler never waits.
        opener = partial(sqlite3.connect, database, timeout=0, check_same_thread=False)
        connection = InlineConnection(opener, busy_timeout_s)
        await connection  # starts aiosqlite's thread and opens the file on it
        return connection

    return connect

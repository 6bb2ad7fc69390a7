"""Verify a long PostgreSQL chain with several processes, each over a contiguous range of seq.

Each worker process opens its own connection, joins the caller's transaction snapshot (``pg_export_snapshot``:
exactly the rows the caller sees), takes the caller's role and tenant settings (so Row-Level Security applies as
for the caller), reads its rows and recomputes each row's hash, the link to the row before it inside the range
and the row's Merkle leaf. The parent checks the links at range boundaries, extends the tree with the leaves in
order and compares every checkpoint it reaches (:meth:`ChainVerifier.absorb`).

Only a clean chain is verified this way. When a range finds anything wrong — a row whose hash or link does not
hold, a seq missing or repeated — or the ranges do not join up, the caller verifies the chain again row by row,
which names the first bad row and why exactly as a single-process verify does.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import multiprocessing
import os
import re
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from finrpa.audit.canonical import SORTED_FIELDS, canonical_row
from finrpa.audit.merkle import LEAF_PREFIX

_SEQ = SORTED_FIELDS.index("seq")
_PREV = SORTED_FIELDS.index("prev_hash")
_HASH = len(SORTED_FIELDS)
_TAIL = 4  # (seq, row_hash) pairs handed back for the verifier's insertion diagnosis window
_SNAPSHOT = re.compile(r"^[0-9A-Fa-f-]+$")
_SETTINGS = ("finrpa.org_id", "finrpa.system", "finrpa.context_reason")
BATCH = 10_000


@dataclass(frozen=True)
class CallerState:
    """What a worker needs to read as the caller does: where, as whom, in which snapshot."""

    dsn: str
    role: str
    settings: tuple[tuple[str, str], ...]
    snapshot: str


@dataclass(frozen=True)
class RangeTask:
    caller: CallerState
    org_id: str
    low: int  # first seq of the range
    high: int  # last seq of the range
    checkpoint_sizes: tuple[int, ...]  # pending checkpoint sizes: hand back the row hash at these seqs


@dataclass(frozen=True)
class RangeResult:
    low: int
    ok: bool  # every seq low..high exactly once, every hash and inner link holds
    first_prev_hash: str
    leaves: bytes  # 32 bytes per row, in order
    row_hashes: dict[int, str]
    tail: tuple[tuple[int, str], ...]
    cpu_s: float = 0.0  # CPU time the worker spent on the range


class RangeChecker:
    """The worker's hot loop: feed a range's rows batch by batch (as they arrive), then take the result."""

    def __init__(self, task: RangeTask) -> None:
        self.task = task
        self._sizes = set(task.checkpoint_sizes)
        self._leaves: list[bytes] = []
        self._row_hashes: dict[int, str] = {}
        self._tail: deque[tuple[int, str]] = deque(maxlen=_TAIL)
        self._expected = task.low
        self._first_prev: str | None = None
        self._last_hash = ""
        self._ok = True

    def feed(self, rows: Sequence[Sequence[Any]]) -> bool:
        """False once a row fails (feed no more)."""
        if not self._ok or not rows:
            return self._ok
        sha256, encode, leaf_prefix = hashlib.sha256, canonical_row, LEAF_PREFIX
        add_leaf, sizes = self._leaves.append, self._sizes
        expected, last_hash = self._expected, self._last_hash
        if self._first_prev is None:
            self._first_prev = last_hash = rows[0][_PREV]
        for row in rows:
            canonical = encode(row)
            stored = row[_HASH]
            if row[_SEQ] != expected or row[_PREV] != last_hash or sha256(canonical).hexdigest() != stored:
                self._ok = False
                return False
            add_leaf(sha256(leaf_prefix + canonical).digest())
            if expected in sizes:
                self._row_hashes[expected] = stored
            last_hash = stored
            expected += 1
        self._tail.extend((int(row[_SEQ]), str(row[_HASH])) for row in rows[-_TAIL:])
        self._expected, self._last_hash = expected, last_hash
        return True

    def result(self) -> RangeResult:
        ok = self._ok and self._expected == self.task.high + 1 and self._first_prev is not None
        return RangeResult(
            self.task.low,
            ok,
            self._first_prev or "",
            b"".join(self._leaves) if ok else b"",
            self._row_hashes,
            tuple(self._tail) if ok else (),
        )


def check_rows(task: RangeTask, batches: Sequence[Sequence[Sequence[Any]]]) -> RangeResult:
    """Check already fetched rows of ``task``'s range."""
    checker = RangeChecker(task)
    for rows in batches:
        if not checker.feed(rows):
            break
    return checker.result()


def verify_range(task: RangeTask) -> RangeResult:
    """Entry point in a worker process."""
    started = time.process_time()
    result = asyncio.run(_fetch_and_check(task))
    return dataclasses.replace(result, cpu_s=time.process_time() - started)


async def _fetch_and_check(task: RangeTask) -> RangeResult:
    import asyncpg  # only in worker processes

    from finrpa.audit.repository import pg_chain_batches

    caller = task.caller
    connection = await asyncpg.connect(caller.dsn)
    try:
        async with connection.transaction(isolation="repeatable_read", readonly=True):
            await connection.execute(f"SET TRANSACTION SNAPSHOT '{caller.snapshot}'")
            await connection.execute(f"SET LOCAL ROLE {_quoted(caller.role)}")
            for name, value in caller.settings:
                await connection.execute("SELECT set_config($1, $2, true)", name, value)
            checker = RangeChecker(task)
            batches = pg_chain_batches(connection, task.org_id, task.low - 1, task.high, BATCH)
            async with contextlib.aclosing(batches):
                async for rows in batches:  # the next batch is on its way while this one is checked
                    if not checker.feed(rows):
                        break
            return checker.result()
    finally:
        await connection.close()


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


async def caller_state(raw: Any, dsn: str) -> CallerState | None:
    """The caller's snapshot, role and tenant settings on its asyncpg connection (inside its transaction)."""
    row = await raw.fetchrow(
        "SELECT pg_export_snapshot() AS snapshot, current_user AS role, "
        + ", ".join(f"current_setting('{name}', true) AS s{index}" for index, name in enumerate(_SETTINGS))
    )
    snapshot = str(row["snapshot"])
    if not _SNAPSHOT.match(snapshot):
        return None
    settings = tuple((name, row[f"s{index}"] or "") for index, name in enumerate(_SETTINGS))
    return CallerState(dsn=dsn, role=str(row["role"]), settings=settings, snapshot=snapshot)


def split(low: int, high: int, parts: int) -> list[tuple[int, int]]:
    """``low..high`` in ``parts`` contiguous ranges of nearly equal length."""
    count = high - low + 1
    parts = max(1, min(parts, count))
    bounds = [low + count * index // parts for index in range(parts + 1)]
    return [(bounds[index], bounds[index + 1] - 1) for index in range(parts)]


_pool: ProcessPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def pool(workers: int) -> ProcessPoolExecutor:
    """One process pool for the life of this process (started on first use; spawned, not forked, because the
    caller runs an event loop and threads)."""
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size != workers:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
            _pool_size = workers
        return _pool


async def run_ranges(
    tasks: Sequence[RangeTask], workers: int, keepalive: Callable[[], Awaitable[object]], every_s: float = 5.0
) -> list[RangeResult]:
    """Run the ranges in the pool; ``keepalive`` is awaited every ``every_s`` seconds meanwhile (the caller's
    transaction must not look idle: the server ends transactions idle for longer than a timeout)."""
    loop = asyncio.get_running_loop()
    executor = pool(workers)
    try:
        gathered = asyncio.gather(*(loop.run_in_executor(executor, verify_range, task) for task in tasks))
        while True:
            done, _ = await asyncio.wait({gathered}, timeout=every_s)
            if done:
                return list(gathered.result())
            await keepalive()
    except BrokenProcessPool:
        _discard(executor)
        raise


def _discard(executor: ProcessPoolExecutor) -> None:
    """Forget a broken pool so that the next verify starts a fresh one."""
    global _pool
    with _pool_lock:
        if _pool is executor:
            _pool = None
    executor.shutdown(wait=False, cancel_futures=True)

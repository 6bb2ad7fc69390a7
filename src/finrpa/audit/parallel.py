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
import hashlib
import multiprocessing
import os
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
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


def check_rows(task: RangeTask, batches: Sequence[Sequence[Sequence[Any]]]) -> RangeResult:
    """The worker's hot loop over fetched rows (also used directly by the tests)."""
    sha256, encode, leaf_prefix = hashlib.sha256, canonical_row, LEAF_PREFIX
    sizes = set(task.checkpoint_sizes)
    leaves: list[bytes] = []
    add_leaf = leaves.append
    row_hashes: dict[int, str] = {}
    expected, last_hash, first_prev = task.low, "", ""
    ok = True
    for rows in batches:
        for row in rows:
            canonical = encode(row)
            stored = row[_HASH]
            if expected == task.low:
                first_prev = last_hash = row[_PREV]
            if row[_SEQ] != expected or row[_PREV] != last_hash or sha256(canonical).hexdigest() != stored:
                ok = False
                break
            add_leaf(sha256(leaf_prefix + canonical).digest())
            if expected in sizes:
                row_hashes[expected] = stored
            last_hash = stored
            expected += 1
        if not ok:
            break
    ok = ok and expected == task.high + 1
    tail = _tail(batches) if ok else ()
    return RangeResult(task.low, ok, first_prev, b"".join(leaves), row_hashes, tail)


def _tail(batches: Sequence[Sequence[Sequence[Any]]]) -> tuple[tuple[int, str], ...]:
    rows = [row for batch in batches[-2:] for row in batch][-_TAIL:]
    return tuple((int(row[_SEQ]), str(row[_HASH])) for row in rows)


def verify_range(task: RangeTask) -> RangeResult:
    """Entry point in a worker process."""
    return asyncio.run(_fetch_and_check(task))


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
            batches = [rows async for rows in pg_chain_batches(connection, task.org_id, task.low - 1, task.high, BATCH)]
            return check_rows(task, batches)
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


async def run_ranges(tasks: Sequence[RangeTask], workers: int) -> list[RangeResult]:
    loop = asyncio.get_running_loop()
    executor = pool(workers)
    return list(await asyncio.gather(*(loop.run_in_executor(executor, verify_range, task) for task in tasks)))

"""Benchmark: audit append throughput with chaining, and verify speed, on PostgreSQL and SQLite side by side.

Targets (FinRPA issue 11): appends ≥ 1,000 rows/s on PostgreSQL; verify ≥ 100,000 rows/s.

Append scenarios, each row through ``AuditService.append`` / ``append_many`` inside its own transaction, as the
run layer writes them (tenant session, application role on PostgreSQL, per-org chain-head lock):

* ``1 writer, 1 row/tx``     one run writing one action per step
* ``8 orgs, 1 row/tx``       eight runs of eight organisations in parallel (independent chains)
* ``4 writers same org``     four runs of one organisation in parallel (they queue on the chain head)
* ``1 writer, 20 rows/tx``   one step committing twenty actions with ``append_many``
* ``  previous ORM path``      the same, through the statements audit used before issue 11 (ORM upsert with
                             executemany, ORM bulk INSERT, a separate head UPDATE), for comparison

Appends are durable: every transaction commits with PostgreSQL's default synchronous_commit (WAL flushed).

Verify reads every row of one organisation, recomputes each row hash, the chain and the Merkle root, and
compares with a signed checkpoint, side by side: in this process only ("1 process"), with the verify worker
processes over seq ranges ("N procs", PostgreSQL; SQLite always verifies in-process), and "rows in memory" (the
same work without the database reads). The machine is shared, so each is also given in CPU-seconds per 100,000
rows (this process plus the workers; the database server's CPU is not counted). "checkpoint sweep" times a
verify after INCREMENT_ROWS more rows: full (every row) against incremental (only the new rows, continuing
from the signed checkpoint's Merkle frontier), as the periodic checkpoint sweep now does.

Run: .venv/bin/python -m bench.bench_audit   (PostgreSQL from FINRPA_BENCH_DATABASE_URL, else
FINRPA_TEST_DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/postgres; a temporary database is created
and dropped. Set FINRPA_BENCH_VERIFY_ROWS to change the verify size, default 50,000.)
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
from sqlalchemy import insert, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.audit.canonical import GENESIS_HASH, SORTED_FIELDS, canonical_row, hash_bytes
from finrpa.audit.checkpoints import DirectoryCheckpointStore
from finrpa.audit.events import AuditEntry
from finrpa.audit.models import AuditChainHead, AuditRecord
from finrpa.audit.parallel import default_workers
from finrpa.audit.repository import AuditRepository
from finrpa.audit.service import AuditService
from finrpa.audit.verification import ChainVerifier, collector_paused
from finrpa.config import normalize_database_url
from finrpa.db.base import utcnow
from finrpa.db.migrate import upgrade
from finrpa.objectstore.links import LinkSigner
from finrpa.objectstore.local import LocalObjectStore
from finrpa.tenancy import TenantDatabase, open_tenant_database, system_context

APPEND_TARGET = 1_000.0
VERIFY_TARGET = 100_000.0
APPEND_ROWS = 400
REPEATS = 3
INCREMENT_ROWS = 1_000
BENCH_KEY = b"bench-audit-key-0123456789abcdef"


def _entry(org_id: str, index: int) -> AuditEntry:
    return AuditEntry(
        org_id=org_id,
        action_type="INPUT_TEXT",
        task_id="run-bench",
        dept_id="dept-a",
        user_id="operator-1",
        action_index=index,
        target_element="textbox 收款账号",
        input_value="6222021234567890",
        raw_value="6222021234567890",
        duration_ms=85,
        details={"url_before": "https://bank.example/transfer", "subtask_id": "s1"},
    )


@asynccontextmanager
async def _database(backend: str, folder: Path) -> AsyncIterator[str]:
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{folder / 'bench.db'}"
        return
    admin = (
        os.environ.get("FINRPA_BENCH_DATABASE_URL")
        or os.environ.get("FINRPA_TEST_DATABASE_URL")
        or "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    plain = normalize_database_url(admin).replace("postgresql+asyncpg://", "postgresql://")
    name = f"finrpa_bench_{uuid.uuid4().hex[:10]}"
    connection = await asyncpg.connect(plain)
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()
    try:
        yield normalize_database_url(f"{plain.rpartition('/')[0]}/{name}")
    finally:
        connection = await asyncpg.connect(plain)
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.close()


async def _writer(
    db: TenantDatabase, service: AuditService, org_id: str, rows: int, per_tx: int, *, previous: bool = False
) -> None:
    with system_context("bench", org_id=org_id):
        for start in range(0, rows, per_tx):
            async with db.sessions() as session, session.begin():
                entries = [_entry(org_id, start + i) for i in range(min(per_tx, rows - start))]
                if previous:
                    await _previous_append_many(service, session, entries)
                else:
                    await service.append_many(session, entries)


async def _previous_append_many(service: AuditService, session: AsyncSession, entries: list[AuditEntry]) -> None:
    """The append statements before issue 11, kept here only to measure against (same chaining and hashing)."""
    org_id = entries[0].org_id
    prepared = [await service._prepare(entry) for entry in entries]  # the same row preparation
    now = utcnow()
    dialect = session.get_bind().dialect.name
    insert_head = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(AuditChainHead)
    upsert = insert_head.on_conflict_do_update(
        index_elements=[AuditChainHead.org_id], set_={"updated_at": insert_head.excluded.updated_at}
    ).returning(AuditChainHead.seq, AuditChainHead.row_hash)
    values = {"org_id": org_id, "seq": 0, "row_hash": GENESIS_HASH, "updated_at": now}
    head = (await session.execute(upsert, [values])).one()
    seq, row_hash = head.seq, head.row_hash
    for row in prepared:
        seq += 1
        row.update(seq=seq, prev_hash=row_hash, created_at=now)
        row_hash = row["row_hash"] = hash_bytes(canonical_row([row[name] for name in SORTED_FIELDS]))
    await session.execute(insert(AuditRecord), prepared)
    advance = (
        update(AuditChainHead)
        .where(AuditChainHead.org_id == org_id)
        .values(seq=seq, row_hash=row_hash, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    await session.execute(advance)


async def _rate(work: Callable[[], Awaitable[None]], rows: int) -> float:
    started = time.perf_counter()
    await work()
    return rows / (time.perf_counter() - started)


async def _append_scenarios(db: TenantDatabase, service: AuditService) -> dict[str, float]:
    def org() -> str:
        return f"bench-{uuid.uuid4().hex[:8]}"

    scenarios: dict[str, Callable[[], Awaitable[None]]] = {
        "1 writer, 1 row/tx": lambda: _writer(db, service, org(), APPEND_ROWS, 1),
        "8 orgs, 1 row/tx": lambda: _gather(*(_writer(db, service, org(), APPEND_ROWS // 8, 1) for _ in range(8))),
        "4 writers same org": lambda: _same_org(db, service, org()),
        "1 writer, 20 rows/tx": lambda: _writer(db, service, org(), APPEND_ROWS * 5, 20),
        "  previous ORM path": lambda: _writer(db, service, org(), APPEND_ROWS * 5, 20, previous=True),
    }
    sizes = {"1 writer, 20 rows/tx": APPEND_ROWS * 5, "  previous ORM path": APPEND_ROWS * 5}
    await _writer(db, service, org(), 20, 1)  # warm up pools and statement caches
    results = {}
    for label, work in scenarios.items():
        rates = [await _rate(work, sizes.get(label, APPEND_ROWS)) for _ in range(REPEATS)]
        results[label] = statistics.median(rates)
    return results


async def _gather(*work: Awaitable[None]) -> None:
    await asyncio.gather(*work)


async def _same_org(db: TenantDatabase, service: AuditService, org_id: str) -> None:
    await _gather(*(_writer(db, service, org_id, APPEND_ROWS // 4, 1) for _ in range(4)))


async def _verify_scenarios(db: TenantDatabase, service: AuditService, rows: int) -> dict[str, float]:
    """Rates in rows/s, and ``cpu:`` entries in CPU-seconds per 100,000 rows (this process plus the verify
    workers; the database server's own CPU is not included)."""
    org_id = f"verify-{uuid.uuid4().hex[:8]}"
    await _writer(db, service, org_id, rows, 500)
    single = _variant(service, verify_workers=1)
    workers = default_workers()
    parallel = _variant(service, verify_workers=workers, verify_parallel_min_rows=1)
    results: dict[str, list[float]] = {}

    def record(label: str, rate: float, cpu_s: float, count: int) -> None:
        results.setdefault(label, []).append(rate)
        results.setdefault(f"cpu:{label}", []).append(cpu_s / count * 100_000)

    with system_context("bench", org_id=org_id):
        async with db.sessions() as session, session.begin():
            await service.checkpoint(session, org_id)
            batches = [list(batch) async for batch in AuditRepository(session).chain_batches(org_id)]
            await parallel.verify(session, org_id)  # start the worker processes before measuring
            for _ in range(REPEATS):
                for label, variant in (("verify db, 1 process", single), (f"verify db, {workers} procs", parallel)):
                    started, started_cpu = time.perf_counter(), time.process_time()
                    report = await variant.verify(session, org_id)
                    elapsed, cpu_s = time.perf_counter() - started, time.process_time() - started_cpu
                    assert report.ok and report.checkpoint is not None, report.summary()
                    record(label, report.rows / elapsed, cpu_s + report.worker_cpu_s, report.rows)
                started, started_cpu = time.perf_counter(), time.process_time()
                verifier = ChainVerifier(org_id, [report.checkpoint])
                with collector_paused():  # as AuditService.verify runs it
                    for batch in batches:
                        verifier.feed(batch)
                assert verifier.finish().ok
                record(
                    "verify rows in memory",
                    rows / (time.perf_counter() - started),
                    time.process_time() - started_cpu,
                    rows,
                )
    await _writer(db, service, org_id, INCREMENT_ROWS, 500)
    with system_context("bench", org_id=org_id):
        async with db.sessions() as session, session.begin():
            for _ in range(REPEATS):
                for label, incremental in (("checkpoint sweep, full", False), ("checkpoint sweep, incr.", True)):
                    started = time.perf_counter()
                    report = await single.verify(session, org_id, incremental=incremental)
                    assert report.ok, report.summary()
                    results.setdefault(f"ms:{label}", []).append((time.perf_counter() - started) * 1000)
    return {label: statistics.median(values) for label, values in results.items()}


def _variant(service: AuditService, **options: int) -> AuditService:
    """The same keys and stores, verifying with other process settings."""
    return AuditService(audit_key=BENCH_KEY, objects=service.objects, checkpoints=service.checkpoints, **options)


async def _measure(backend: str, verify_rows: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        async with _database(backend, Path(folder)) as url:
            await upgrade(url)
            db = open_tenant_database(url)
            service = AuditService(
                audit_key=BENCH_KEY,
                objects=LocalObjectStore(Path(folder) / "objects", LinkSigner(b"k" * 32), base_url="http://bench"),
                checkpoints=DirectoryCheckpointStore(Path(folder) / "checkpoints"),
            )
            try:
                return await _append_scenarios(db, service) | await _verify_scenarios(db, service, verify_rows)
            finally:
                await db.dispose()


def main() -> None:
    verify_rows = int(os.environ.get("FINRPA_BENCH_VERIFY_ROWS", "50000"))
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {REPEATS} runs")
    results = {backend: asyncio.run(_measure(backend, verify_rows)) for backend in ("postgres", "sqlite")}
    pg_results, lite_results = results["postgres"], results["sqlite"]
    print(f"{'rows/s':<28}{'PostgreSQL':>12}{'SQLite':>12}{'PG/target':>12}")
    for label in (name for name in pg_results if ":" not in name):
        target = VERIFY_TARGET if "verify" in label else APPEND_TARGET
        pg, lite = pg_results[label], lite_results[label]
        print(f"{label:<28}{pg:>12,.0f}{lite:>12,.0f}{pg / target:>12.2f}")
    print(f"{'CPU-s per 100k rows verified':<28}{'PostgreSQL':>12}{'SQLite':>12}{'rows/CPU-s':>12}")
    for label in (name for name in pg_results if name.startswith("cpu:")):
        pg, lite = pg_results[label], lite_results[label]
        print(f"{label[4:]:<28}{pg:>12.2f}{lite:>12.2f}{100_000 / pg:>12,.0f}")
    print(f"{f'ms, {verify_rows:,} rows + {INCREMENT_ROWS:,} new':<28}{'PostgreSQL':>12}{'SQLite':>12}")
    for label in (name for name in pg_results if name.startswith("ms:")):
        print(f"{label[3:]:<28}{pg_results[label]:>12,.0f}{lite_results[label]:>12,.0f}")
    print(f"targets: append ≥ {APPEND_TARGET:,.0f} rows/s on PostgreSQL, verify ≥ {VERIFY_TARGET:,.0f} rows/s")
    print("CPU: this process plus the verify workers (the database server's CPU is not counted); on SQLite the")
    print("verify runs in one process whatever the setting. rows/CPU-s is what an otherwise idle core would give.")


if __name__ == "__main__":
    main()

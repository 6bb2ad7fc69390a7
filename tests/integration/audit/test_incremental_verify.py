"""Incremental verify continues from the newest signed checkpoint; parallel verify reports what a sequential one does.

An incremental verify (the periodic checkpoint sweep, ``finrpa audit verify --incremental``) reads only the rows
after the newest signature-checked checkpoint and extends its Merkle frontier; a full verify re-reads every row.
On PostgreSQL a long chain is verified by worker processes over seq ranges; these tests lower the threshold so
that a short chain goes through the workers too, and compare with a single-process verify of the same rows.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from finrpa.audit.checkpointing import checkpoint_due
from finrpa.audit.checkpoints import SignedCheckpoint
from finrpa.audit.parallel import RangeTask, caller_state, verify_range
from finrpa.audit.service import AuditService
from finrpa.audit.verification import ChainReport
from finrpa.tenancy import system_context
from tests.integration.audit.conftest import SharedDatabase
from tests.integration.audit.support import append_rows, checkpoint, rehash, stored_rows, tamper, verify

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _verify(db: SharedDatabase, service: AuditService, org_id: str, *, incremental: bool) -> ChainReport:
    with system_context("test verify", org_id=org_id):
        async with db.app.sessions() as session, session.begin():
            return await service.verify(session, org_id, incremental=incremental)


def _modify(org_id: str, seq: int) -> tuple[str, dict[str, object]]:
    sql = "UPDATE audit_records SET target_element = 'button 取消' WHERE org_id = :org AND seq = :seq"
    return sql, {"org": org_id, "seq": seq}


async def test_the_incremental_root_equals_the_full_recompute(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 5)
    first = await checkpoint(shared_db.app, audit_service, org_id)
    assert first.checkpoint.frontier  # signed together with the root
    for grown in (3, 4):  # sizes 5 → 8 → 12: frontiers of different shapes
        await append_rows(shared_db.app, audit_service, org_id, grown)
        incremental = await _verify(shared_db, audit_service, org_id, incremental=True)
        full = await _verify(shared_db, audit_service, org_id, incremental=False)
        assert incremental.ok and full.ok
        assert incremental.first_seq_checked > 1 and full.first_seq_checked == 1
        assert (incremental.rows, incremental.root_hash, incremental.last_row_hash) == (
            full.rows,
            full.root_hash,
            full.last_row_hash,
        )
        assert incremental.frontier == full.frontier
        assert "incremental" in incremental.summary()
        signed = await checkpoint_from_incremental(shared_db, audit_service, org_id)
        assert signed.checkpoint.root_hash == full.root_hash
    report = await verify(shared_db.app, audit_service, org_id)
    assert report.ok and report.checkpoints_checked == 3 and report.unanchored_rows == 0


async def checkpoint_from_incremental(db: SharedDatabase, service: AuditService, org_id: str) -> SignedCheckpoint:
    with system_context("test checkpoint", org_id=org_id):
        async with db.app.sessions() as session, session.begin():
            signed = await service.checkpoint(session, org_id, incremental=True)
    assert signed is not None
    return signed


async def test_a_row_modified_before_the_checkpoint_is_caught_by_a_full_verify_only(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 6)
    await checkpoint(shared_db.app, audit_service, org_id)
    await append_rows(shared_db.app, audit_service, org_id, 3)
    await tamper(shared_db.owner, _modify(org_id, 4))

    incremental = await _verify(shared_db, audit_service, org_id, incremental=True)
    assert incremental.ok and incremental.first_seq_checked == 7  # rows 1..6 trusted from the signed checkpoint
    full = await _verify(shared_db, audit_service, org_id, incremental=False)
    assert full.problem is not None and (full.problem.kind, full.problem.seq) == ("modified", 4)


async def test_a_row_modified_after_the_checkpoint_is_caught_by_the_incremental_verify(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 6)
    await checkpoint(shared_db.app, audit_service, org_id)
    await append_rows(shared_db.app, audit_service, org_id, 4)
    await tamper(shared_db.owner, _modify(org_id, 8))

    incremental = await _verify(shared_db, audit_service, org_id, incremental=True)
    full = await _verify(shared_db, audit_service, org_id, incremental=False)
    assert incremental.problem == full.problem
    assert incremental.problem is not None and (incremental.problem.kind, incremental.problem.seq) == ("modified", 8)
    # the periodic sweep verifies incrementally: it refuses to sign
    outcomes = {o.org_id: o for o in await checkpoint_due(audit_service, shared_db.app)}
    error = outcomes[org_id].error
    assert error is not None and "modified at seq 8" in error


async def test_a_row_rewritten_and_relinked_right_after_the_checkpoint_is_caught(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    """The first row after the checkpoint must link to the checkpoint's last row hash, not to the stored row."""
    await append_rows(shared_db.app, audit_service, org_id, 4)
    await checkpoint(shared_db.app, audit_service, org_id)
    await append_rows(shared_db.app, audit_service, org_id, 2)
    rows = await stored_rows(shared_db.owner, org_id)
    forged_4 = rehash(rows[3], execution_result="failed")
    forged_5 = rehash(rows[4], prev_hash=forged_4["row_hash"])
    forged_6 = rehash(rows[5], prev_hash=forged_5["row_hash"])
    sql = "UPDATE audit_records SET execution_result = :result, prev_hash = :prev, row_hash = :hash WHERE id = :id"
    await tamper(
        shared_db.owner,
        *(
            (sql, {"result": r["execution_result"], "prev": r["prev_hash"], "hash": r["row_hash"], "id": r["id"]})
            for r in (forged_4, forged_5, forged_6)
        ),
    )
    incremental = await _verify(shared_db, audit_service, org_id, incremental=True)
    assert incremental.problem is not None and incremental.problem.seq == 4  # row 5 no longer links to row 4


@pytest.fixture
def parallel_service(audit_service: AuditService) -> AuditService:
    """The same service, but every chain goes through two worker processes (PostgreSQL only)."""
    audit_service.verify_workers, audit_service.verify_parallel_min_rows = 2, 1
    return audit_service


async def test_parallel_and_sequential_verify_agree_on_a_clean_chain(
    shared_db: SharedDatabase, parallel_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, parallel_service, org_id, 9)
    await checkpoint(shared_db.app, parallel_service, org_id)  # at seq 9: inside the second range
    await append_rows(shared_db.app, parallel_service, org_id, 4)
    parallel = await _verify(shared_db, parallel_service, org_id, incremental=False)
    parallel_service.verify_workers = 1
    sequential = await _verify(shared_db, parallel_service, org_id, incremental=False)
    assert parallel.ok and sequential.ok
    assert (parallel.rows, parallel.root_hash, parallel.last_row_hash, parallel.checkpoints_checked) == (
        sequential.rows,
        sequential.root_hash,
        sequential.last_row_hash,
        sequential.checkpoints_checked,
    )
    assert (parallel.worker_cpu_s > 0) == shared_db.is_postgres  # really verified by the workers on PostgreSQL


@pytest.mark.parametrize(
    ("sql", "kind", "seq"),
    [
        ("UPDATE audit_records SET target_element = 'x' WHERE org_id = :org AND seq = 7", "modified", 7),
        ("DELETE FROM audit_records WHERE org_id = :org AND seq = 5", "deleted", 5),
        ("UPDATE audit_records SET seq = seq + 100 WHERE org_id = :org AND seq = 12", "deleted", 12),
    ],
)
async def test_parallel_verify_names_the_same_first_bad_row(
    shared_db: SharedDatabase, parallel_service: AuditService, org_id: str, sql: str, kind: str, seq: int
) -> None:
    await append_rows(shared_db.app, parallel_service, org_id, 12)
    await checkpoint(shared_db.app, parallel_service, org_id)
    await tamper(shared_db.owner, (sql, {"org": org_id}))
    parallel = await _verify(shared_db, parallel_service, org_id, incremental=False)
    parallel_service.verify_workers = 1
    sequential = await _verify(shared_db, parallel_service, org_id, incremental=False)
    assert parallel.problem is not None and parallel.problem == sequential.problem
    assert (parallel.problem.kind, parallel.problem.seq) == (kind, seq)
    assert replace(parallel, worker_cpu_s=0.0).summary() == sequential.summary()


async def test_a_verify_worker_reads_under_the_callers_role_and_tenant(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    """Row-Level Security holds in the workers: with another organisation's settings a worker sees no rows."""
    if not shared_db.is_postgres:
        pytest.skip("verify workers run on PostgreSQL only")
    await append_rows(shared_db.app, audit_service, org_id, 3)
    with system_context("test verify", org_id=org_id):
        async with shared_db.app.sessions() as session, session.begin():
            connection = await session.connection()  # the transaction and its tenant settings start here
            raw = (await connection.get_raw_connection()).driver_connection
            dsn = connection.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            caller = await caller_state(raw, dsn)
            assert caller is not None and caller.role == "finrpa_app"
            own = await asyncio.to_thread(verify_range, RangeTask(caller, org_id, 1, 3, ()))
            other_settings = tuple(
                (name, "org-other" if name == "finrpa.org_id" else value) for name, value in caller.settings
            )
            elsewhere = replace(caller, settings=other_settings)
            hidden = await asyncio.to_thread(verify_range, RangeTask(elsewhere, org_id, 1, 3, ()))
    assert own.ok and len(own.leaves) == 3 * 32
    assert not hidden.ok and hidden.leaves == b""

"""Periodic checkpoints: the worker signs a checkpoint for each organisation whose chain grew, and only those."""

from __future__ import annotations

import asyncio

import pytest

from finrpa.audit.checkpointing import checkpoint_due, periodic_checkpoints
from finrpa.audit.service import AuditService
from tests.integration.audit.conftest import SharedDatabase
from tests.integration.audit.support import append_rows, checkpoint, tamper, verify

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _sweep(db: SharedDatabase, service: AuditService, *orgs: str) -> dict[str, tuple[int, str | None]]:
    return {o.org_id: (o.tree_size, o.error) for o in await checkpoint_due(service, db.app) if o.org_id in orgs}


async def test_a_sweep_signs_grown_chains_only(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    grown, quiet = org_id, f"{org_id}-quiet"
    await append_rows(shared_db.app, audit_service, grown, 3)
    await append_rows(shared_db.app, audit_service, quiet, 2)
    await checkpoint(shared_db.app, audit_service, quiet)

    assert await _sweep(shared_db, audit_service, grown, quiet) == {grown: (3, None)}
    assert await _sweep(shared_db, audit_service, grown, quiet) == {}  # nothing new: nothing signed
    await append_rows(shared_db.app, audit_service, grown, 2)
    await append_rows(shared_db.app, audit_service, quiet, 1)
    assert await _sweep(shared_db, audit_service, grown, quiet) == {grown: (5, None), quiet: (3, None)}

    assert await audit_service.checkpoints.latest_tree_size(grown) == 5
    report = await verify(shared_db.app, audit_service, grown)
    assert report.ok and report.checkpoints_checked == 2 and report.unanchored_rows == 0


async def test_a_broken_chain_is_reported_and_the_others_still_signed(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    broken, healthy = org_id, f"{org_id}-ok"
    await append_rows(shared_db.app, audit_service, broken, 3)
    await append_rows(shared_db.app, audit_service, healthy, 2)
    await tamper(
        shared_db.owner,
        ("UPDATE audit_records SET user_id = 'someone' WHERE org_id = :org AND seq = 2", {"org": broken}),
    )
    outcomes = await _sweep(shared_db, audit_service, broken, healthy)
    assert outcomes[healthy] == (2, None)
    size, error = outcomes[broken]
    assert size == 0 and error is not None and "modified at seq 2" in error
    assert await audit_service.checkpoints.latest_tree_size(broken) == 0


async def test_the_background_task_checkpoints_until_stopped(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 2)
    async with periodic_checkpoints(audit_service, shared_db.app, 0.05) as task:
        assert task is not None
        for _ in range(200):
            if await audit_service.checkpoints.latest_tree_size(org_id) == 2:
                break
            await asyncio.sleep(0.05)
    assert task.done()
    assert await audit_service.checkpoints.latest_tree_size(org_id) == 2
    async with periodic_checkpoints(audit_service, shared_db.app, 0) as off:
        assert off is None

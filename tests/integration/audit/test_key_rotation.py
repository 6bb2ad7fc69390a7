"""Signing-key rotation: checkpoints of the old and the new key both verify (and say which key), a forged or
altered signature does not, a revoked key's checkpoints are skipped, and exports verify offline with every key."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from finrpa.audit.checkpoints import DirectoryCheckpointStore
from finrpa.audit.export import export_evidence
from finrpa.audit.offline import verify_export
from finrpa.audit.repository import RecordFilter
from finrpa.audit.service import AuditService
from finrpa.exceptions import ValidationFailedError
from finrpa.tenancy import system_context
from tests.integration.audit.conftest import SharedDatabase
from tests.integration.audit.support import append_rows, checkpoint, verify

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_old_and_new_keys_verify_and_a_tampered_signature_fails(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 3)
    old = await checkpoint(shared_db.app, audit_service, org_id)
    new_key = await audit_service.rotate_key()
    assert new_key.key_id != old.checkpoint.key_id
    await append_rows(shared_db.app, audit_service, org_id, 2)
    new = await checkpoint(shared_db.app, audit_service, org_id)
    assert new.checkpoint.key_id == new_key.key_id

    report = await verify(shared_db.app, audit_service, org_id)
    assert report.ok and report.checkpoints_checked == 2, report.summary()
    assert f"by key {new_key.key_id}" in report.summary()

    store = audit_service.checkpoints
    assert isinstance(store, DirectoryCheckpointStore)
    path = store.root / org_id / "checkpoint-000000000003.json"
    document = json.loads(path.read_text())
    signature = bytearray(document["signature"].encode())
    signature[5] = ord("A") if signature[5] != ord("A") else ord("B")
    document["signature"] = signature.decode()
    os.chmod(path, 0o644)
    path.write_text(json.dumps(document))
    problem = (await verify(shared_db.app, audit_service, org_id)).problem
    assert problem is not None and problem.kind == "checkpoint"
    assert f"names key {old.checkpoint.key_id}" in problem.message


async def test_a_revoked_keys_checkpoints_are_skipped_and_the_trail_re_signed(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 2)
    old = await checkpoint(shared_db.app, audit_service, org_id)
    await audit_service.rotate_key()
    with pytest.raises(ValidationFailedError, match="rotate-key"):
        await audit_service.revoke_key((await audit_service.keyring()).active.key_id)
    await audit_service.revoke_key(old.checkpoint.key_id)
    report = await verify(shared_db.app, audit_service, org_id)
    assert report.ok and report.checkpoint is None and report.revoked_checkpoints == 1
    assert "revoked key skipped" in report.summary()
    await append_rows(shared_db.app, audit_service, org_id, 1)
    resigned = await checkpoint(shared_db.app, audit_service, org_id)
    report = await verify(shared_db.app, audit_service, org_id)
    assert report.ok and report.checkpoint == resigned.checkpoint


async def test_an_export_spanning_a_rotation_verifies_with_both_published_keys(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str, tmp_path: Path
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 3, task_id="run-1")
    first = (await audit_service.keyring()).active
    await checkpoint(shared_db.app, audit_service, org_id)
    second = await audit_service.rotate_key()
    await append_rows(shared_db.app, audit_service, org_id, 2, task_id="run-1")
    out = tmp_path / "evidence.zip"
    with system_context("test export", org_id=org_id):
        async with shared_db.app.sessions() as session, session.begin():
            await export_evidence(
                audit_service, session, org_id, RecordFilter(task_id="run-1"), out, exported_by="auditor-1"
            )
    both = verify_export(out, [first.public_pem.encode(), second.public_pem.encode()])
    assert both.ok, both.problems
    assert any(f"signed by key {first.key_id}" in fact for fact in both.facts)
    assert any(f"by key {second.key_id}" in fact for fact in both.facts)
    only_new = verify_export(out, second.public_pem.encode())
    assert not only_new.ok
    assert any(first.key_id in problem and "not" in problem for problem in only_new.problems)

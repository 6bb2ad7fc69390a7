"""Evidence exports: everything an auditor needs, verifiable offline, and every kind of doctoring caught."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from finrpa.audit.export import export_evidence
from finrpa.audit.keys import SigningKey
from finrpa.audit.offline import verify_export
from finrpa.audit.repository import RecordFilter
from finrpa.audit.service import AuditService
from finrpa.exceptions import ConflictError
from finrpa.tenancy import system_context
from tests.integration.audit.conftest import SharedDatabase
from tests.integration.audit.support import append_rows, checkpoint, stored_rows, tamper

pytestmark = pytest.mark.asyncio(loop_scope="module")

PNG = b"\x89PNG\r\n\x1a\n" + b"screen" * 100


async def _export(db: SharedDatabase, service: AuditService, org_id: str, out: Path, task: str | None) -> object:
    with system_context("test export", org_id=org_id):
        async with db.app.sessions() as session, session.begin():
            return await export_evidence(
                service, session, org_id, RecordFilter(task_id=task), out, exported_by="auditor-1"
            )


def _rewrite(source: Path, target: Path, changes: dict[str, bytes]) -> None:
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for name in original.namelist():
            copy.writestr(name, changes.pop(name, original.read(name)))
        for name, data in changes.items():
            copy.writestr(name, data)


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    return tmp_path / "evidence.zip"


async def test_an_export_verifies_offline_with_the_published_key(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str, exported: Path
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 3, task_id="run-1", screenshot_before=PNG)
    await checkpoint(shared_db.app, audit_service, org_id)
    await append_rows(shared_db.app, audit_service, org_id, 2, task_id="run-2")
    await append_rows(shared_db.app, audit_service, org_id, 2, task_id="run-1", screenshot_after=PNG[::-1])
    summary = await _export(shared_db, audit_service, org_id, exported, "run-1")
    assert (summary.rows, summary.screenshots, summary.tree_size) == (5, 5, 7)  # type: ignore[attr-defined]

    result = verify_export(exported, audit_service.signing.public_pem())
    assert result.ok, result.problems
    facts = " ".join(result.facts)
    assert "5 rows" in facts and "5 screenshots match" in facts and "extends the earlier checkpoint of 3" in facts
    with zipfile.ZipFile(exported) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        rows = [json.loads(line)["row"] for line in archive.read("rows.jsonl").decode().splitlines()]
    assert manifest["filter"]["task_id"] == "run-1" and manifest["exported_by"] == "auditor-1"
    assert [row["seq"] for row in rows] == [1, 2, 3, 6, 7]
    last = (await stored_rows(shared_db.owner, org_id))[-1]
    assert last["action_type"] == "EXPORT" and last["executor"] == "human:auditor-1"


async def test_doctored_exports_are_caught(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str, exported: Path, tmp_path: Path
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 3, task_id="run-1", screenshot_before=PNG)
    await _export(shared_db, audit_service, org_id, exported, None)
    trusted = audit_service.signing.public_pem()
    with zipfile.ZipFile(exported) as archive:
        rows = archive.read("rows.jsonl").decode()
        screenshot = next(name for name in archive.namelist() if name.startswith("screenshots/"))

    cases = {
        "row": {"rows.jsonl": rows.replace('"execution_result":"ok"', '"execution_result":"failed"', 1).encode()},
        "screenshot": {screenshot: b"\x89PNG other picture"},
        "extra": {"notes.txt": b"added later"},
    }
    for label, change in cases.items():
        doctored = tmp_path / f"{label}.zip"
        _rewrite(exported, doctored, dict(change))
        result = verify_export(doctored, trusted)
        assert not result.ok, label

    # A forger who re-signs everything with their own key fools only someone who does not pin the key.
    forger = SigningKey(Ed25519PrivateKey.generate())
    with zipfile.ZipFile(exported) as archive:
        manifest = archive.read("manifest.json")
    forged = tmp_path / "forged.zip"
    _rewrite(
        exported,
        forged,
        {"manifest.sig": forger.sign(manifest).encode(), "public_key.pem": forger.public_pem()},
    )
    pinned = verify_export(forged, trusted)
    assert not pinned.ok
    assert any("another key" in problem or "signature" in problem for problem in pinned.problems)


async def test_no_export_from_a_broken_chain(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str, exported: Path
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 3)
    sql = "UPDATE audit_records SET user_id = 'someone-else' WHERE org_id = :org AND seq = 2"
    await tamper(shared_db.owner, (sql, {"org": org_id}))
    with pytest.raises(ConflictError, match="modified at seq 2"):
        await _export(shared_db, audit_service, org_id, exported, None)
    assert not exported.exists()

"""Evidence export: a zip an auditor can verify offline, without the database or any secret.

Contents (format ``finrpa-evidence/1``)::

    manifest.json            what was exported, by whom, the filter, and the SHA-256 of every other file
    manifest.sig             Ed25519 signature of manifest.json (base64)
    rows.jsonl               {"row": <row document>, "row_hash": …} per line, oldest first
    proofs.jsonl             RFC 6962 inclusion proof of each row in the checkpoint's tree
    checkpoint.json          the signed checkpoint the proofs lead to
    previous_checkpoint.json and consistency_proof.json  when an older checkpoint exists
    public_key.pem           the audit public key that signed the manifest (compare its key id with the published one)
    public_keys/<key_id>.pem older audit public keys that signed the checkpoints, after a key rotation
    screenshots/<bucket>/<key>  the screenshots the rows point to
    README.txt

The export refuses to run when the organisation's chain does not verify: evidence is only signed over a
trail that is intact. Exporting is itself an audit event (EXPORT).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.audit.canonical import CHAINED_FIELDS, canonical_json, row_document
from finrpa.audit.checkpoints import SignedCheckpoint
from finrpa.audit.events import AuditEntry, EventType
from finrpa.audit.keyring import Keyring
from finrpa.audit.keys import SigningKey
from finrpa.audit.merkle import MerkleTree, consistency_proof
from finrpa.audit.models import AuditRecord
from finrpa.audit.repository import AuditRepository, RecordFilter
from finrpa.audit.service import AuditService
from finrpa.audit.verification import ChainReport
from finrpa.exceptions import ConflictError, ValidationFailedError
from finrpa.objectstore.port import ObjectNotFoundError

EXPORT_FORMAT = "finrpa-evidence/1"
README = """FinRPA evidence export ({format})

Check it offline with:   finrpa audit verify-export THIS.zip --public-key published-key.pem

What is checked: every file against manifest.json; manifest.sig and checkpoint.json against the public
key; every row's hash recomputed from rows.jsonl (canonical JSON: sorted keys, no spaces, UTF-8); every
row's RFC 6962 inclusion proof (leaf = SHA-256(0x00 || canonical row)) against the checkpoint's root; the
hash chain between consecutive rows; every screenshot against the SHA-256 recorded in its row. Compare the
key id in checkpoint.json with the one your institution published for this FinRPA installation.
"""


@dataclass(frozen=True)
class ExportSummary:
    path: Path
    org_id: str
    rows: int
    screenshots: int
    tree_size: int
    root_hash: str
    manifest_sha256: str
    problems: tuple[str, ...]


async def export_evidence(
    service: AuditService,
    session: AsyncSession,
    org_id: str,
    criteria: RecordFilter,
    destination: Path,
    *,
    exported_by: str,
) -> ExportSummary:
    """Write the evidence zip for the rows of ``org_id`` matching ``criteria`` to ``destination``."""
    report = await service.verify(session, org_id, keep_leaves=True)
    if not report.ok:
        raise ConflictError(f"Cannot export evidence: {report.summary()} Investigate the audit trail first.")
    records = await AuditRepository(session).matching_in_order(org_id, criteria, service.export_max_rows + 1)
    if not records:
        raise ValidationFailedError("No audit rows match this filter; nothing to export.")
    if len(records) > service.export_max_rows:
        raise ValidationFailedError(
            f"More than {service.export_max_rows} rows match; narrow the filter (task, dates) and export in parts."
        )
    checkpoint = await service.checkpoint_from(report)
    if checkpoint is None:  # cannot happen with rows present; kept so the type is exact
        raise ConflictError("The audit trail has no rows to sign.")
    previous = await _previous_checkpoint(service, org_id, checkpoint)
    ring, key = await service.keyring(), await service.active_key()
    files = _bundle_files(key, ring, report, records, checkpoint, previous)
    problems = await _add_screenshots(service, records, files)
    summary = await asyncio.to_thread(
        _write_zip, key, destination, org_id, criteria, exported_by, report, records, files, problems
    )
    await service.append(session, _export_event(org_id, exported_by, criteria, summary))
    return summary


async def _previous_checkpoint(
    service: AuditService, org_id: str, current: SignedCheckpoint
) -> SignedCheckpoint | None:
    stored = [SignedCheckpoint.from_json(content) for _, content in await service.checkpoints.load(org_id)]
    older = [signed for signed in stored if signed.checkpoint.tree_size < current.checkpoint.tree_size]
    return older[-1] if older else None


def _bundle_files(
    key: SigningKey,
    ring: Keyring,
    report: ChainReport,
    records: list[AuditRecord],
    checkpoint: SignedCheckpoint,
    previous: SignedCheckpoint | None,
) -> dict[str, bytes]:
    tree = MerkleTree(report.leaves)
    rows, proofs = [], []
    for record in records:
        document = row_document({name: getattr(record, name) for name in CHAINED_FIELDS})
        rows.append(canonical_json({"row": document, "row_hash": record.row_hash}))
        path = [node.hex() for node in tree.inclusion_proof(record.seq - 1)]
        proofs.append(
            canonical_json(
                {"seq": record.seq, "leaf_index": record.seq - 1, "tree_size": tree.size, "audit_path": path}
            )
        )
    files = {
        "rows.jsonl": ("\n".join(rows) + "\n").encode(),
        "proofs.jsonl": ("\n".join(proofs) + "\n").encode(),
        "checkpoint.json": checkpoint.to_json().encode(),
        "public_key.pem": key.public_pem(),
        "README.txt": README.format(format=EXPORT_FORMAT).encode(),
    }
    for signed in (checkpoint, previous):  # after a rotation, older checkpoints name an older key
        entry = ring.entry(signed.checkpoint.key_id) if signed else None
        if entry is not None and entry.key_id != key.key_id:
            files[f"public_keys/{entry.key_id}.pem"] = entry.public_pem.encode()
    if previous is not None:
        old_size = previous.checkpoint.tree_size
        proof = [node.hex() for node in consistency_proof(report.leaves, old_size)]
        files["previous_checkpoint.json"] = previous.to_json().encode()
        files["consistency_proof.json"] = canonical_json(
            {"old_size": old_size, "new_size": tree.size, "proof": proof}
        ).encode()
    return files


async def _add_screenshots(service: AuditService, records: list[AuditRecord], files: dict[str, bytes]) -> list[str]:
    problems: list[str] = []
    for record in records:
        for phase, key, expected in (
            ("before", record.screenshot_before_key, record.screenshot_before_sha256),
            ("after", record.screenshot_after_key, record.screenshot_after_sha256),
        ):
            if key is None or record.screenshot_bucket is None:
                continue
            try:
                data = await service.objects.get(key, bucket=record.screenshot_bucket)
            except ObjectNotFoundError:
                problems.append(f"row {record.seq}: the {phase} screenshot {key} is missing from the object store")
                continue
            if hashlib.sha256(data).hexdigest() != expected:
                problems.append(f"row {record.seq}: the {phase} screenshot does not match the hash in the row")
            files[f"screenshots/{record.screenshot_bucket}/{key}"] = data
    return problems


def _write_zip(
    key: SigningKey,
    destination: Path,
    org_id: str,
    criteria: RecordFilter,
    exported_by: str,
    report: ChainReport,
    records: list[AuditRecord],
    files: dict[str, bytes],
    problems: list[str],
) -> ExportSummary:
    manifest = {
        "format": EXPORT_FORMAT,
        "org_id": org_id,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "exported_by": exported_by,
        "filter": _filter_dict(criteria),
        "rows": len(records),
        "first_seq": records[0].seq,
        "last_seq": records[-1].seq,
        "tree_size": report.rows,
        "root_hash": report.root_hash,
        "key_id": key.key_id,
        "problems": problems,
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }
    manifest_bytes = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".part")
    with zipfile.ZipFile(partial, "w") as archive:
        archive.writestr("manifest.json", manifest_bytes, zipfile.ZIP_DEFLATED)
        archive.writestr("manifest.sig", key.sign(manifest_bytes), zipfile.ZIP_DEFLATED)
        for name, data in sorted(files.items()):
            compression = zipfile.ZIP_STORED if name.startswith("screenshots/") else zipfile.ZIP_DEFLATED
            archive.writestr(name, data, compression)
    os.replace(partial, destination)
    screenshots = sum(1 for name in files if name.startswith("screenshots/"))
    return ExportSummary(
        path=destination,
        org_id=org_id,
        rows=len(records),
        screenshots=screenshots,
        tree_size=report.rows,
        root_hash=report.root_hash,
        manifest_sha256=hashlib.sha256(manifest_bytes).hexdigest(),
        problems=tuple(problems),
    )


def _filter_dict(criteria: RecordFilter) -> dict[str, object]:
    return {
        "task_id": criteria.task_id,
        "user_id": criteria.user_id,
        "dept_id": criteria.dept_id,
        "action_types": list(criteria.action_types) if criteria.action_types else None,
        "since": criteria.since.isoformat() if criteria.since else None,
        "until": criteria.until.isoformat() if criteria.until else None,
    }


def _export_event(org_id: str, exported_by: str, criteria: RecordFilter, summary: ExportSummary) -> AuditEntry:
    return AuditEntry(
        org_id=org_id,
        action_type=EventType.EXPORT.value,
        executor=f"human:{exported_by}",
        user_id=exported_by,
        task_id=criteria.task_id,
        details={
            "filter": _filter_dict(criteria),
            "rows": summary.rows,
            "screenshots": summary.screenshots,
            "tree_size": summary.tree_size,
            "manifest_sha256": summary.manifest_sha256,
            "file": summary.path.name,
        },
    )

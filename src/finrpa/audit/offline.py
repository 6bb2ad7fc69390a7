"""Offline verification of an evidence export: only the zip and (ideally) the published public key.

Nothing here touches the database, the object store or any secret; an auditor can run it on their own
machine (``finrpa audit verify-export FILE --public-key KEY.pem``) or re-implement it from the README in
the zip.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from finrpa.audit.canonical import canonical_bytes
from finrpa.audit.checkpoints import SignedCheckpoint
from finrpa.audit.keys import load_public_key, public_key_id, signature_valid
from finrpa.audit.merkle import leaf_hash, verify_consistency, verify_inclusion

_MAX_TOTAL_BYTES = 8 * 1024**3
_MAX_MEMBERS = 1_000_000
_SIGNATURE_FILES = {"manifest.json", "manifest.sig"}


@dataclass
class ExportCheck:
    """The verdict: ``ok`` when nothing is wrong; ``facts`` say what was established."""

    problems: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


class _Bundle:
    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.names = set(archive.namelist())

    def read(self, name: str) -> bytes | None:
        return self.archive.read(name) if name in self.names else None


def verify_export(path: Path, trusted_public_key: bytes | Sequence[bytes] | None = None) -> ExportCheck:
    """Check every claim an evidence zip makes; never raises for a bad export, reports it.

    ``trusted_public_key``: the PEM key(s) your institution published — after a key rotation, the current and
    the older ones; each signature is checked with the trusted key its key id names.
    """
    check = ExportCheck()
    if isinstance(trusted_public_key, bytes):
        trusted_public_key = [trusted_public_key]
    try:
        with zipfile.ZipFile(path) as archive:
            if not _sizes_ok(archive, check):
                return check
            _verify_bundle(_Bundle(archive), trusted_public_key, check)
    except (zipfile.BadZipFile, OSError) as exc:
        check.problems.append(f"{path} is not a readable zip file ({exc}).")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        check.problems.append(f"The export is malformed ({type(exc).__name__}: {exc}); it was not produced as is.")
    return check


def _sizes_ok(archive: zipfile.ZipFile, check: ExportCheck) -> bool:
    infos = archive.infolist()
    if len(infos) > _MAX_MEMBERS or sum(info.file_size for info in infos) > _MAX_TOTAL_BYTES:
        check.problems.append("The zip is larger than any FinRPA export could be; refusing to read it.")
        return False
    return True


def _verify_bundle(bundle: _Bundle, trusted: Sequence[bytes] | None, check: ExportCheck) -> None:
    manifest_bytes = bundle.read("manifest.json")
    if manifest_bytes is None:
        check.problems.append("manifest.json is missing.")
        return
    manifest: dict[str, Any] = json.loads(manifest_bytes)
    keys = _public_keys(bundle, trusted, check)
    if keys is None:
        return
    public = keys.get(str(manifest.get("key_id")))
    signature = (bundle.read("manifest.sig") or b"").decode()
    if public is None:
        check.problems.append(f"manifest.json names key {manifest.get('key_id')}, which is not a trusted key.")
    elif not signature_valid(public, manifest_bytes, signature):
        check.problems.append("manifest.sig is not a valid signature of manifest.json: the manifest was changed.")
    _verify_files(bundle, manifest, check)
    checkpoint = _checkpoint(bundle, "checkpoint.json", keys, manifest, check)
    if checkpoint is None:
        return
    rows = _verify_rows(bundle, checkpoint, check)
    _verify_screenshots(bundle, rows, check)
    _verify_consistency(bundle, checkpoint, keys, manifest, check)
    for problem in manifest.get("problems", []):
        check.problems.append(f"recorded at export time: {problem}")
    check.facts.append(
        f"{len(rows)} rows of organisation {manifest.get('org_id')} (seq {manifest.get('first_seq')}.."
        f"{manifest.get('last_seq')}) are in the tree of {checkpoint.checkpoint.tree_size} rows signed "
        f"{checkpoint.checkpoint.issued_at} by key {checkpoint.checkpoint.key_id}"
    )


def _public_keys(
    bundle: _Bundle, trusted: Sequence[bytes] | None, check: ExportCheck
) -> dict[str, Ed25519PublicKey] | None:
    """The keys signatures are checked with, by key id: the trusted ones, else those inside the export."""
    included = [bundle.read("public_key.pem") or b""]
    included += [bundle.read(name) or b"" for name in sorted(bundle.names) if name.startswith("public_keys/")]
    try:
        keys = [load_public_key(pem) for pem in (trusted if trusted else included)]
        inside = {public_key_id(load_public_key(pem)) for pem in included if pem}
    except ValueError as exc:
        check.problems.append(f"A public key cannot be read ({exc}).")
        return None
    by_id = {public_key_id(key): key for key in keys}
    ids = ", ".join(sorted(by_id))
    if not trusted:
        check.facts.append(
            f"checked against the public key(s) inside the export (key id {ids}); pass --public-key with the "
            "key(s) your institution published to rule out a forged export"
        )
    elif inside - set(by_id):
        check.problems.append(
            f"The export carries key(s) {', '.join(sorted(inside - set(by_id)))} that are not trusted: "
            "it was signed by another key."
        )
    else:
        check.facts.append(f"signatures checked against the trusted public key(s) (key id {ids})")
    return by_id


def _verify_files(bundle: _Bundle, manifest: dict[str, Any], check: ExportCheck) -> None:
    listed: dict[str, str] = manifest.get("files", {})
    for name, expected in listed.items():
        data = bundle.read(name)
        if data is None:
            check.problems.append(f"{name} is listed in the manifest but missing from the zip.")
        elif hashlib.sha256(data).hexdigest() != expected:
            check.problems.append(f"{name} does not match its SHA-256 in the manifest: it was changed.")
    for name in sorted(bundle.names - set(listed) - _SIGNATURE_FILES):
        check.problems.append(f"{name} is in the zip but not in the manifest: it was added.")


def _checkpoint(
    bundle: _Bundle, name: str, keys: dict[str, Ed25519PublicKey], manifest: dict[str, Any], check: ExportCheck
) -> SignedCheckpoint | None:
    content = bundle.read(name)
    if content is None:
        check.problems.append(f"{name} is missing.")
        return None
    try:
        signed = SignedCheckpoint.from_json(content)
    except ValueError as exc:
        check.problems.append(f"{name}: {exc}")
        return None
    public = keys.get(signed.checkpoint.key_id)
    if public is None:
        check.problems.append(f"{name} is signed by key {signed.checkpoint.key_id}, which is not a trusted key.")
    elif not signed.signed_by(public):
        check.problems.append(f"{name} does not carry a valid signature: it was changed or forged.")
    if signed.checkpoint.org_id != manifest.get("org_id"):
        check.problems.append(f"{name} is about organisation {signed.checkpoint.org_id}, not the exported one.")
    return signed


def _verify_rows(bundle: _Bundle, checkpoint: SignedCheckpoint, check: ExportCheck) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (bundle.read("rows.jsonl") or b"").decode().splitlines() if line]
    proofs = [json.loads(line) for line in (bundle.read("proofs.jsonl") or b"").decode().splitlines() if line]
    if len(rows) != len(proofs):
        check.problems.append(f"rows.jsonl has {len(rows)} rows but proofs.jsonl has {len(proofs)} proofs.")
    root = bytes.fromhex(checkpoint.checkpoint.root_hash)
    size = checkpoint.checkpoint.tree_size
    previous: dict[str, Any] | None = None
    for entry, proof in zip(rows, proofs, strict=False):
        document: dict[str, Any] = entry["row"]
        seq = document["seq"]
        canonical = canonical_bytes(document)
        if hashlib.sha256(canonical).hexdigest() != entry["row_hash"]:
            check.problems.append(f"row seq {seq}: its content does not match its row_hash (it was modified).")
        path = [bytes.fromhex(node) for node in proof.get("audit_path", [])]
        if proof.get("seq") != seq or not verify_inclusion(seq - 1, size, leaf_hash(canonical), path, root):
            check.problems.append(f"row seq {seq}: its inclusion proof does not lead to the checkpoint's root.")
        if previous is not None and previous["seq"] + 1 == seq and document["prev_hash"] != previous["row_hash"]:
            check.problems.append(f"row seq {seq}: it does not link to row seq {seq - 1} (chain broken).")
        previous = {"seq": seq, "row_hash": entry["row_hash"]}
    return [entry["row"] for entry in rows]


def _verify_screenshots(bundle: _Bundle, rows: list[dict[str, Any]], check: ExportCheck) -> None:
    count = 0
    for document in rows:
        for phase in ("before", "after"):
            key, expected = document.get(f"screenshot_{phase}_key"), document.get(f"screenshot_{phase}_sha256")
            if key is None:
                continue
            data = bundle.read(f"screenshots/{document['screenshot_bucket']}/{key}")
            if data is None:
                check.problems.append(f"row seq {document['seq']}: the {phase} screenshot is not in the export.")
            elif hashlib.sha256(data).hexdigest() != expected:
                check.problems.append(f"row seq {document['seq']}: the {phase} screenshot does not match its row.")
            else:
                count += 1
    check.facts.append(f"{count} screenshots match the SHA-256 recorded in their rows")


def _verify_consistency(
    bundle: _Bundle,
    current: SignedCheckpoint,
    keys: dict[str, Ed25519PublicKey],
    manifest: dict[str, Any],
    check: ExportCheck,
) -> None:
    if "previous_checkpoint.json" not in bundle.names:
        return
    previous = _checkpoint(bundle, "previous_checkpoint.json", keys, manifest, check)
    proof_data = json.loads(bundle.read("consistency_proof.json") or b"{}")
    if previous is None:
        return
    old, new = previous.checkpoint, current.checkpoint
    proof = [bytes.fromhex(node) for node in proof_data.get("proof", [])]
    if verify_consistency(
        old.tree_size, new.tree_size, bytes.fromhex(old.root_hash), bytes.fromhex(new.root_hash), proof
    ):
        check.facts.append(
            f"the tree of {new.tree_size} rows extends the earlier checkpoint of {old.tree_size} rows "
            f"(signed by key {old.key_id})"
        )
    else:
        check.problems.append("consistency_proof.json does not show that the new tree extends the previous checkpoint.")

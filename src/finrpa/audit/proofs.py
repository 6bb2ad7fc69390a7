"""Inclusion proofs for single audit rows: "row N is in the tree this signed checkpoint commits to".

``prove_row`` gives the row's canonical document, its RFC 6962 audit path and the signed checkpoint;
``check_row_proof`` verifies such a proof with nothing but the public key.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.audit.canonical import CHAINED_FIELDS, canonical_bytes, row_document
from finrpa.audit.checkpoints import SignedCheckpoint
from finrpa.audit.merkle import MerkleTree, leaf_hash, verify_inclusion
from finrpa.audit.repository import AuditRepository
from finrpa.audit.service import AuditService
from finrpa.exceptions import ConflictError, NotFoundError


class RowProof(BaseModel):
    """Everything needed to check one row offline."""

    org_id: str
    seq: int
    row: dict[str, object]
    row_hash: str
    leaf_index: int
    tree_size: int
    audit_path: list[str]
    checkpoint: str  # the signed checkpoint file, as JSON


async def prove_row(service: AuditService, session: AsyncSession, org_id: str, seq: int) -> RowProof:
    """Prove row ``seq`` against a freshly signed checkpoint of the whole (verified) trail."""
    record = await AuditRepository(session).by_seq(org_id, seq)
    if record is None:
        raise NotFoundError(f"There is no audit row {seq} in this organisation.")
    report = await service.verify(session, org_id, keep_leaves=True)
    signed = await service.checkpoint_from(report)
    if signed is None or not report.ok:  # checkpoint_from raises on a broken trail; None only without rows
        raise ConflictError("The audit trail has no rows to prove.")
    tree = MerkleTree(report.leaves)
    return RowProof(
        org_id=org_id,
        seq=seq,
        row=row_document({name: getattr(record, name) for name in CHAINED_FIELDS}),
        row_hash=record.row_hash,
        leaf_index=seq - 1,
        tree_size=tree.size,
        audit_path=[node.hex() for node in tree.inclusion_proof(seq - 1)],
        checkpoint=signed.to_json(),
    )


def check_row_proof(proof: RowProof, public: Ed25519PublicKey) -> list[str]:
    """Problems with ``proof`` (empty when the row is proven to be in the signed tree)."""
    problems = []
    signed = SignedCheckpoint.from_json(proof.checkpoint)
    checkpoint = signed.checkpoint
    if not signed.signed_by(public):
        problems.append("the checkpoint's signature is not valid for this public key")
    if checkpoint.org_id != proof.org_id or checkpoint.tree_size != proof.tree_size:
        problems.append("the proof and the checkpoint are about different trees")
    canonical = canonical_bytes(proof.row)
    if hashlib.sha256(canonical).hexdigest() != proof.row_hash:
        problems.append("the row's content does not match its row_hash")
    path = [bytes.fromhex(node) for node in proof.audit_path]
    root = bytes.fromhex(checkpoint.root_hash)
    if not verify_inclusion(proof.leaf_index, proof.tree_size, leaf_hash(canonical), path, root):
        problems.append("the audit path does not lead from the row to the checkpoint's root")
    return problems

"""Signed checkpoints: written once outside the database, verifiable with the exported public key only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from finrpa.audit.checkpoints import Checkpoint, DirectoryCheckpointStore, SignedCheckpoint, sign_checkpoint
from finrpa.audit.keys import load_public_key, signing_key
from finrpa.audit.merkle import MerkleAccumulator, leaf_hash
from finrpa.exceptions import ConflictError

KEY = signing_key(b"an-audit-key-for-tests-only-0123456789")


def _checkpoint(size: int, root: str = "ab" * 32) -> Checkpoint:
    return Checkpoint("org-1", size, root, "cd" * 32, "2026-11-30T08:00:00+00:00", KEY.key_id)


async def test_a_stored_checkpoint_verifies_with_the_exported_public_key(tmp_path: Path) -> None:
    store = DirectoryCheckpointStore(tmp_path)
    location = await store.write(sign_checkpoint(_checkpoint(5), KEY), KEY.public_pem())
    assert location.endswith("org-1/checkpoint-000000000005.json")
    public = load_public_key((tmp_path / "public-keys" / f"{KEY.key_id}.pem").read_bytes())
    [(_, content)] = await store.load("org-1")
    signed = SignedCheckpoint.from_json(content)
    assert signed.signed_by(public)
    assert not SignedCheckpoint(_checkpoint(6), signed.signature).signed_by(public)  # the size was changed
    assert await store.org_ids() == ["org-1"]


async def test_checkpoints_are_never_replaced_and_a_fork_is_refused(tmp_path: Path) -> None:
    store = DirectoryCheckpointStore(tmp_path)
    await store.write(sign_checkpoint(_checkpoint(5), KEY), KEY.public_pem())
    await store.write(sign_checkpoint(_checkpoint(5), KEY), KEY.public_pem())  # the same statement again: fine
    with pytest.raises(ConflictError, match="forked"):
        await store.write(sign_checkpoint(_checkpoint(5, root="ef" * 32), KEY), KEY.public_pem())
    assert len(await store.load("org-1")) == 1


async def test_organisation_ids_cannot_escape_the_folder(tmp_path: Path) -> None:
    store = DirectoryCheckpointStore(tmp_path / "checkpoints")
    with pytest.raises(ValueError, match="cannot be part of an object key"):
        await store.load("../elsewhere")


def test_the_signing_key_is_derived_from_the_audit_key() -> None:
    assert signing_key(b"an-audit-key-for-tests-only-0123456789").key_id == KEY.key_id
    assert signing_key(b"another-audit-key-for-tests-0123456789").key_id != KEY.key_id


def test_a_checkpoint_signed_without_a_frontier_still_verifies_and_the_frontier_is_signed() -> None:
    public = load_public_key(KEY.public_pem())
    old = sign_checkpoint(_checkpoint(5), KEY)  # as signed before checkpoints carried a frontier
    assert "frontier" not in old.to_json()
    assert SignedCheckpoint.from_json(old.to_json()).signed_by(public)
    assert old.checkpoint.resumable_tree() is None  # nothing to continue from: a full verify is needed

    tree = MerkleAccumulator()
    for index in range(5):
        tree.append(leaf_hash(bytes([index])))
    frontier = tuple(node.hex() for node in tree.frontier())
    new = sign_checkpoint(replace(_checkpoint(5, root=tree.root().hex()), frontier=frontier), KEY)
    parsed = SignedCheckpoint.from_json(new.to_json())
    assert parsed.signed_by(public) and parsed.checkpoint.frontier == frontier
    resumed = parsed.checkpoint.resumable_tree()
    assert resumed is not None and resumed.root() == tree.root()
    forged = replace(parsed.checkpoint, frontier=(frontier[0], "00" * 32))
    assert not SignedCheckpoint(forged, parsed.signature).signed_by(public)  # the frontier is covered too
    assert forged.resumable_tree() is None  # and must give the signed root

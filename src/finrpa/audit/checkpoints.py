"""Signed checkpoints of each organisation's audit tree, kept OUTSIDE the database.

A checkpoint says "the first ``tree_size`` rows of organisation ``org_id`` have Merkle root ``root_hash``
and the last of them has ``last_row_hash``", signed with the installation's Ed25519 key. Whoever can
rewrite the database cannot rewrite a checkpoint without the key, so a verifier that trusts the public key
detects any change to those rows, including deleting the newest ones.

Layout (a directory, or the same keys under a bucket of the object store)::

    audit-checkpoints/<org_id>/checkpoint-<tree_size, 12 digits>.json
    audit-checkpoints/public-keys/<key_id>.pem
    audit-checkpoints/keyring/keyring-<version, 6 digits>.json   (after a key rotation, see finrpa.audit.keyring)

Files are written once and never replaced.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from finrpa.audit.canonical import canonical_json
from finrpa.audit.keys import SigningKey, signature_valid
from finrpa.audit.merkle import MerkleAccumulator
from finrpa.exceptions import ConflictError
from finrpa.objectstore.layout import check_segment
from finrpa.objectstore.port import ObjectAlreadyExistsError, ObjectStore

CHECKPOINT_FORMAT = "finrpa-audit-checkpoint/1"
PREFIX = "audit-checkpoints"
_NAME = re.compile(r"^checkpoint-(\d{12})\.json$")
_NOT_ORGS = {"public-keys", "keyring"}


@dataclass(frozen=True)
class Checkpoint:
    """The signed statement about one organisation's tree."""

    org_id: str
    tree_size: int
    root_hash: str
    last_row_hash: str
    issued_at: str
    key_id: str
    format: str = CHECKPOINT_FORMAT
    # The Merkle frontier (hex, largest subtree first; see MerkleAccumulator.frontier): what an incremental
    # verify needs to extend this tree without re-reading its rows. Empty in checkpoints signed before it existed.
    frontier: tuple[str, ...] = ()

    def payload(self) -> bytes:
        return canonical_json(self.as_dict()).encode()

    def as_dict(self) -> dict[str, Any]:
        """The signed fields; ``frontier`` only when present, so checkpoints signed without one still verify."""
        fields = asdict(self)
        fields["frontier"] = list(self.frontier)
        if not self.frontier:
            del fields["frontier"]
        return fields

    def resumable_tree(self) -> MerkleAccumulator | None:
        """The tree this checkpoint signs, ready to be extended (None without a frontier or with a bad one)."""
        if not self.frontier:
            return None
        try:
            tree = MerkleAccumulator.from_frontier(self.tree_size, [bytes.fromhex(node) for node in self.frontier])
        except ValueError:
            return None
        return tree if tree.root().hex() == self.root_hash else None


@dataclass(frozen=True)
class SignedCheckpoint:
    checkpoint: Checkpoint
    signature: str

    def to_json(self) -> str:
        return json.dumps({"checkpoint": self.checkpoint.as_dict(), "signature": self.signature}, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> SignedCheckpoint:
        """Parse a checkpoint file; raises ValueError with a sentence when it is not one."""
        try:
            data: Any = json.loads(text)
            body = data["checkpoint"]
            checkpoint = Checkpoint(**{**body, "frontier": tuple(body.get("frontier", ()))})
            signature = str(data["signature"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"This is not a FinRPA audit checkpoint ({exc}).") from exc
        if checkpoint.format != CHECKPOINT_FORMAT:
            raise ValueError(f"Unknown checkpoint format {checkpoint.format!r}.")
        return cls(checkpoint, signature)

    def signed_by(self, public: Ed25519PublicKey) -> bool:
        return signature_valid(public, self.checkpoint.payload(), self.signature)


def sign_checkpoint(checkpoint: Checkpoint, key: SigningKey) -> SignedCheckpoint:
    return SignedCheckpoint(checkpoint, key.sign(checkpoint.payload()))


def checkpoint_name(org_id: str, tree_size: int) -> str:
    check_segment(org_id)  # the organisation id becomes a folder name
    return f"{PREFIX}/{org_id}/checkpoint-{tree_size:012d}.json"


def public_key_name(key_id: str) -> str:
    return f"{PREFIX}/public-keys/{key_id}.pem"


class CheckpointStore(Protocol):
    """Where checkpoints live (outside the database)."""

    async def write(self, signed: SignedCheckpoint, public_pem: bytes) -> str:
        """Store a checkpoint and the public key that verifies it; returns where it went."""
        ...

    async def load(self, org_id: str) -> list[tuple[str, bytes]]:
        """(location, file content) of every checkpoint of ``org_id``, smallest tree first."""
        ...

    async def org_ids(self) -> list[str]: ...

    async def latest_tree_size(self, org_id: str) -> int:
        """The tree size of the newest checkpoint of ``org_id`` by its name (0 when none); reads no content."""
        ...

    async def save_keyring(self, version: int, content: bytes) -> str:
        """Store keyring ``version`` once; ConflictError when that version already exists (a concurrent change)."""
        ...

    async def load_keyring(self) -> bytes | None:
        """The newest keyring version, or None before the first rotation."""
        ...


def keyring_name(version: int) -> str:
    return f"{PREFIX}/keyring/keyring-{version:06d}.json"


def _keyring_conflict(location: str) -> ConflictError:
    return ConflictError(f"{location} already exists: the keyring changed meanwhile. Run the command again.")


def tree_size_of(name: str) -> int | None:
    match = _NAME.match(name.rsplit("/", 1)[-1])
    return int(match.group(1)) if match else None


def _conflict(location: str) -> ConflictError:
    return ConflictError(
        f"A different checkpoint already exists at {location}. The audit trail of this organisation has "
        "forked or the checkpoint store was tampered with; run `finrpa audit verify` and investigate."
    )


class DirectoryCheckpointStore:
    """Checkpoints as read-only files in a directory (default ``data_dir/audit-checkpoints``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    async def write(self, signed: SignedCheckpoint, public_pem: bytes) -> str:
        checkpoint = signed.checkpoint
        key_path = self._path(public_key_name(checkpoint.key_id))
        path = self._path(checkpoint_name(checkpoint.org_id, checkpoint.tree_size))
        await asyncio.to_thread(_write_once_or_same, key_path, public_pem)
        if not await asyncio.to_thread(_write_once_or_same, path, signed.to_json().encode()):
            existing = SignedCheckpoint.from_json(await asyncio.to_thread(path.read_bytes))
            if existing.checkpoint.root_hash != checkpoint.root_hash:
                raise _conflict(str(path))
        return str(path)

    async def load(self, org_id: str) -> list[tuple[str, bytes]]:
        check_segment(org_id)
        return await asyncio.to_thread(self._load_sync, org_id)

    async def org_ids(self) -> list[str]:
        folder = self.root
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if p.is_dir() and p.name not in _NOT_ORGS)

    async def save_keyring(self, version: int, content: bytes) -> str:
        path = self._path(keyring_name(version))
        if not await asyncio.to_thread(_write_once_or_same, path, content):
            raise _keyring_conflict(str(path))
        return str(path)

    async def load_keyring(self) -> bytes | None:
        folder = self.root / "keyring"
        files = await asyncio.to_thread(lambda: sorted(folder.glob("keyring-*.json")) if folder.is_dir() else [])
        return await asyncio.to_thread(files[-1].read_bytes) if files else None

    async def latest_tree_size(self, org_id: str) -> int:
        check_segment(org_id)
        folder = self.root / org_id
        names = await asyncio.to_thread(lambda: [p.name for p in folder.iterdir()] if folder.is_dir() else [])
        return max((size for size in map(tree_size_of, names) if size is not None), default=0)

    def _load_sync(self, org_id: str) -> list[tuple[str, bytes]]:
        folder = self.root / org_id
        if not folder.is_dir():
            return []
        files = sorted(p for p in folder.iterdir() if _NAME.match(p.name))
        return [(str(p), p.read_bytes()) for p in files]

    def _path(self, name: str) -> Path:
        return self.root / name.removeprefix(f"{PREFIX}/")


def _write_once_or_same(path: Path, data: bytes) -> bool:
    """Create ``path`` with ``data`` (read-only); False if it already existed (then it is left alone)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return True


class ObjectStoreCheckpointStore:
    """Checkpoints in one bucket of the object store (use an Object-Lock bucket for WORM retention)."""

    def __init__(self, objects: ObjectStore, bucket: str) -> None:
        self.objects = objects
        self.bucket = bucket

    async def write(self, signed: SignedCheckpoint, public_pem: bytes) -> str:
        checkpoint = signed.checkpoint
        await self._put_once(public_key_name(checkpoint.key_id), public_pem, "application/x-pem-file")
        name = checkpoint_name(checkpoint.org_id, checkpoint.tree_size)
        if not await self._put_once(name, signed.to_json().encode(), "application/json"):
            existing = SignedCheckpoint.from_json(await self.objects.get(name, bucket=self.bucket))
            if existing.checkpoint.root_hash != checkpoint.root_hash:
                raise _conflict(f"{self.bucket}/{name}")
        return f"{self.bucket}/{name}"

    async def load(self, org_id: str) -> list[tuple[str, bytes]]:
        check_segment(org_id)
        keys = await self.objects.list_keys(f"{PREFIX}/{org_id}/", bucket=self.bucket)
        names = sorted(key for key in keys if _NAME.match(key.rsplit("/", 1)[-1]))
        return [(f"{self.bucket}/{key}", await self.objects.get(key, bucket=self.bucket)) for key in names]

    async def org_ids(self) -> list[str]:
        keys = await self.objects.list_keys(f"{PREFIX}/", bucket=self.bucket)
        orgs = {key.split("/")[1] for key in keys if key.count("/") >= 2}
        return sorted(orgs - _NOT_ORGS)

    async def save_keyring(self, version: int, content: bytes) -> str:
        name = keyring_name(version)
        if not await self._put_once(name, content, "application/json"):
            raise _keyring_conflict(f"{self.bucket}/{name}")
        return f"{self.bucket}/{name}"

    async def load_keyring(self) -> bytes | None:
        keys = sorted(await self.objects.list_keys(f"{PREFIX}/keyring/", bucket=self.bucket))
        return await self.objects.get(keys[-1], bucket=self.bucket) if keys else None

    async def latest_tree_size(self, org_id: str) -> int:
        check_segment(org_id)
        keys = await self.objects.list_keys(f"{PREFIX}/{org_id}/", bucket=self.bucket)
        return max((size for size in map(tree_size_of, keys) if size is not None), default=0)

    async def _put_once(self, name: str, data: bytes, content_type: str) -> bool:
        if await self.objects.exists(name, bucket=self.bucket):
            return False
        try:
            await self.objects.put(name, data, content_type, bucket=self.bucket)
        except ObjectAlreadyExistsError:
            return False
        return True

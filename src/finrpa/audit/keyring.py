"""The audit signing keyring: which Ed25519 key signs checkpoints now, and which older keys still verify them.

Without a rotation the keyring is implicit: one key, derived from FINRPA_AUDIT_KEY (``keys.signing_key``).
``finrpa audit rotate-key`` makes a fresh random key active; the previous one is *retired* (its checkpoints
still verify, it signs nothing new). ``finrpa audit revoke-key`` marks a retired key *revoked*: checkpoints it
signed are no longer trusted (they are reported and skipped), so re-sign current trees after revoking.

The keyring is a JSON document kept next to the checkpoints (outside the database), one write-once file per
version (``audit-checkpoints/keyring/keyring-<version>.json``); the newest valid version is in force. Private
halves of random keys are sealed (AES-GCM) under a key derived from FINRPA_AUDIT_KEY, and the whole document
carries an HMAC under another derived key, so whoever can write the store can neither read a private key nor
slip in a public key of their own.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from finrpa.audit.canonical import canonical_json
from finrpa.audit.keys import SigningKey, load_public_key, signing_key
from finrpa.kit.crypto import SealError, derive_key, seal, unseal

KEYRING_FORMAT = "finrpa-audit-keyring/1"
KeyStatus = Literal["active", "retired", "revoked"]
_SALT = b"finrpa-audit-v1"


@dataclass(frozen=True)
class KeyEntry:
    key_id: str
    public_pem: str
    status: KeyStatus
    created_at: str
    sealed_private: str | None = None  # None: the key derived from FINRPA_AUDIT_KEY


@dataclass(frozen=True)
class Keyring:
    version: int
    keys: tuple[KeyEntry, ...]

    @property
    def active(self) -> KeyEntry:
        return next(entry for entry in self.keys if entry.status == "active")

    def entry(self, key_id: str) -> KeyEntry | None:
        return next((entry for entry in self.keys if entry.key_id == key_id), None)

    def trusted(self) -> dict[str, Ed25519PublicKey]:
        """Public keys whose signatures are accepted (every key that is not revoked), by key id."""
        return {e.key_id: load_public_key(e.public_pem.encode()) for e in self.keys if e.status != "revoked"}


def initial_keyring(audit_key: bytes) -> Keyring:
    """The implicit keyring of an installation that never rotated: the derived key, active."""
    key = signing_key(audit_key)
    return Keyring(0, (KeyEntry(key.key_id, key.public_pem().decode(), "active", ""),))


def rotate(ring: Keyring, audit_key: bytes) -> Keyring:
    """A new version with a fresh random key active and the previously active key retired."""
    private = Ed25519PrivateKey.generate()
    key = SigningKey(private)
    raw = private.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    fresh = KeyEntry(
        key_id=key.key_id,
        public_pem=key.public_pem().decode(),
        status="active",
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        sealed_private=seal(_seal_key(audit_key), raw, key.key_id.encode()),
    )
    kept = tuple(replace(e, status="retired") if e.status == "active" else e for e in ring.keys)
    return Keyring(ring.version + 1, (*kept, fresh))


def revoke(ring: Keyring, key_id: str) -> Keyring:
    """A new version with ``key_id`` revoked; the active key cannot be revoked (rotate first)."""
    entry = ring.entry(key_id)
    if entry is None:
        known = ", ".join(e.key_id for e in ring.keys)
        raise ValueError(f"There is no audit key {key_id!r}; the keyring holds {known}.")
    if entry.status == "active":
        raise ValueError(f"Key {key_id} signs checkpoints now; run `finrpa audit rotate-key` first, then revoke it.")
    keys = tuple(replace(e, status="revoked") if e.key_id == key_id else e for e in ring.keys)
    return Keyring(ring.version + 1, keys)


def private_key(entry: KeyEntry, audit_key: bytes) -> SigningKey:
    """The signing key of ``entry`` (derived, or unsealed from the keyring)."""
    if entry.sealed_private is None:
        key = signing_key(audit_key)
    else:
        raw = unseal(_seal_key(audit_key), entry.sealed_private, entry.key_id.encode())
        key = SigningKey(Ed25519PrivateKey.from_private_bytes(raw))
    if key.key_id != entry.key_id:
        raise ValueError(f"The private key of audit key {entry.key_id} does not match it; the keyring was altered.")
    return key


def keyring_bytes(ring: Keyring, audit_key: bytes) -> bytes:
    body = _body(ring)
    document = {**body, "mac": _mac(audit_key, body)}
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


def parse_keyring(content: bytes, audit_key: bytes) -> Keyring:
    """Read and authenticate a keyring file; ValueError with a sentence when it cannot be trusted."""
    try:
        document: dict[str, Any] = json.loads(content)
        mac = str(document.pop("mac"))
        ring = Keyring(int(document["version"]), tuple(KeyEntry(**entry) for entry in document["keys"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"The audit keyring cannot be read ({exc}).") from exc
    if document.get("format") != KEYRING_FORMAT or not hmac.compare_digest(mac, _mac(audit_key, _body(ring))):
        raise ValueError(
            "The audit keyring does not carry this installation's authentication code: it was altered, or "
            "FINRPA_AUDIT_KEY is not the key it was written with."
        )
    if sum(1 for entry in ring.keys if entry.status == "active") != 1:
        raise ValueError("The audit keyring must have exactly one active key.")
    try:
        for entry in ring.keys:
            if entry.sealed_private is not None:
                private_key(entry, audit_key)
    except SealError as exc:
        raise ValueError(f"A private key in the audit keyring cannot be opened ({exc}).") from exc
    return ring


def _body(ring: Keyring) -> dict[str, Any]:
    return {"format": KEYRING_FORMAT, "version": ring.version, "keys": [asdict(entry) for entry in ring.keys]}


def _mac(audit_key: bytes, body: dict[str, Any]) -> str:
    key = derive_key(audit_key, "finrpa audit keyring hmac v1", salt=_SALT)
    return hmac.new(key, canonical_json(body).encode(), hashlib.sha256).hexdigest()


def _seal_key(audit_key: bytes) -> bytes:
    return derive_key(audit_key, "finrpa audit keyring seal v1", salt=_SALT)

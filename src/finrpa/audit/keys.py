"""Keys of the audit trail, all derived (HKDF-SHA-256) from FINRPA_AUDIT_KEY, which never enters the database.

* a per-organisation HMAC key for raw-value hashes (a plain SHA-256 of a card number or a six-digit code
  could be brute-forced; a keyed hash cannot without the key);
* one Ed25519 key pair that signs checkpoints and evidence manifests; its public half is exported next to
  the checkpoints so that anyone can verify them without any secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from finrpa.kit.crypto import derive_key

_SALT = b"finrpa-audit-v1"
_RAW_VALUE_INFO = b"finrpa audit raw-value hmac v1 org="
_SIGNING_INFO = b"finrpa audit checkpoint signing ed25519 v1"


def _derive(master: bytes, info: bytes) -> bytes:
    return derive_key(master, info.decode(), salt=_SALT)


@lru_cache(maxsize=256)
def org_value_key(audit_key: bytes, org_id: str) -> bytes:
    """The HMAC key of one organisation's raw-value hashes."""
    return _derive(audit_key, _RAW_VALUE_INFO + org_id.encode())


def normalize_raw_value(value: str) -> bytes:
    """The bytes that are hashed: Unicode NFC, UTF-8 (so 全角 and composed forms compare as typed)."""
    return unicodedata.normalize("NFC", value).encode()


def raw_value_hash(key: bytes, value: str) -> str:
    return hmac.new(key, normalize_raw_value(value), hashlib.sha256).hexdigest()


def raw_value_matches(key: bytes, candidate: str, expected_hex: str) -> bool:
    """Constant-time check of a candidate value against a stored raw-value hash."""
    return hmac.compare_digest(raw_value_hash(key, candidate), expected_hex)


@dataclass(frozen=True)
class SigningKey:
    """The installation's Ed25519 audit signing key (private half stays in memory only)."""

    private: Ed25519PrivateKey

    @property
    def public(self) -> Ed25519PublicKey:
        return self.private.public_key()

    @property
    def key_id(self) -> str:
        return public_key_id(self.public)

    def sign(self, payload: bytes) -> str:
        return base64.b64encode(self.private.sign(payload)).decode()

    def public_pem(self) -> bytes:
        return public_key_pem(self.public)


@lru_cache(maxsize=8)
def signing_key(audit_key: bytes) -> SigningKey:
    return SigningKey(Ed25519PrivateKey.from_private_bytes(_derive(audit_key, _SIGNING_INFO)))


def public_key_pem(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def public_key_id(public: Ed25519PublicKey) -> str:
    """A short fingerprint: the first 16 hex digits of SHA-256 over the raw public key."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def load_public_key(pem: bytes) -> Ed25519PublicKey:
    key = serialization.load_pem_public_key(pem)
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("The public key is not an Ed25519 key.")
    return key


def signature_valid(public: Ed25519PublicKey, payload: bytes, signature_b64: str) -> bool:
    try:
        public.verify(base64.b64decode(signature_b64, validate=True), payload)
    except (InvalidSignature, ValueError):
        return False
    return True

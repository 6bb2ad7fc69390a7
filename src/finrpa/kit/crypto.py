"""Small, safe crypto building blocks: HKDF key derivation and AES-256-GCM sealing with associated data."""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_NONCE_BYTES = 12
_VERSION = b"\x01"


class SealError(ValueError):
    """A sealed value was altered, or opened with the wrong key or associated data."""


def derive_key(master: bytes, purpose: str, *, salt: bytes = b"finrpa", length: int = 32) -> bytes:
    """A key for one purpose, derived from a master key (HKDF-SHA-256); purposes never share keys."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=purpose.encode()).derive(master)


def seal(key: bytes, plaintext: bytes, associated_data: bytes) -> str:
    """Encrypt and authenticate; ``associated_data`` binds the ciphertext to its context (e.g. a run id)."""
    nonce = os.urandom(_NONCE_BYTES)
    ciphertext = AESGCM(key).encrypt(nonce, plaintext, associated_data)
    return base64.urlsafe_b64encode(_VERSION + nonce + ciphertext).decode()


def unseal(key: bytes, token: str, associated_data: bytes) -> bytes:
    raw = base64.urlsafe_b64decode(token.encode())
    if raw[:1] != _VERSION:
        raise SealError("unknown sealed-value version")
    nonce, ciphertext = raw[1 : 1 + _NONCE_BYTES], raw[1 + _NONCE_BYTES :]
    try:
        return AESGCM(key).decrypt(nonce, ciphertext, associated_data)
    except InvalidTag as exc:
        raise SealError("the sealed value was altered or belongs to another context") from exc

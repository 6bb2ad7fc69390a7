"""Envelope encryption for the vault: AES-256-GCM everywhere, keys derived and bound to their context.

* KEK (key-encryption key): HKDF-SHA256 of FINRPA_MASTER_KEY → 32 bytes; identified by a fingerprint
  (``kek_id``) stored beside every wrapped key, so a rotation knows which key wrapped what.
* Data key: 32 random bytes per organisation, stored wrapped by the KEK with AAD = organisation id, so a
  wrapped key copied to another organisation does not unwrap.
* Secret: encrypted with its organisation's data key, AAD = organisation id + secret name, so a ciphertext
  moved to another name or organisation does not decrypt.

Stored blobs are ``nonce (12 bytes) || ciphertext+tag``.
"""

from __future__ import annotations

import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from finrpa.exceptions import FinRPAError

NONCE_BYTES = 12
KEY_BYTES = 32


class VaultDecryptionError(FinRPAError):
    http_status = 500
    code = "vault_decryption_failed"


def derive_kek(master_key: bytes) -> bytes:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=b"finrpa-vault", info=b"kek-v1")
    return hkdf.derive(master_key)


def kek_id(kek: bytes) -> str:
    """A public fingerprint of a KEK (not enough to recover it)."""
    return hashlib.sha256(b"finrpa-kek-id|" + kek).hexdigest()[:16]


def new_data_key() -> bytes:
    return os.urandom(KEY_BYTES)


def wrap_data_key(kek: bytes, data_key: bytes, org_id: str) -> bytes:
    return _seal(kek, data_key, _dek_aad(org_id))


def unwrap_data_key(kek: bytes, wrapped: bytes, org_id: str) -> bytes:
    return _open(kek, wrapped, _dek_aad(org_id), "the organisation's data key")


def encrypt_secret(data_key: bytes, value: str, org_id: str, name: str) -> bytes:
    return _seal(data_key, value.encode(), _secret_aad(org_id, name))


def decrypt_secret(data_key: bytes, blob: bytes, org_id: str, name: str) -> str:
    return _open(data_key, blob, _secret_aad(org_id, name), f"secret {name!r}").decode()


def _dek_aad(org_id: str) -> bytes:
    return b"finrpa/dek/v1|" + org_id.encode()


def _secret_aad(org_id: str, name: str) -> bytes:
    return b"finrpa/secret/v1|" + org_id.encode() + b"|" + name.encode()


def _seal(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    nonce = os.urandom(NONCE_BYTES)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, aad)


def _open(key: bytes, blob: bytes, aad: bytes, what: str) -> bytes:
    try:
        return AESGCM(key).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], aad)
    except (InvalidTag, ValueError) as exc:
        raise VaultDecryptionError(
            f"Cannot decrypt {what}: the master key is not the one it was stored with, or the stored "
            "value was altered. Check FINRPA_MASTER_KEY (after a key change run `finrpa secret rewrap`)."
        ) from exc

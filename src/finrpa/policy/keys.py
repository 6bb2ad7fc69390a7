"""The Ed25519 key that signs capability tokens: from FINRPA_CAPABILITY_KEY_FILE (a PEM private key) if set,
otherwise derived from FINRPA_SECRET_KEY with HKDF-SHA256 (so every worker of one deployment agrees)."""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from finrpa.config import Settings
from finrpa.exceptions import ConfigurationError

_HKDF_INFO = b"finrpa capability tokens ed25519 v1"
_HKDF_SALT = b"finrpa.policy"


def derive_signing_key(secret: bytes) -> Ed25519PrivateKey:
    seed = HKDF(algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=_HKDF_INFO).derive(secret)
    return Ed25519PrivateKey.from_private_bytes(seed)


def signing_key(settings: Settings) -> Ed25519PrivateKey:
    if settings.capability_key_file is None:
        return derive_signing_key(settings.key("secret_key"))
    path = settings.capability_key_file
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigurationError(
            f"FINRPA_CAPABILITY_KEY_FILE={path} is not a readable unencrypted PEM private key; create one with "
            "'openssl genpkey -algorithm ed25519 -out capability.pem'."
        ) from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigurationError(f"FINRPA_CAPABILITY_KEY_FILE={path} holds a non-Ed25519 key; use an Ed25519 key.")
    return key


def key_id(key: Ed25519PrivateKey) -> str:
    """A short, stable identifier of the public key (the token header's ``kid``), for key rotation."""
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]

"""Password hashing (Argon2id, argon2-cffi's RFC 9106 low-memory profile) and the password policy."""

from __future__ import annotations

import secrets
import string

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from finrpa.identity.errors import WeakPasswordError

_HASHER = PasswordHasher()  # Argon2id, t=3, m=64 MiB, p=4
# Verifying against this keeps the time of "no such user" close to "wrong password".
_DUMMY_HASH = _HASHER.hash(secrets.token_urlsafe(16))
_ALPHABET = string.ascii_letters + string.digits + "-_.!@#%"


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """True if ``password`` matches; a missing hash still costs one verification (timing)."""
    try:
        return _HASHER.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    return _HASHER.check_needs_rehash(password_hash)


def check_password_policy(password: str, *, min_length: int, username: str = "") -> None:
    """Raise WeakPasswordError with what to change, or return."""
    if len(password) < min_length:
        raise WeakPasswordError(f"The password must be at least {min_length} characters long.")
    if username and username.lower() in password.lower():
        raise WeakPasswordError("The password must not contain the username.")
    if len(set(password)) < 5:
        raise WeakPasswordError("The password must use at least 5 different characters.")


def generate_password(length: int = 20) -> str:
    """A random password for a new account, shown once to whoever creates the account."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))

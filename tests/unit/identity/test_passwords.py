"""Passwords are Argon2id hashes; the policy explains what to change."""

from __future__ import annotations

import pytest

from finrpa.identity.errors import WeakPasswordError
from finrpa.identity.passwords import check_password_policy, generate_password, hash_password, verify_password


def test_hash_is_argon2id_salted_and_verifies_only_the_right_password() -> None:
    first, second = hash_password("a long enough passphrase"), hash_password("a long enough passphrase")
    assert first.startswith("$argon2id$") and first != second
    assert verify_password(first, "a long enough passphrase")
    assert not verify_password(first, "a long enough passphrasE")
    assert not verify_password(None, "a long enough passphrase")
    assert not verify_password("not a hash", "a long enough passphrase")


@pytest.mark.parametrize(
    ("password", "message"),
    [("short1!", "at least 12"), ("olga-is-my-password", "username"), ("aaaaaaaaaaaaaaaa", "5 different")],
)
def test_weak_passwords_are_refused_with_the_reason(password: str, message: str) -> None:
    with pytest.raises(WeakPasswordError, match=message):
        check_password_policy(password, min_length=12, username="olga")


def test_generated_passwords_pass_the_policy_and_differ() -> None:
    passwords = {generate_password() for _ in range(20)}
    assert len(passwords) == 20
    for password in passwords:
        check_password_policy(password, min_length=12)

"""Envelope encryption: a ciphertext or wrapped key only opens in its own organisation, name and master key."""

from __future__ import annotations

import pytest

from finrpa.vault.crypto import (
    VaultDecryptionError,
    decrypt_secret,
    derive_kek,
    encrypt_secret,
    kek_id,
    new_data_key,
    unwrap_data_key,
    wrap_data_key,
)

MASTER = b"m" * 48
VALUE = "pw-for-tests-only-7c1e"


def test_a_secret_round_trips_and_the_blob_does_not_contain_it() -> None:
    key = new_data_key()
    blob = encrypt_secret(key, VALUE, "org-a", "portal/login")
    assert VALUE.encode() not in blob and len(blob) == 12 + len(VALUE) + 16
    assert decrypt_secret(key, blob, "org-a", "portal/login") == VALUE
    assert encrypt_secret(key, VALUE, "org-a", "portal/login") != blob  # fresh nonce each time


@pytest.mark.parametrize(("org", "name"), [("org-b", "portal/login"), ("org-a", "other/login")])
def test_a_secret_moved_to_another_org_or_name_does_not_decrypt(org: str, name: str) -> None:
    key = new_data_key()
    blob = encrypt_secret(key, VALUE, "org-a", "portal/login")
    with pytest.raises(VaultDecryptionError, match="Cannot decrypt"):
        decrypt_secret(key, blob, org, name)


def test_a_flipped_bit_is_detected() -> None:
    key = new_data_key()
    blob = bytearray(encrypt_secret(key, VALUE, "org-a", "n"))
    blob[-1] ^= 1
    with pytest.raises(VaultDecryptionError):
        decrypt_secret(key, bytes(blob), "org-a", "n")


def test_a_wrapped_data_key_opens_only_with_its_master_key_and_org() -> None:
    kek, other_kek = derive_kek(MASTER), derive_kek(b"n" * 48)
    data_key = new_data_key()
    wrapped = wrap_data_key(kek, data_key, "org-a")
    assert unwrap_data_key(kek, wrapped, "org-a") == data_key
    with pytest.raises(VaultDecryptionError):
        unwrap_data_key(other_kek, wrapped, "org-a")
    with pytest.raises(VaultDecryptionError):
        unwrap_data_key(kek, wrapped, "org-b")
    assert kek_id(kek) != kek_id(other_kek) and len(kek) == 32

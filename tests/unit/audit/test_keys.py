"""Raw-value hashes: keyed per organisation, so a card number or a six-digit code cannot be brute-forced
from the database alone."""

from __future__ import annotations

import hashlib

from finrpa.audit.keys import org_value_key, raw_value_hash, raw_value_matches

AUDIT_KEY = b"an-audit-key-for-tests-only-0123456789"


def test_the_same_value_hashes_differently_per_organisation_and_key() -> None:
    value = "123456"
    hashes = {
        raw_value_hash(org_value_key(AUDIT_KEY, "org-a"), value),
        raw_value_hash(org_value_key(AUDIT_KEY, "org-b"), value),
        raw_value_hash(org_value_key(b"another-audit-key-0123456789abcdef", "org-a"), value),
    }
    assert len(hashes) == 3
    assert hashlib.sha256(value.encode()).hexdigest() not in hashes  # not a plain, guessable SHA-256


def test_a_candidate_is_checked_as_typed() -> None:
    key = org_value_key(AUDIT_KEY, "org-a")
    stored = raw_value_hash(key, "José 6222021234567890")
    assert raw_value_matches(key, "Jose\u0301 6222021234567890", stored)  # composed or not, the same text
    assert not raw_value_matches(key, "José 6222021234567891", stored)
    assert not raw_value_matches(org_value_key(AUDIT_KEY, "org-b"), "José 6222021234567890", stored)

"""The audit keyring: rotation keeps old keys verifying, revocation stops trusting one, tampering is refused."""

from __future__ import annotations

import json

import pytest

from finrpa.audit.checkpoints import Checkpoint, sign_checkpoint
from finrpa.audit.keyring import initial_keyring, keyring_bytes, parse_keyring, private_key, revoke, rotate
from finrpa.audit.keys import signing_key

AUDIT_KEY = b"an-audit-key-for-keyring-tests-0123456789"


def test_rotation_activates_a_new_key_and_keeps_the_old_one_trusted() -> None:
    first = initial_keyring(AUDIT_KEY)
    assert first.active.key_id == signing_key(AUDIT_KEY).key_id
    second = rotate(first, AUDIT_KEY)
    assert second.version == 1 and second.active.key_id != first.active.key_id
    assert [entry.status for entry in second.keys] == ["retired", "active"]
    assert set(second.trusted()) == {first.active.key_id, second.active.key_id}
    checkpoint = Checkpoint("org-1", 3, "ab" * 32, "cd" * 32, "2026-12-01T00:00:00+00:00", second.active.key_id)
    signed = sign_checkpoint(checkpoint, private_key(second.active, AUDIT_KEY))
    assert signed.signed_by(second.trusted()[second.active.key_id])
    assert not signed.signed_by(second.trusted()[first.active.key_id])


def test_the_stored_keyring_round_trips_and_hides_private_keys() -> None:
    ring = rotate(rotate(initial_keyring(AUDIT_KEY), AUDIT_KEY), AUDIT_KEY)
    content = keyring_bytes(ring, AUDIT_KEY)
    assert parse_keyring(content, AUDIT_KEY) == ring
    raw = private_key(ring.active, AUDIT_KEY).private.private_bytes_raw()
    assert raw.hex() not in content.decode() and b"PRIVATE" not in content


def test_a_tampered_or_foreign_keyring_is_refused() -> None:
    ring = rotate(initial_keyring(AUDIT_KEY), AUDIT_KEY)
    document = json.loads(keyring_bytes(ring, AUDIT_KEY))
    forged = rotate(initial_keyring(b"someone-else's-audit-key-0123456789"), b"someone-else's-audit-key-0123456789")
    document["keys"][-1]["public_pem"] = forged.active.public_pem  # slip in a key the attacker holds
    with pytest.raises(ValueError, match="authentication code"):
        parse_keyring(json.dumps(document).encode(), AUDIT_KEY)
    with pytest.raises(ValueError, match="authentication code"):
        parse_keyring(keyring_bytes(ring, AUDIT_KEY), b"another-installation-audit-key-012345")


def test_revoking_a_retired_key_stops_trusting_it_but_the_active_key_cannot_be_revoked() -> None:
    ring = rotate(initial_keyring(AUDIT_KEY), AUDIT_KEY)
    old = ring.keys[0].key_id
    revoked = revoke(ring, old)
    assert old not in revoked.trusted() and revoked.active == ring.active
    with pytest.raises(ValueError, match="rotate-key"):
        revoke(ring, ring.active.key_id)
    with pytest.raises(ValueError, match="no audit key"):
        revoke(ring, "0000000000000000")

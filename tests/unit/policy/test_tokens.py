"""Capability tokens: expired, wrong audience, wrong binding, tampered, replayed or widened → rejected."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.policy.errors import (
    AttenuationWidening,
    TokenAudienceMismatch,
    TokenBindingMismatch,
    TokenExpired,
    TokenInvalid,
    TokenReplayed,
)
from finrpa.policy.keys import derive_signing_key, signing_key
from finrpa.policy.manifest import ArgumentBounds, CapabilityManifest
from finrpa.policy.token_store import InMemoryTokenUseStore
from finrpa.policy.tokens import CapabilityTokens

KEY = derive_signing_key(b"test-only secret for capability tokens, not a real one")
MANIFEST = CapabilityManifest(
    org_id="org-a",
    run_id="run-1",
    node_id="pay",
    principal_id="run-1/pay",
    grants={"navigate": frozenset({"bank.example"}), "payment.submit": frozenset({"bank.example"})},
    approval_operations=frozenset({"payment.submit"}),
    data_classes=frozenset({"payment"}),
    bounds=ArgumentBounds(max_amount_cny=Decimal(2_000_000)),
)


def tokens(clock: Callable[[], datetime] = utcnow) -> CapabilityTokens:
    return CapabilityTokens(KEY, InMemoryTokenUseStore(), clock=clock)


async def test_a_valid_token_yields_its_manifest() -> None:
    service = tokens()
    verified = await service.verify(service.issue(MANIFEST, audience="browser"), audience="browser", run_id="run-1")
    assert verified.manifest == MANIFEST.model_copy(update={"dropped": (), "policy_version": ""})
    assert verified.manifest.digest() == MANIFEST.digest()


async def test_an_expired_token_is_rejected() -> None:
    issued_two_hours_ago = tokens(lambda: utcnow() - timedelta(hours=2)).issue(MANIFEST, audience="browser")
    with pytest.raises(TokenExpired):
        await tokens().verify(issued_two_hours_ago, audience="browser")


async def test_a_token_for_another_audience_is_rejected() -> None:
    service = tokens()
    with pytest.raises(TokenAudienceMismatch):
        await service.verify(service.issue(MANIFEST, audience="skill:FormFillSkill"), audience="browser")


async def test_a_token_for_another_run_or_node_is_rejected() -> None:
    service = tokens()
    token = service.issue(MANIFEST, audience="browser", max_uses=5)
    with pytest.raises(TokenBindingMismatch):
        await service.verify(token, audience="browser", run_id="run-2")
    with pytest.raises(TokenBindingMismatch):
        await service.verify(token, audience="browser", node_id="other-node")


async def test_a_replayed_token_is_rejected() -> None:
    service = tokens()
    token = service.issue(MANIFEST, audience="browser", max_uses=2)
    await service.verify(token, audience="browser")
    await service.verify(token, audience="browser")
    with pytest.raises(TokenReplayed):
        await service.verify(token, audience="browser")


async def test_a_token_signed_by_another_key_or_with_an_edited_manifest_is_rejected() -> None:
    forged = CapabilityTokens(derive_signing_key(b"another key"), InMemoryTokenUseStore()).issue(MANIFEST, audience="b")
    with pytest.raises(TokenInvalid):
        await tokens().verify(forged, audience="b")
    claims = jwt.decode(tokens().issue(MANIFEST, audience="b"), options={"verify_signature": False})
    claims["cap"]["bounds"]["max_amount_cny"] = "900000000"
    with pytest.raises(TokenInvalid):
        await tokens().verify(jwt.encode(claims, KEY, algorithm="EdDSA"), audience="b")


def test_attenuation_to_fewer_rights_is_allowed_and_widening_is_rejected() -> None:
    service = tokens()
    parent = service.issue(MANIFEST, audience="agent:pay", max_uses=3)
    child = MANIFEST.attenuate(node_id="pay/read", operations=frozenset({"navigate"}))
    assert service.attenuate(parent, child, audience="agent:pay/read")
    widened = [
        MANIFEST.model_copy(update={"grants": {**MANIFEST.grants, "credential.change": frozenset({"bank.example"})}}),
        MANIFEST.model_copy(update={"grants": {"navigate": frozenset({"evil.example"})}}),
        MANIFEST.model_copy(update={"bounds": ArgumentBounds(max_amount_cny=Decimal(9_000_000))}),
        MANIFEST.model_copy(update={"bounds": ArgumentBounds()}),
        MANIFEST.model_copy(update={"approval_operations": frozenset()}),
        MANIFEST.model_copy(update={"data_classes": frozenset({"payment", "customer_pii"})}),
        MANIFEST.model_copy(update={"run_id": "run-2"}),
    ]
    for wider in widened:
        with pytest.raises(AttenuationWidening):
            service.attenuate(parent, wider, audience="agent:child")
    with pytest.raises(AttenuationWidening, match="max_uses"):
        service.attenuate(parent, child, audience="agent:child", max_uses=10)


async def test_a_child_token_never_outlives_its_parent() -> None:
    start = utcnow()
    parent = tokens(lambda: start).issue(MANIFEST, audience="agent:pay", ttl_s=60)
    child = tokens(lambda: start).attenuate(parent, MANIFEST.attenuate(node_id="c"), audience="agent:c", ttl_s=3600)
    parent_exp = jwt.decode(parent, options={"verify_signature": False})["exp"]
    child_claims = jwt.decode(child, options={"verify_signature": False})
    assert child_claims["exp"] <= parent_exp and child_claims["depth"] == 1


def test_the_signing_key_is_derived_from_the_secret_key_or_read_from_a_file(tmp_path: Path) -> None:
    def public(settings: Settings) -> bytes:
        return signing_key(settings).public_key().public_bytes_raw()

    same_secret = [Settings(secret_key="x" * 40), Settings(secret_key="x" * 40)]
    assert public(same_secret[0]) == public(same_secret[1])
    assert public(Settings(secret_key="y" * 40)) != public(same_secret[0])
    pem = tmp_path / "capability.pem"
    pem.write_bytes(KEY.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    assert public(Settings(secret_key="x" * 40, capability_key_file=pem)) == KEY.public_key().public_bytes_raw()

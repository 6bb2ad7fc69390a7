"""Replay protection shared by every worker: the database counts each use of a capability token."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from finrpa.policy.errors import TokenReplayed
from finrpa.policy.keys import derive_signing_key
from finrpa.policy.manifest import ArgumentBounds, CapabilityManifest
from finrpa.policy.token_store import DatabaseTokenUseStore
from finrpa.policy.tokens import CapabilityTokens
from tests.integration.policy.conftest import PolicyDatabase

pytestmark = pytest.mark.asyncio(loop_scope="module")
KEY = derive_signing_key(b"test-only secret shared by two workers")


def manifest(org_id: str) -> CapabilityManifest:
    return CapabilityManifest(
        org_id=org_id, run_id="run-1", node_id="pay", principal_id="run-1/pay",
        grants={"payment.submit": frozenset({"bank.example"})}, bounds=ArgumentBounds(max_amount_cny=Decimal(10)),
    )  # fmt: skip


async def test_a_token_used_up_on_one_worker_is_rejected_on_another(policy_db: PolicyDatabase, org_id: str) -> None:
    worker_a = CapabilityTokens(KEY, DatabaseTokenUseStore(policy_db.app.sessions))
    worker_b = CapabilityTokens(KEY, DatabaseTokenUseStore(policy_db.app.sessions))
    token = worker_a.issue(manifest(org_id), audience="skill:PaymentSkill", max_uses=2)
    await worker_a.verify(token, audience="skill:PaymentSkill")
    await worker_b.verify(token, audience="skill:PaymentSkill")
    with pytest.raises(TokenReplayed):
        await worker_a.verify(token, audience="skill:PaymentSkill")


async def test_concurrent_uses_never_exceed_the_limit(policy_db: PolicyDatabase, org_id: str) -> None:
    workers = [CapabilityTokens(KEY, DatabaseTokenUseStore(policy_db.app.sessions)) for _ in range(2)]
    token = workers[0].issue(manifest(org_id), audience="browser", max_uses=1)
    outcomes = await asyncio.gather(
        *(workers[i % 2].verify(token, audience="browser") for i in range(6)), return_exceptions=True
    )
    assert sum(not isinstance(outcome, BaseException) for outcome in outcomes) == 1
    assert all(isinstance(outcome, TokenReplayed) for outcome in outcomes if isinstance(outcome, BaseException))

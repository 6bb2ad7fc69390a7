"""RunPolicy, the glue the run layer uses: manifests per node, recompiled only when a node asks for something
else, capped by the ceiling of the prepared plan, and one-use tokens bound to the node's current manifest."""

from __future__ import annotations

from decimal import Decimal

import pytest

from finrpa.identity.models import Role
from finrpa.identity.permissions import Principal
from finrpa.policy.engine import PolicyEngine
from finrpa.policy.errors import CapabilityDenied, TokenBindingMismatch, TokenReplayed
from finrpa.policy.keys import derive_signing_key
from finrpa.policy.policyset import PolicySource
from finrpa.policy.run_policy import NodeCall, RunPolicy, plan_ceiling
from finrpa.policy.schemas import Decision
from finrpa.policy.token_store import InMemoryTokenUseStore
from finrpa.policy.tokens import CapabilityTokens

OPERATOR = Principal(user_id="u-op", org_id="org-a", department_roles={"ops": frozenset({Role.OPERATOR})})
HOST = "bank.example"
PAY = NodeCall(node_id="pay", operation="payment.submit", effect="irreversible", amount_cny=Decimal("12345.60"))
LIMIT = PolicySource(
    "limit",
    '@id("deny.payment_over_10k")\n@reason("Too large.")\n'
    'forbid (principal, action == Action::"payment.submit", resource) when { context.amount_cny > 10000 };',
)


def run_policy(engine: PolicyEngine | None = None, nodes: list[NodeCall] | None = None) -> RunPolicy:
    return RunPolicy(
        user=OPERATOR,
        run_id="run-1",
        department_id="ops",
        business_line_id=None,
        hosts=frozenset({HOST}),
        engine=engine or PolicyEngine.with_defaults(),
        tokens=CapabilityTokens(derive_signing_key(b"k" * 32), InMemoryTokenUseStore()),
        ceiling=plan_ceiling(nodes or [PAY]),
    )


def test_the_manifest_is_compiled_once_and_again_only_when_the_node_changes() -> None:
    policy = run_policy()
    first, compiled = policy.manifest_for(PAY)
    assert compiled and first.grants == {"payment.submit": frozenset({HOST})}
    again, compiled = policy.manifest_for(PAY)
    assert again is first and not compiled
    _, compiled = policy.manifest_for(NodeCall(node_id="pay", operation="transfer.submit", effect="irreversible"))
    assert compiled


def test_a_replanned_amount_above_the_ceiling_is_bounded_and_refused() -> None:
    policy = run_policy()
    bigger = NodeCall(node_id="pay", operation="payment.submit", effect="irreversible", amount_cny=Decimal(99999))
    manifest, _ = policy.manifest_for(bigger)
    assert manifest.bounds.max_amount_cny == Decimal("12345.60")
    with pytest.raises(CapabilityDenied, match="more than this node's limit"):
        manifest.check("payment.submit", HOST, bigger.arguments)
    decision = policy.engine.decide(policy.request(manifest, bigger, HOST, risk_level="high"))
    assert decision.decision is Decision.DENY and decision.reason_codes == ["deny.outside_manifest"]


def test_a_tenant_deny_drops_the_operation_and_the_runtime_decision_names_it() -> None:
    policy = run_policy(PolicyEngine.with_defaults([LIMIT]))
    manifest, _ = policy.manifest_for(PAY)
    assert "payment.submit" not in manifest.grants
    assert [item.reason_code for item in manifest.dropped] == ["deny.payment_over_10k"]
    decision = policy.engine.decide(policy.request(manifest, PAY, HOST, risk_level="high"))
    assert decision.decision is Decision.DENY
    assert set(decision.reason_codes) == {"deny.outside_manifest", "deny.payment_over_10k"}


def test_an_allowed_high_risk_payment_requires_approval() -> None:
    policy = run_policy()
    manifest, _ = policy.manifest_for(PAY)
    decision = policy.engine.decide(policy.request(manifest, PAY, HOST, risk_level="high"))
    assert decision.decision is Decision.REQUIRE_APPROVAL and decision.reason_codes == ["approval.high_risk"]


def test_wrong_host_is_outside_the_manifest() -> None:
    policy = run_policy()
    manifest, _ = policy.manifest_for(PAY)
    with pytest.raises(CapabilityDenied, match="may not touch host"):
        manifest.check("payment.submit", "evil.example", PAY.arguments)


async def test_a_token_is_spent_once_and_refused_after_the_node_is_recompiled() -> None:
    policy = run_policy()
    policy.manifest_for(PAY)
    token = policy.issue_token("pay")
    verified = await policy.spend_token(token, "pay")
    assert verified.manifest.digest() == policy.manifests["pay"].digest()
    with pytest.raises(TokenReplayed):
        await policy.spend_token(token, "pay")
    stale = policy.issue_token("pay")
    policy.manifest_for(NodeCall(node_id="pay", operation="payment.submit", effect="irreversible"))
    with pytest.raises(TokenBindingMismatch):
        await policy.spend_token(stale, "pay")


def test_a_declared_business_operation_is_at_least_as_strong_as_its_catalogue_groups() -> None:
    policy = run_policy()
    assert policy.effect("payment.submit", "write") == "irreversible"
    assert policy.effect("statement.export", "read") == "read"
    assert policy.is_export("statement.export") and not policy.is_export("payment.submit")

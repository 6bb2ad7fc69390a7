"""Cedar decisions: allow, deny and require_approval, each with the reason code of the deciding policy."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from finrpa.policy.engine import PolicyEngine
from finrpa.policy.errors import PolicyValidationError
from finrpa.policy.policyset import PolicySource
from finrpa.policy.schemas import Decision, PolicyContext, PolicyPrincipal, PolicyRequest, PolicyResource

OPERATOR = PolicyPrincipal(id="u-op", org_id="org-a", roles=frozenset({"operator"}), departments=frozenset({"ops"}))
VIEWER = PolicyPrincipal(id="u-view", org_id="org-a", roles=frozenset({"viewer"}))
AGENT = PolicyPrincipal(
    kind="Agent", id="run-1/node-2", org_id="org-a", acting_for="u-op", run_id="run-1",
    roles=frozenset({"operator"}), departments=frozenset({"ops"}),
)  # fmt: skip
BANK = PolicyResource(id="bank.example", host="bank.example", department="ops")


@pytest.fixture(scope="module")
def engine() -> PolicyEngine:
    return PolicyEngine.with_defaults()


def decide(
    engine: PolicyEngine, principal: PolicyPrincipal, action: str, **context: object
) -> tuple[Decision, list[str]]:
    ctx = PolicyContext.model_validate({"in_manifest": True, **context})
    decision = engine.decide(PolicyRequest(principal=principal, action=action, resource=BANK, context=ctx))
    return decision.decision, decision.reason_codes


def test_reads_inside_the_manifest_are_allowed(engine: PolicyEngine) -> None:
    assert decide(engine, VIEWER, "navigate") == (Decision.ALLOW, ["allow.read"])


def test_writes_need_an_operating_role(engine: PolicyEngine) -> None:
    assert decide(engine, OPERATOR, "fill") == (Decision.ALLOW, ["allow.operator_change"])
    assert decide(engine, VIEWER, "fill") == (Decision.DENY, ["deny.not_permitted"])


def test_an_agent_holds_the_rights_of_the_user_it_acts_for(engine: PolicyEngine) -> None:
    assert decide(engine, AGENT, "FormFillSkill") == (Decision.ALLOW, ["allow.operator_change"])


def test_high_or_critical_risk_requires_approval(engine: PolicyEngine) -> None:
    result = decide(engine, AGENT, "payment.submit", risk_level="critical", amount_cny=Decimal(1_500_000))
    assert result == (Decision.REQUIRE_APPROVAL, ["approval.high_risk"])
    assert decide(engine, AGENT, "payment.submit", risk_level="medium")[0] is Decision.ALLOW


def test_exporting_more_than_100_records_requires_approval_except_own_statements(engine: PolicyEngine) -> None:
    customers = decide(engine, AGENT, "records.export", record_count=500, data_classes=frozenset({"customer_pii"}))
    assert customers == (Decision.REQUIRE_APPROVAL, ["approval.bulk_export"])
    statement = decide(engine, AGENT, "statement.export", record_count=500, data_classes=frozenset({"own_statement"}))
    assert statement[0] is Decision.ALLOW


def test_delete_actions_are_denied_even_with_approval_rules_matching(engine: PolicyEngine) -> None:
    assert decide(engine, AGENT, "record.delete", risk_level="high") == (Decision.DENY, ["deny.delete"])


def test_operations_outside_the_manifest_are_denied(engine: PolicyEngine) -> None:
    assert decide(engine, AGENT, "navigate", in_manifest=False) == (Decision.DENY, ["deny.outside_manifest"])


def test_an_unknown_operation_is_denied_without_asking_cedar(engine: PolicyEngine) -> None:
    assert decide(engine, AGENT, "shell.exec") == (Decision.DENY, ["deny.unknown_action"])


def test_every_decision_carries_the_sentence_of_its_policy(engine: PolicyEngine) -> None:
    ctx = PolicyContext(in_manifest=True, risk_level="high")
    decision = engine.decide(PolicyRequest(principal=AGENT, action="transfer.submit", resource=BANK, context=ctx))
    assert decision.reasons == ["Risk detection rated this step high or critical: a person must approve it first."]
    assert decision.policy_version == engine.version


TREASURY_NIGHT = """
@id("org.no_payments_at_night")
@reason("Payments are not submitted between 22:00 and 06:00 Beijing time.")
forbid (principal, action == Action::"payment.submit", resource)
when { context.hour >= 22 || context.hour < 6 };

@id("org.dual_control_over_500k")
@reason("Payments above 500,000 CNY need approval in this organisation.")
@effect("require_approval")
forbid (principal, action == Action::"payment.submit", resource)
when { context.amount_cny > 500000 };
"""


def test_an_organisation_adds_its_own_policies() -> None:
    engine = PolicyEngine.with_defaults([PolicySource("treasury rules", TREASURY_NIGHT)])
    noon = datetime(2026, 3, 2, 4, 0, tzinfo=UTC)  # 12:00 in Beijing
    night = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)  # 23:00 in Beijing
    assert decide(engine, AGENT, "payment.submit", at=noon) == (Decision.ALLOW, ["allow.operator_change"])
    assert decide(engine, AGENT, "payment.submit", at=night) == (Decision.DENY, ["org.no_payments_at_night"])
    big = decide(engine, AGENT, "payment.submit", at=noon, amount_cny=Decimal(600_000))
    assert big == (Decision.REQUIRE_APPROVAL, ["org.dual_control_over_500k"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('@id("x") permit (principal, action, resource) when { context.amount > 5 };',
         "[x] attribute `amount` in context not found"),
        ('@id("y") permit (principal, action == Action::"wire.send", resource);',
         'unrecognized action `Action::"wire.send"`'),
        ("permit (principal, action, resource) when {", "does not parse as Cedar"),
        ("permit (principal, action, resource);", "has no @id annotation"),
        ('@id("z") @effect("require_approval") permit (principal, action, resource);', "on a forbid policy"),
        ('@id("allow.read") forbid (principal, action, resource);', "already used by default policies"),
    ],
)  # fmt: skip
def test_an_invalid_tenant_policy_is_rejected_with_the_validators_message(text: str, message: str) -> None:
    with pytest.raises(PolicyValidationError) as caught:
        PolicyEngine.with_defaults([PolicySource("policy 'night rules'", text)])
    assert message in caught.value.message

"""Organisations' own policies and the decision log, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from finrpa.db.engine import unit_of_work
from finrpa.policy.errors import PolicyValidationError
from finrpa.policy.schemas import Decision, PolicyContext, PolicyPrincipal, PolicyRequest, PolicyResource
from finrpa.policy.service import PolicyService
from finrpa.tenancy import system_context, use_tenant
from tests.integration.policy.conftest import PolicyDatabase, admin_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

NO_EXPORTS = """
@id("org.no_customer_exports")
@reason("Customer data never leaves the portal in this organisation.")
forbid (principal, action in Action::"export", resource)
when { context.data_classes.contains("customer_pii") };
"""


def export_request(org_id: str) -> PolicyRequest:
    agent = PolicyPrincipal(
        kind="Agent", id="run-7/export", org_id=org_id, acting_for="u-op", run_id="run-7", roles=frozenset({"operator"})
    )
    context = PolicyContext(in_manifest=True, record_count=20, data_classes=frozenset({"customer_pii"}),
                            host="crm.example")  # fmt: skip
    resource = PolicyResource(id="crm.example", host="crm.example")
    return PolicyRequest(principal=agent, action="records.export", resource=resource, context=context)


async def test_an_org_policy_is_stored_and_enforced_only_in_its_organisation(
    policy_db: PolicyDatabase, org_id: str
) -> None:
    other_org = f"{org_id}-b"[:32]
    with use_tenant(admin_of(org_id)):
        async with unit_of_work(policy_db.app.sessions) as session:
            await PolicyService(session).add_policy(org_id, "no customer exports", NO_EXPORTS, created_by="admin-1")
        async with unit_of_work(policy_db.app.sessions) as session:
            decided = await PolicyService(session).decide(export_request(org_id), node_id="export")
    assert (decided.decision, decided.reason_codes) == (Decision.DENY, ["org.no_customer_exports"])
    with use_tenant(admin_of(other_org)):
        async with unit_of_work(policy_db.app.sessions) as session:
            elsewhere = await PolicyService(session).decide(export_request(other_org))
    assert elsewhere.decision is Decision.ALLOW


async def test_an_invalid_policy_is_rejected_with_the_validators_message_and_not_stored(
    policy_db: PolicyDatabase, org_id: str
) -> None:
    broken = '@id("org.big") forbid (principal, action, resource) when { context.amount > 10 };'
    with use_tenant(admin_of(org_id)):
        with pytest.raises(PolicyValidationError, match=r"\[org\.big\] attribute `amount` in context not found"):
            async with unit_of_work(policy_db.app.sessions) as session:
                await PolicyService(session).add_policy(org_id, "big payments", broken, created_by="admin-1")
        async with unit_of_work(policy_db.app.sessions) as session:
            assert list(await PolicyService(session).list_policies(org_id)) == []


async def test_a_disabled_policy_is_no_longer_in_force(policy_db: PolicyDatabase, org_id: str) -> None:
    with use_tenant(admin_of(org_id)):
        async with unit_of_work(policy_db.app.sessions) as session:
            stored = await PolicyService(session).add_policy(org_id, "no exports", NO_EXPORTS, created_by="admin-1")
        async with unit_of_work(policy_db.app.sessions) as session:
            await PolicyService(session).disable_policy(org_id, stored.id, disabled_by="admin-2")
        async with unit_of_work(policy_db.app.sessions) as session:
            assert (await PolicyService(session).decide(export_request(org_id))).decision is Decision.ALLOW


async def test_the_decision_is_logged_before_the_caller_acts(policy_db: PolicyDatabase, org_id: str) -> None:
    with use_tenant(admin_of(org_id)):
        async with unit_of_work(policy_db.app.sessions) as session:
            service = PolicyService(session)
            request = export_request(org_id).model_copy(update={"action": "payment.submit"})
            request = request.model_copy(update={"context": request.context.model_copy(update={"risk_level": "high"})})
            decided = await service.decide(request, node_id="pay")
            # Still inside the unit of work, before any effect: the row is already there.
            (logged,) = await service.decisions_for_run(org_id, "run-7")
    assert decided.decision is Decision.REQUIRE_APPROVAL
    assert (logged.action, logged.decision, logged.reason_codes, logged.node_id) == (
        "payment.submit", "require_approval", ["approval.high_risk"], "pay",
    )  # fmt: skip
    assert logged.context["risk_level"] == "high" and logged.policy_version == decided.policy_version


async def test_the_decision_log_is_append_only(policy_db: PolicyDatabase, org_id: str) -> None:
    with use_tenant(admin_of(org_id)):
        async with unit_of_work(policy_db.app.sessions) as session:
            await PolicyService(session).decide(export_request(org_id))
    for statement in ("UPDATE policy_decisions SET decision = 'allow'", "DELETE FROM policy_decisions"):
        with pytest.raises(DBAPIError, match=r"append-only|cannot be"):
            async with policy_db.owner.begin() as connection:
                await connection.execute(text(f"{statement} WHERE org_id = :org"), {"org": org_id})
    if policy_db.is_postgres:
        with system_context("tamper test", org_id=org_id), pytest.raises(DBAPIError, match="permission denied"):
            async with policy_db.app.sessions() as session, session.begin():
                await session.execute(text("DELETE FROM policy_decisions"))

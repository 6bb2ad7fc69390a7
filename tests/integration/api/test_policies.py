"""Policies over HTTP (org admins): the shipped default set and the organisation's own policies, adding one
(checked against the schema and the policies in force), disabling one, and what others may not do."""

from __future__ import annotations

from typing import Any

import pytest

from finrpa.audit.schemas import AuditQuery
from finrpa.db.engine import unit_of_work
from finrpa.policy.service import PolicyService
from finrpa.tenancy.context import system_context
from tests.integration.api.world import World

pytestmark = pytest.mark.asyncio(loop_scope="module")

NIGHT = """
@id("org.no_payments_at_night")
@reason("Payments are not submitted at night.")
forbid (principal, action == Action::"payment.submit", resource) when { context.hour >= 22 };

@id("org.dual_control_over_500k")
@reason("Payments above 500,000 CNY need approval in this organisation.")
@effect("require_approval")
forbid (principal, action == Action::"payment.submit", resource) when { context.amount_cny > 500000 };
"""
WRONG_ATTRIBUTE = '@id("org.big") @reason("Big.") forbid (principal, action, resource) when { context.amount > 10 };'
TAKEN_ID = '@id("allow.read") @reason("Mine.") forbid (principal, action, resource);'


async def _add(world: World, name: str, text: str, user: str = "admin", **kwargs: Any) -> Any:
    return await world.call("POST", "/api/v1/policies", "a", user, json={"name": name, "cedar_text": text}, **kwargs)


async def _in_force(world: World) -> set[str]:
    org = world.orgs["a"]
    with system_context("test: the policies in force", org_id=org.id):
        async with unit_of_work(world.state.database.sessions) as session:
            engine = await PolicyService(session).engine(org.id)
            return set(engine.compiled.info)


async def _audited(world: World, action_type: str) -> list[Any]:
    org = world.orgs["a"]
    with system_context("test: read the audit trail", org_id=org.id):
        async with unit_of_work(world.state.database.sessions) as session:
            page = await world.state.audit.search(session, org.id, AuditQuery(action_types=[action_type]))
            return list(page.items)


async def test_admins_see_the_default_set_and_add_a_policy_that_takes_effect(world: World) -> None:
    listed = await world.call("GET", "/api/v1/policies", "a", "admin")
    assert listed.status_code == 200, listed.text
    defaults = {rule["policy_id"]: rule for rule in listed.json()["defaults"]["rules"]}
    assert defaults["approval.high_risk"]["effect"] == "require_approval"
    assert defaults["deny.delete"]["effect"] == "forbid" and defaults["allow.read"]["effect"] == "permit"

    added = await _add(world, "夜间禁止付款", NIGHT, headers={"Idempotency-Key": "night-1"})
    assert added.status_code == 201, added.text
    policy = added.json()
    assert added.headers["Location"] == f"/api/v1/policies/{policy['id']}"
    assert policy["enabled"] is True and policy["created_by"] == world.orgs["a"].users["admin"]
    effects = {rule["policy_id"]: rule["effect"] for rule in policy["rules"]}
    assert effects == {"org.no_payments_at_night": "forbid", "org.dual_control_over_500k": "require_approval"}
    replay = await _add(world, "夜间禁止付款", NIGHT, headers={"Idempotency-Key": "night-1"})
    assert replay.status_code == 201 and replay.json()["id"] == policy["id"], "a retry adds nothing"
    assert {"org.no_payments_at_night", "org.dual_control_over_500k"} <= await _in_force(world)
    assert any(row.details["policy_id"] == policy["id"] for row in await _audited(world, "POLICY_ADDED"))

    disabled = await world.call("POST", f"/api/v1/policies/{policy['id']}/disable", "a", "admin")
    assert disabled.status_code == 200, disabled.text
    assert disabled.json()["enabled"] is False and disabled.json()["disabled_by"] == world.orgs["a"].users["admin"]
    assert "org.no_payments_at_night" not in await _in_force(world)
    assert any(row.details["policy_id"] == policy["id"] for row in await _audited(world, "POLICY_DISABLED"))
    again = await world.call("POST", f"/api/v1/policies/{policy['id']}/disable", "a", "admin")
    assert again.status_code == 409 and "already disabled" in again.json()["detail"]
    items = (await world.call("GET", "/api/v1/policies", "a", "admin")).json()["items"]
    assert [item["enabled"] for item in items if item["id"] == policy["id"]] == [False]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (WRONG_ATTRIBUTE, "does not validate against the FinRPA schema"),
        (TAKEN_ID, "already used by default policies"),
        ("permit (principal, action, resource", "does not parse as Cedar"),
        ("forbid (principal, action, resource);", "has no @id annotation"),
    ],
)
async def test_an_invalid_policy_is_refused_with_the_validators_message(world: World, text: str, message: str) -> None:
    refused = await _add(world, "broken", text)
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "policy_invalid" and message in refused.json()["detail"]
    listed = (await world.call("GET", "/api/v1/policies", "a", "admin")).json()["items"]
    assert all(item["name"] != "broken" for item in listed)


async def test_only_admins_manage_policies(world: World) -> None:
    for user in ("operator", "approver", "auditor"):
        assert (await world.call("GET", "/api/v1/policies", "a", user)).status_code == 403, user
        assert (await _add(world, "mine", NIGHT, user=user)).status_code == 403, user


async def test_another_organisations_policy_cannot_be_disabled(world: World) -> None:
    added = await _add(world, "only-in-a", NIGHT.replace("org.", "org.a_"))
    assert added.status_code == 201, added.text
    policy_id = added.json()["id"]
    foreign = await world.call("POST", f"/api/v1/policies/{policy_id}/disable", "b", "admin")
    assert foreign.status_code == 404 and policy_id not in foreign.text
    assert policy_id not in (await world.call("GET", "/api/v1/policies", "b", "admin")).text
    mine = await world.call("POST", f"/api/v1/policies/{policy_id}/disable", "a", "admin")
    assert mine.status_code == 200

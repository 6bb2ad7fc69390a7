"""The vault over HTTP: values go in and never come out; admins only; audited without the value."""

from __future__ import annotations

import pytest

from tests.integration.api.world import World

pytestmark = pytest.mark.asyncio(loop_scope="module")

VALUE = "test-only-not-a-real-password-Zq81"


async def test_a_credential_is_write_only_and_listed_by_name(world: World) -> None:
    dept = world.orgs["a"].departments["ops"]
    body = {"name": "portal/bank-login", "value": VALUE, "dept_id": dept, "description": "bank portal"}
    created = await world.call("POST", "/api/v1/credentials", "a", "admin", json=body)
    assert created.status_code == 201, created.text
    assert created.json()["reference"] == "secret://portal/bank-login" and VALUE not in created.text
    listed = await world.call("GET", "/api/v1/credentials", "a", "operator")
    assert [c["name"] for c in listed.json()] == ["portal/bank-login"] and VALUE not in listed.text
    audit = await world.call("GET", "/api/v1/audit/records", "a", "admin", params={"action_type": "CREDENTIAL_STORED"})
    assert audit.json()["items"] and VALUE not in audit.text
    deleted = await world.call("DELETE", "/api/v1/credentials/portal/bank-login", "a", "admin")
    assert deleted.status_code == 204
    assert (await world.call("GET", "/api/v1/credentials", "a", "admin")).json() == []
    again = await world.call("DELETE", "/api/v1/credentials/portal/bank-login", "a", "admin")
    assert again.status_code == 404


async def test_operators_cannot_store_credentials_and_bad_names_are_422(world: World) -> None:
    body = {"name": "x", "value": VALUE, "dept_id": world.orgs["a"].departments["ops"]}
    assert (await world.call("POST", "/api/v1/credentials", "a", "operator", json=body)).status_code == 403
    bad = await world.call("POST", "/api/v1/credentials", "a", "admin", json={"name": "has space", "value": VALUE})
    assert bad.status_code == 422
    empty = await world.call("POST", "/api/v1/credentials", "a", "admin", json={"name": "empty", "value": ""})
    assert empty.status_code == 422

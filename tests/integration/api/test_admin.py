"""Organisation structure over HTTP: departments, business lines, users, roles (maker-checker), grants."""

from __future__ import annotations

import pytest

from tests.integration.api.world import PASSWORD, World

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_members_read_the_structure_and_only_admins_change_it(world: World) -> None:
    departments = (await world.call("GET", "/api/v1/departments", "a", "viewer")).json()
    assert [d["code"] for d in departments] == ["ops", "risk"]
    lines = (await world.call("GET", "/api/v1/business-lines", "a", "viewer")).json()
    assert [line["code"] for line in lines] == ["corporate"]
    denied = await world.call("POST", "/api/v1/departments", "a", "operator", json={"code": "fx", "name": "FX"})
    assert denied.status_code == 403
    created = await world.call("POST", "/api/v1/departments", "a", "admin", json={"code": "fx", "name": "外汇部"})
    assert created.status_code == 201 and created.headers["location"].endswith(created.json()["id"])
    duplicate = await world.call("POST", "/api/v1/departments", "a", "admin", json={"code": "fx", "name": "again"})
    assert duplicate.status_code == 409
    line = await world.call("POST", "/api/v1/business-lines", "a", "admin", json={"code": "retail", "name": "零售"})
    assert line.status_code == 201
    one = await world.call("GET", f"/api/v1/business-lines/{line.json()['id']}", "a", "viewer")
    assert one.json()["code"] == "retail"


async def test_users_are_created_and_roles_granted_under_maker_checker(world: World) -> None:
    org = world.orgs["a"]
    created = await world.call(
        "POST", "/api/v1/users", "a", "admin", json={"username": "newbie", "display_name": "新人", "password": PASSWORD}
    )
    assert created.status_code == 201, created.text
    assert "password" not in created.text
    user_id = created.json()["id"]
    ops = org.departments["ops"]
    granted = await world.call(
        "POST", f"/api/v1/users/{user_id}/roles", "a", "admin", json={"department_id": ops, "role": "operator"}
    )
    assert granted.json()["departments"] == [{"department_id": ops, "roles": ["operator"]}]
    conflict = await world.call(
        "POST", f"/api/v1/users/{user_id}/roles", "a", "admin", json={"department_id": ops, "role": "approver"}
    )
    assert conflict.status_code == 409 and conflict.json()["code"] == "maker_checker_violation"
    revoked = await world.call("DELETE", f"/api/v1/users/{user_id}/roles/{ops}/operator", "a", "admin")
    assert revoked.status_code == 200 and revoked.json()["departments"] == []
    lined = await world.call(
        "POST", f"/api/v1/users/{user_id}/business-lines", "a", "admin", json={"business_line_id": org.line_id}
    )
    assert lined.json()["business_line_ids"] == [org.line_id]
    grant = await world.call("POST", f"/api/v1/users/{user_id}/grants", "a", "admin", json={"kind": "CROSS_DEPT_READ"})
    assert grant.status_code == 201 and grant.json()["grants"][0]["kind"] == "CROSS_DEPT_READ"
    users = (await world.call("GET", "/api/v1/users", "a", "admin")).json()
    assert "newbie" in {u["username"] for u in users}
    assert (await world.call("GET", "/api/v1/users", "a", "operator")).status_code == 403
    assert (await world.call("GET", f"/api/v1/users/{org.users['operator']}", "a", "operator")).status_code == 200

"""Sign-in over HTTP: tokens, the refresh cookie and its rotation, logout, /me, API keys, problem documents."""

from __future__ import annotations

import pytest

from tests.integration.api.world import PASSWORD, World

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _login(world: World, user: str = "operator", **extra: object) -> dict[str, object]:
    body = {"org": world.orgs["a"].slug, "username": user, "password": PASSWORD, **extra}
    response = await world.client.post("/api/v1/auth/login", json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_login_gives_an_access_token_and_a_strict_httponly_refresh_cookie(world: World) -> None:
    response = await world.client.post(
        "/api/v1/auth/login", json={"org": world.orgs["a"].slug, "username": "operator", "password": PASSWORD}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 900 and body["refresh_token"] is None
    cookie = response.headers["set-cookie"].lower()
    assert "finrpa_refresh=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
    assert "path=/api/v1/auth" in cookie
    me = await world.client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {body['access_token']}"})
    assert me.status_code == 200
    assert me.json()["username"] == "operator" and me.json()["org_id"] == world.orgs["a"].id
    assert me.json()["departments"] == [{"department_id": world.orgs["a"].departments["ops"], "roles": ["operator"]}]


async def test_a_wrong_password_is_a_401_problem_that_names_nothing(world: World) -> None:
    response = await world.client.post(
        "/api/v1/auth/login", json={"org": world.orgs["a"].slug, "username": "viewer", "password": "wrong password!"}
    )
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["www-authenticate"].startswith("Bearer")
    problem = response.json()
    assert problem["code"] == "authentication_failed" and problem["retryable"] is False
    assert problem["type"] == "urn:finrpa:problem:authentication_failed" and problem["status"] == 401
    assert problem["detail"] == "Wrong organisation, username or password."
    assert problem["request_id"] == response.headers["x-request-id"]


async def test_refresh_rotates_and_a_replayed_refresh_token_ends_the_sign_in(world: World) -> None:
    tokens = await _login(world, refresh_token_in_body=True)
    first_refresh = tokens["refresh_token"]
    rotated = await world.client.post("/api/v1/auth/refresh", json={"refresh_token": first_refresh})
    assert rotated.status_code == 200, rotated.text
    assert rotated.json()["refresh_token"] not in (None, first_refresh)
    replay = await world.client.post("/api/v1/auth/refresh", json={"refresh_token": first_refresh})
    assert replay.status_code == 401 and replay.json()["code"] == "refresh_token_reused"
    newest = await world.client.post("/api/v1/auth/refresh", json={"refresh_token": rotated.json()["refresh_token"]})
    assert newest.status_code == 401, "every token of the sign-in is revoked after a replay"


async def test_the_cookie_refreshes_and_a_cross_origin_cookie_refresh_is_refused(world: World) -> None:
    await _login(world, "approver")
    assert world.client.cookies.get("finrpa_refresh")
    refused = await world.client.post("/api/v1/auth/refresh", headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403 and refused.json()["code"] == "cross_origin_refused"
    refreshed = await world.client.post("/api/v1/auth/refresh", headers={"Origin": "http://finrpa.test"})
    assert refreshed.status_code == 200, refreshed.text
    assert refreshed.json()["refresh_token"] is None
    world.client.cookies.clear()
    missing = await world.client.post("/api/v1/auth/refresh")
    assert missing.status_code == 401


async def test_logout_ends_the_access_token_at_once(world: World) -> None:
    tokens = await _login(world, "viewer")
    headers = {"Authorization": f"Bearer {tokens['access_token']}"}
    assert (await world.client.post("/api/v1/auth/logout", headers=headers)).status_code == 204
    after = await world.client.get("/api/v1/auth/me", headers=headers)
    assert after.status_code == 401


@pytest.mark.parametrize("header", [None, "Bearer nonsense", "Basic b3BlcmF0b3I6cHc="])
async def test_routes_other_than_login_and_health_need_a_bearer(world: World, header: str | None) -> None:
    response = await world.client.get("/api/v1/tasks", headers={"Authorization": header} if header else {})
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"


async def test_an_api_key_authenticates_within_its_scopes(world: World) -> None:
    org = world.orgs["a"]
    created = await world.call(
        "POST",
        "/api/v1/api-keys",
        "a",
        "admin",
        json={"user_id": org.users["operator"], "name": "reporting", "scopes": ["read"]},
    )
    assert created.status_code == 201, created.text
    key = created.json()["key"]
    assert key.startswith("fk_")
    headers = {"Authorization": f"Bearer {key}"}
    assert (await world.client.get("/api/v1/tasks", headers=headers)).status_code == 200
    denied = await world.client.post(
        "/api/v1/tasks", headers=headers, json={"template_id": "bank_statement_download", "parameters": {}}
    )
    assert denied.status_code == 403 and denied.json()["code"] == "permission_denied.api_key_scope"
    listed = await world.call("GET", "/api/v1/api-keys", "a", "admin")
    assert key not in listed.text and created.json()["prefix"] in listed.text
    revoked = await world.call("DELETE", f"/api/v1/api-keys/{created.json()['prefix']}", "a", "admin")
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    assert (await world.client.get("/api/v1/tasks", headers=headers)).status_code == 401

"""The endpoint × foreign-id matrix: every route that takes an id, called by another organisation's users with a
real id of the first organisation, answers 404 and names nothing of the first organisation.

The routes come from the application itself, so a new route is covered as soon as it exists: it needs an id
for each of its path parameters (``REAL_IDS``) and, if it takes a body, an entry in ``BODIES`` — or the test
fails and says so. Routes left out are listed in ``EXCEPTIONS`` with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.routing import APIRoute, iter_route_contexts

from finrpa.approvals.service import ApprovalService
from finrpa.audit.events import AuditEntry
from finrpa.db.engine import unit_of_work
from finrpa.tenancy.context import system_context
from tests.integration.api.world import World

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXCEPTIONS = {
    "/api/v1/templates/{template_id}": "the template catalogue ships with the installation and is the same for "
    "every organisation; it holds no tenant data",
    "/api/v1/objects/{bucket}/{key}": "downloads are authorised by the HMAC signature of a link issued (and "
    "audited) to a caller who could see the row; bucket and key alone open nothing",
}
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/api/v1/tasks/{task_id}/resolve"): {"action": "abort"},
    ("POST", "/api/v1/audit/records/{record_id}/links"): {"phase": "before"},
    ("POST", "/api/v1/users/{user_id}/roles"): {"department_id": "{department_id}", "role": "viewer"},
    ("POST", "/api/v1/users/{user_id}/business-lines"): {"business_line_id": "{business_line_id}"},
    ("POST", "/api/v1/users/{user_id}/grants"): {"kind": "CROSS_DEPT_READ", "department_id": "{department_id}"},
    ("POST", "/api/v1/approvals/{approval_id}/decision"): {"verdict": "approve", "payload_hash": "0" * 64},
}
POLICY = '@id("org.only_in_a") @reason("Test policy of the first organisation.") forbid (principal, action, resource) \
when { context.amount_cny > 1000000000 };'

LITERALS = {"role": "operator"}


@dataclass
class Target:
    method: str
    path: str
    url: str
    body: dict[str, Any] | None


@dataclass
class IdRoute:
    path: str
    methods: set[str]
    takes_body: bool


def id_routes(world: World) -> list[IdRoute]:
    """Every API route with a path parameter, from the application's own routing table."""
    found = []
    for context in iter_route_contexts(world.app.routes):
        path, route = context.path or "", context.original_route
        if isinstance(route, APIRoute) and path.startswith("/api/v1/") and "{" in path:
            template = re.sub(r":\w+}", "}", path)  # {name:path} → {name}
            found.append(IdRoute(template, set(context.methods or ()), route.body_field is not None))
    return found


async def _first_org_ids(world: World) -> dict[str, str]:
    org = world.orgs["a"]
    task = await world.create_task()
    credential = await world.call(
        "POST", "/api/v1/credentials", "a", "admin", json={"name": "only-in-a", "value": "test-only-value-1"}
    )
    key = await world.call(
        "POST",
        "/api/v1/api-keys",
        "a",
        "admin",
        json={"user_id": org.users["operator"], "name": "k", "scopes": ["read"]},
    )
    with system_context("test: an audit row with a screenshot", org_id=org.id):
        async with unit_of_work(world.state.database.sessions) as session:
            row = await world.state.audit.append(
                session,
                AuditEntry(
                    org_id=org.id,
                    action_type="CLICK",
                    executor="agent",
                    dept_id=org.departments["ops"],
                    screenshot_before=b"\x89PNG\r\n\x1a\n" + b"\x01" * 32,
                ),
            )
    approval_id = await _approval_request(world, task)
    body = {"name": "only-in-a", "cedar_text": POLICY}
    policy = await world.call("POST", "/api/v1/policies", "a", "admin", json=body)
    assert policy.status_code == 201, policy.text
    return {
        "approval_id": approval_id,
        "policy_id": policy.json()["id"],
        "task_id": task["id"],
        "record_id": row.id,
        "department_id": org.departments["ops"],
        "business_line_id": org.line_id,
        "user_id": org.users["operator"],
        "prefix": key.json()["prefix"],
        "name": credential.json()["name"],
    }


async def _approval_request(world: World, task: dict[str, Any]) -> str:
    """An approval request of the first organisation, for the approval routes (mounted when they exist)."""
    org = world.orgs["a"]
    with system_context("test: an approval request", org_id=org.id):
        async with unit_of_work(world.state.database.sessions) as session:
            service = ApprovalService(session, world.settings, audit=world.state.audit)
            approval = await service.request(
                task["id"],
                task["plan"]["subtasks"][0]["subtask_id"],
                {"action": "click", "target": "确认付款"},
                {"level": "high", "reasons": ["payment"]},
                org.users["operator"],
                org.departments["ops"],
                None,
                org.id,
            )
    return approval.id


def _targets(world: World, ids: dict[str, str]) -> list[Target]:
    targets = []
    for route in id_routes(world):
        if route.path in EXCEPTIONS:
            continue
        names = re.findall(r"{(\w+)}", route.path)
        missing = [name for name in names if name not in ids and name not in LITERALS]
        assert not missing, f"{route.path}: give the matrix a real first-organisation value for {missing}"
        values = {**LITERALS, **ids}
        url = route.path.format(**values)
        for method in sorted(route.methods):
            body = None
            if route.takes_body:
                assert (method, route.path) in BODIES, f"{method} {route.path}: add a valid body to BODIES"
                body = {
                    k: (ids[v[1:-1]] if isinstance(v, str) and v.startswith("{") else v)
                    for k, v in BODIES[(method, route.path)].items()
                }
            targets.append(Target(method, route.path, url, body))
    return targets


@pytest.mark.parametrize("intruder", ["admin", "operator", "auditor"])
async def test_no_route_reveals_or_touches_another_organisations_object(world: World, intruder: str) -> None:
    ids = await _first_org_ids(world)
    first = world.orgs["a"]
    secrets_of_first = {first.id, first.slug, *ids.values(), *first.users.values(), *first.departments.values()}
    targets = _targets(world, ids)
    assert len(targets) >= 18, "the matrix lost its routes"
    failures = []
    for target in targets:
        response = await world.call(target.method, target.url, "b", intruder, json=target.body)
        leaked = sorted(s for s in secrets_of_first if s in response.text)
        if response.status_code != 404 or leaked:
            failures.append(
                f"{target.method} {target.path} → {response.status_code}, leaked {leaked}: {response.text[:200]}"
            )
    assert not failures, "\n".join(failures)
    still = await world.call("GET", f"/api/v1/tasks/{ids['task_id']}", "a", "operator")
    assert still.json()["status"] == "PENDING", "nothing of the first organisation changed"
    credentials = await world.call("GET", "/api/v1/credentials", "a", "admin")
    assert "only-in-a" in credentials.text
    await world.call("DELETE", "/api/v1/credentials/only-in-a", "a", "admin")
    approval = await world.call("GET", f"/api/v1/approvals/{ids['approval_id']}", "a", "approver")
    assert approval.json()["status"] == "PENDING" and approval.json()["decisions"] == []
    policies = (await world.call("GET", "/api/v1/policies", "a", "admin")).json()["items"]
    assert [p["enabled"] for p in policies if p["id"] == ids["policy_id"]] == [True]
    await world.call("POST", f"/api/v1/policies/{ids['policy_id']}/disable", "a", "admin")


async def test_every_exception_still_names_a_real_route() -> None:
    from finrpa.api import ApiOptions, create_app

    app = create_app(options=ApiOptions(worker=False, dispatcher=False))
    paths = {re.sub(r":\w+}", "}", context.path or "") for context in iter_route_contexts(app.routes)}
    assert set(EXCEPTIONS) <= paths

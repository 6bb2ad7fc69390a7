"""A running API over a migrated database with two organisations, for the API tests.

Organisation ``a`` and ``b`` each have departments ``ops`` and ``risk``, a business line ``corporate`` and
users: ``admin`` (org admin), ``operator``, ``approver``, ``auditor`` and ``viewer`` in ``ops``, and
``risk_op`` (operator in ``risk``). Everybody's password is the test-only ``PASSWORD``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from finrpa.api import ApiOptions, create_app
from finrpa.config import Settings
from finrpa.db.base import new_id
from finrpa.db.migrate import upgrade
from finrpa.http.state import ApiState, state_of
from finrpa.identity.models import Role
from finrpa.identity.permissions import Principal
from finrpa.identity.service import DirectoryService, NewUser
from finrpa.tenancy import open_tenant_database, system_context
from tests.fixtures.databases import fresh_database

PASSWORD = "correct horse battery staple"  # test-only, obviously not a real credential
PEOPLE: dict[str, tuple[str, Role | None]] = {
    "admin": ("ops", None),
    "operator": ("ops", Role.OPERATOR),
    "approver": ("ops", Role.APPROVER),
    "auditor": ("ops", Role.AUDITOR),
    "viewer": ("ops", Role.VIEWER),
    "risk_op": ("risk", Role.OPERATOR),
}
BANK_PARAMETERS = {
    "bank_url": "http://127.0.0.1:9/bank",
    "username": "corp_demo",
    "password": "secret://bank-password",
    "account_number": "1001020309000123456",
    "start_date": "2026-01-01",
    "end_date": "2026-01-31",
}


@dataclass
class Org:
    id: str
    slug: str
    departments: dict[str, str]
    line_id: str
    users: dict[str, str]


@dataclass
class World:
    app: FastAPI
    client: httpx.AsyncClient
    settings: Settings
    backend: str
    orgs: dict[str, Org]
    tokens: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def state(self) -> ApiState:
        state = state_of(self.app)
        assert state is not None
        return state

    async def headers(self, org: str, user: str) -> dict[str, str]:
        if (org, user) not in self.tokens:
            response = await self.client.post(
                "/api/v1/auth/login", json={"org": self.orgs[org].slug, "username": user, "password": PASSWORD}
            )
            assert response.status_code == 200, response.text
            self.tokens[(org, user)] = response.json()["access_token"]
        return {"Authorization": f"Bearer {self.tokens[(org, user)]}"}

    async def call(self, method: str, path: str, org: str, user: str, **kwargs: Any) -> httpx.Response:
        headers = {**(await self.headers(org, user)), **kwargs.pop("headers", {})}
        return await self.client.request(method, path, headers=headers, **kwargs)

    async def create_task(self, org: str = "a", user: str = "operator", **overrides: Any) -> dict[str, Any]:
        body = {"template_id": "bank_statement_download", "parameters": dict(BANK_PARAMETERS), **overrides}
        response = await self.call("POST", "/api/v1/tasks", org, user, json=body)
        assert response.status_code == 201, response.text
        result: dict[str, Any] = response.json()
        return result


async def _seed_org(settings: Settings, url: str, name: str) -> Org:
    database = open_tenant_database(url)
    try:
        async with database.sessions() as session, session.begin():
            directory = DirectoryService(session, settings)
            with system_context("test: organisation"):
                org = await directory.create_organization(
                    Principal.platform("-", "test"), slug=f"{name}-{new_id()[:8]}", name=f"Bank {name.upper()}"
                )
            with system_context("test: people", org_id=org.id):
                actor = Principal.platform(org.id, "test")
                departments = {
                    code: await directory.create_department(actor, org.id, code=code, name=code.upper())
                    for code in ("ops", "risk")
                }
                line = await directory.create_business_line(actor, org.id, code="corporate", name="对公业务")
                users: dict[str, str] = {}
                for username, (code, role) in PEOPLE.items():
                    new = NewUser(username=username, password=PASSWORD, org_admin=role is None)
                    user = await directory.create_user(actor, org.id, new)
                    if role is not None:
                        await directory.grant_role(actor, user, departments[code], role)
                    users[username] = user.id
        return Org(org.id, org.slug, {code: d.id for code, d in departments.items()}, line.id, users)
    finally:
        await database.dispose()


@asynccontextmanager
async def seeded_database(backend: str, tmp: Path) -> AsyncIterator[tuple[Settings, dict[str, Org]]]:
    """A migrated database with organisations ``a`` and ``b``, and settings pointing at it."""
    async with fresh_database(backend, tmp) as url:
        await upgrade(url)
        settings = Settings(env="development", database_url=url, data_dir=tmp / "var")
        yield settings, {name: await _seed_org(settings, url, name) for name in ("a", "b")}


@asynccontextmanager
async def running_world(backend: str, tmp: Path, options: ApiOptions | None = None) -> AsyncIterator[World]:
    async with seeded_database(backend, tmp) as (settings, orgs):
        app = create_app(settings, options or ApiOptions(worker=False, dispatcher=False, auto_migrate=False))
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://finrpa.test") as client:
                yield World(app, client, settings, backend, orgs)

"""Shared set-up for identity, tenancy and vault tests: one migrated database per backend and test module."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from finrpa.config import Settings
from finrpa.db.base import new_id
from finrpa.db.migrate import upgrade
from finrpa.identity.models import Department, Organization, Role, User
from finrpa.identity.permissions import Principal
from finrpa.identity.service import DirectoryService, NewUser
from finrpa.tenancy import TenantDatabase, open_tenant_database, system_context
from tests.fixtures.databases import fresh_database

PASSWORD = "correct horse battery staple"  # test-only, obviously not a real credential


@dataclass
class Backend:
    name: str
    url: str
    db: TenantDatabase
    settings: Settings


@asynccontextmanager
async def migrated_backend(backend: str, tmp: Path) -> AsyncIterator[Backend]:
    async with fresh_database(backend, tmp) as url:
        await upgrade(url)
        db = open_tenant_database(url)
        try:
            yield Backend(backend, url, db, Settings(env="development", data_dir=tmp / "var"))
        finally:
            await db.dispose()


@dataclass
class OrgFixture:
    org: Organization
    department: Department
    other_department: Department
    users: dict[str, User]

    @property
    def org_id(self) -> str:
        return self.org.id


async def make_org(
    backend: Backend, roles: dict[str, tuple[Role, ...]] | None = None, *, org_admins: tuple[str, ...] = ()
) -> OrgFixture:
    """An organisation with departments ``ops`` and ``risk`` and users holding ``roles`` in ``ops``."""
    roles = roles or {}
    async with backend.db.sessions() as session, session.begin():
        directory = DirectoryService(session, backend.settings)
        with system_context("test: organisation"):
            org = await directory.create_organization(
                Principal.platform("-", "test"), slug=f"org-{new_id()[:10]}", name="Test Org"
            )
        with system_context("test: people", org_id=org.id):
            actor = Principal.platform(org.id, "test")
            ops = await directory.create_department(actor, org.id, code="ops", name="运营部")
            risk = await directory.create_department(actor, org.id, code="risk", name="风险部")
            users: dict[str, User] = {}
            for username in {*roles, *org_admins}:
                new = NewUser(username=username, password=PASSWORD, org_admin=username in org_admins)
                users[username] = await directory.create_user(actor, org.id, new)
                for role in roles.get(username, ()):
                    await directory.grant_role(actor, users[username], ops, role)
    return OrgFixture(org, ops, risk, users)


async def principal_of(backend: Backend, fixture: OrgFixture, username: str) -> Principal:
    async with backend.db.sessions() as session:
        with system_context("test: principal", org_id=fixture.org_id):
            user = await session.get(User, fixture.users[username].id)
            assert user is not None
            return await DirectoryService(session, backend.settings).load_principal(user)

"""Policy fixtures: one migrated database per backend for the whole module (migrating is slow), opened like
the server opens it (application role on PostgreSQL, tenant sessions), plus the owner's engine for tampering.
Every test works in its own organisation."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy.ext.asyncio import AsyncEngine

from finrpa.db.engine import create_engine
from finrpa.db.migrate import upgrade
from finrpa.tenancy import TenantContext, TenantDatabase, open_tenant_database
from tests.fixtures.databases import backends, fresh_database


@dataclass(frozen=True)
class PolicyDatabase:
    app: TenantDatabase
    owner: AsyncEngine

    @property
    def is_postgres(self) -> bool:
        return self.owner.dialect.name == "postgresql"


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def policy_db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[PolicyDatabase]:
    folder: Path = tmp_path_factory.mktemp("policy-db")
    async with fresh_database(request.param, folder) as url:
        await upgrade(url)
        app, owner = open_tenant_database(url), create_engine(url)
        try:
            yield PolicyDatabase(app, owner)
        finally:
            await owner.dispose()
            await app.dispose()


@pytest.fixture
def org_id() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


def admin_of(org_id: str) -> TenantContext:
    return TenantContext(org_id=org_id, user_id="admin-1", org_wide=True, reason="policy test")

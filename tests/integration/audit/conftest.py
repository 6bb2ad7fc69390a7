"""Audit fixtures. Migrating a database is slow, so each test module shares one migrated database per
backend and every test works in its own organisation; the database is opened like the server opens it
(application role on PostgreSQL, tenant sessions), and the owner's engine is at hand for tampering."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy.ext.asyncio import AsyncEngine

from finrpa.audit.service import AuditService
from finrpa.config import get_settings
from finrpa.db.engine import create_engine
from finrpa.db.migrate import upgrade
from finrpa.tenancy import TenantDatabase, open_tenant_database
from tests.fixtures.databases import backends, fresh_database


@dataclass(frozen=True)
class SharedDatabase:
    url: str
    app: TenantDatabase  # as the application: finrpa_app role, tenant hook
    owner: AsyncEngine  # as the migrating owner: what a rogue administrator would use

    @property
    def is_postgres(self) -> bool:
        return self.owner.dialect.name == "postgresql"


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def shared_db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[SharedDatabase]:
    folder: Path = tmp_path_factory.mktemp("audit-db")
    async with fresh_database(request.param, folder) as url:
        await upgrade(url)
        app, owner = open_tenant_database(url), create_engine(url)
        try:
            yield SharedDatabase(url, app, owner)
        finally:
            await owner.dispose()
            await app.dispose()


@pytest.fixture
def org_id() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def audit_service() -> AuditService:
    """The service as configured from settings, on this test's own data folder (keys, objects, checkpoints)."""
    return AuditService.from_settings(get_settings())

"""The approvals branch migrates up and down, matches the models, and Row-Level Security guards its tables."""

from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select
from sqlalchemy.engine import Connection

from finrpa.approvals.models import ApprovalDecision, ApprovalRequest
from finrpa.bus import InProcessBus
from finrpa.db.engine import create_engine
from finrpa.db.migrate import downgrade, upgrade
from finrpa.db.models_registry import load_all_models
from finrpa.tenancy import TenantContext, open_tenant_database, use_tenant
from tests.integration.approvals.support import open_desk
from tests.integration.tenancy.support import Backend

pytestmark = pytest.mark.asyncio(loop_scope="module")

OWN_TABLES = frozenset({"approval_requests", "approval_decisions"})


async def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            names = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    finally:
        await engine.dispose()
    return names & OWN_TABLES


async def test_the_branch_upgrades_downgrades_and_upgrades_again(database_url: str) -> None:
    await upgrade(database_url, "approvals@head")
    assert await _tables(database_url) == OWN_TABLES
    await downgrade(database_url, "approvals@base")
    assert await _tables(database_url) == set()
    await upgrade(database_url, "approvals@head")
    assert await _tables(database_url) == OWN_TABLES


def _ours(obj: Any, name: str | None, kind: str, _reflected: bool, _compare_to: Any) -> bool:
    table = name if kind == "table" else getattr(getattr(obj, "table", None), "name", None)
    return table in OWN_TABLES


async def test_models_and_migration_agree(backend: Backend) -> None:
    metadata = load_all_models()
    engine = create_engine(backend.url)

    def differences(connection: Connection) -> list[Any]:
        context = MigrationContext.configure(connection, opts={"compare_type": True, "include_object": _ours})
        return list(compare_metadata(context, metadata))

    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(differences) == []
    finally:
        await engine.dispose()


async def test_row_level_security_hides_other_organisations_with_the_orm_filter_off(backend: Backend) -> None:
    if backend.name != "postgres":
        pytest.skip("Row-Level Security is PostgreSQL's wall; SQLite relies on the ORM filter")
    first, second = await open_desk(backend, InProcessBus()), await open_desk(backend, InProcessBus())
    mine = await first.ask("critical")
    await first.decide("alice", mine.id)
    theirs = await second.ask("high")
    rls_only = open_tenant_database(backend.url, orm_filter=False)
    try:
        with use_tenant(TenantContext(org_id=second.org_id, org_wide=True)):
            async with rls_only.sessions() as session:
                requests = set((await session.scalars(select(ApprovalRequest.id))).all())
                decisions = (await session.scalars(select(ApprovalDecision.org_id))).all()
    finally:
        await rls_only.dispose()
    assert theirs.id in requests and mine.id not in requests
    assert set(decisions) <= {second.org_id}

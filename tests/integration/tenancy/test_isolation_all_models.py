"""Every tenant-scoped model of every domain: another organisation's rows can be neither read nor written.

The ORM wall is checked alone (on PostgreSQL through the owner, whom RLS does not bind) and together with
RLS (through ``finrpa_app``); on PostgreSQL the RLS wall is also checked alone with plain SQL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.db.base import TenantScoped
from finrpa.db.engine import create_engine, session_factory
from finrpa.db.migrate import upgrade
from finrpa.tenancy import TenantDatabase, install_tenancy, open_tenant_database
from tests.fixtures.databases import backends, fresh_database
from tests.integration.tenancy.isolation import (
    World,
    assert_no_context_sees_nothing,
    assert_orm_isolation,
    assert_rls_isolation,
    build_world,
    tenant_models,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
MODELS = tenant_models()


@dataclass
class Env:
    backend: str
    world: World
    app: TenantDatabase  # finrpa_app + ORM hook: both walls
    rls_only: TenantDatabase  # finrpa_app, ORM hook off
    owner_sessions: async_sessionmaker[AsyncSession]  # owner + ORM hook: the ORM wall alone


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def env(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Env]:
    tmp: Path = tmp_path_factory.mktemp("isolation")
    async with fresh_database(request.param, tmp) as url:
        await upgrade(url)
        app, rls_only = open_tenant_database(url), open_tenant_database(url, orm_filter=False)
        owner = create_engine(url)
        owner_sessions = session_factory(owner)
        install_tenancy(owner_sessions)
        try:
            world = await build_world(app.sessions)
            yield Env(request.param, world, app, rls_only, owner_sessions)
        finally:
            await app.dispose()
            await rls_only.dispose()
            await owner.dispose()


async def test_the_model_list_covers_identity_and_other_domains() -> None:
    names = {model.__tablename__ for model in MODELS}
    assert {"users", "department_memberships", "api_keys"} <= names


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__tablename__)
async def test_orm_wall_alone_hides_and_protects_other_org(env: Env, model: type[TenantScoped]) -> None:
    await assert_orm_isolation(env.owner_sessions, model, env.world, "a", "b")
    await assert_orm_isolation(env.owner_sessions, model, env.world, "b", "a")


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__tablename__)
async def test_both_walls_hide_and_protect_other_org(env: Env, model: type[TenantScoped]) -> None:
    await assert_orm_isolation(env.app.sessions, model, env.world, "a", "b")


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__tablename__)
async def test_no_context_reads_no_rows(env: Env, model: type[TenantScoped]) -> None:
    env.world.require_table(model)
    await assert_no_context_sees_nothing(env.app.sessions, model)
    await assert_no_context_sees_nothing(env.owner_sessions, model)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__tablename__)
async def test_rls_alone_hides_and_protects_other_org(env: Env, model: type[TenantScoped]) -> None:
    if env.backend != "postgres":
        pytest.skip("Row-Level Security is PostgreSQL's")
    env.world.require_table(model)
    await assert_rls_isolation(env.rls_only.sessions, model.__tablename__, env.world, "a", "b")


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__tablename__)
async def test_every_tenant_table_forces_rls(env: Env, model: type[TenantScoped]) -> None:
    if env.backend != "postgres":
        pytest.skip("Row-Level Security is PostgreSQL's")
    env.world.require_table(model)
    query = sa.text("SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = :t")
    async with env.owner_sessions() as session:
        enabled, forced = (await session.execute(query, {"t": model.__tablename__})).one()
    assert enabled and forced, f"{model.__tablename__}: call enable_tenant_rls() in its migration"

"""The two walls' mechanics: stamping and refusing writes, department filtering, pooled connections, the app role."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from finrpa.db.base import new_id
from finrpa.identity.models import Department, Organization, Role, User
from finrpa.tenancy import (
    TenantContext,
    TenantContextMissingError,
    TenantMismatchError,
    open_tenant_database,
    system_context,
    use_tenant,
)
from finrpa.vault.models import VaultSecret
from tests.integration.tenancy.support import Backend, make_org, principal_of

pytestmark = pytest.mark.asyncio(loop_scope="session")


def org_ctx(org_id: str) -> TenantContext:
    return TenantContext(org_id=org_id, user_id="tester", org_wide=True, reason="test")


def postgres_only(backend: Backend) -> None:
    if backend.name != "postgres":
        pytest.skip("PostgreSQL's own behaviour")


async def test_inserts_are_stamped_with_the_current_organisation(backend: Backend) -> None:
    fixture = await make_org(backend)
    async with backend.db.sessions() as session, session.begin():
        with use_tenant(org_ctx(fixture.org_id)):
            department = Department(code="treasury", name="资金部")  # no org_id given
            session.add(department)
            await session.flush()
    assert department.org_id == fixture.org_id


async def test_writing_a_row_of_another_organisation_is_refused(backend: Backend) -> None:
    mine, theirs = await make_org(backend), await make_org(backend)
    async with backend.db.sessions() as session:
        with use_tenant(org_ctx(mine.org_id)):
            session.add(Department(org_id=theirs.org_id, code="x", name="x"))
            with pytest.raises(TenantMismatchError, match="another organisation"):
                await session.flush()


async def test_moving_a_row_to_another_organisation_is_refused(backend: Backend) -> None:
    mine, theirs = await make_org(backend), await make_org(backend)
    async with backend.db.sessions() as session:
        with use_tenant(org_ctx(mine.org_id)):
            department = await session.get(Department, mine.department.id)
            assert department is not None
            department.org_id = theirs.org_id
            with pytest.raises(TenantMismatchError):
                await session.flush()


async def test_without_a_context_writes_fail_and_reads_find_nothing(backend: Backend) -> None:
    fixture = await make_org(backend)
    async with backend.db.sessions() as session:
        assert await session.get(Department, fixture.department.id) is None
        assert (await session.scalars(sa.select(Organization))).all() == []
        session.add(Department(org_id=fixture.org_id, code="y", name="y"))
        with pytest.raises(TenantContextMissingError):
            await session.flush()


async def test_cross_org_system_context_sees_every_org_and_bound_one_sees_one(backend: Backend) -> None:
    first, second = await make_org(backend), await make_org(backend)
    async with backend.db.sessions() as session:
        with system_context("test: scan"):
            orgs = set((await session.scalars(sa.select(Organization.id))).all())
        await session.rollback()
        with system_context("test: one org", org_id=first.org_id):
            bound = set((await session.scalars(sa.select(Organization.id))).all())
    assert {first.org_id, second.org_id} <= orgs
    assert bound == {first.org_id}


async def test_relationship_free_joins_are_filtered_on_every_entity(backend: Backend) -> None:
    mine, theirs = await make_org(backend, {"olga": (Role.OPERATOR,)}), await make_org(backend, {"olga": ()})
    async with backend.db.sessions() as session:
        with use_tenant(org_ctx(mine.org_id)):
            pairs = (
                await session.execute(
                    sa.select(User.id, Department.id).join(Department, Department.org_id == User.org_id)
                )
            ).all()
    assert pairs and all(user != theirs.users["olga"].id for user, _ in pairs)


async def test_department_scoped_rows_follow_the_users_departments_and_lines(backend: Backend) -> None:
    fixture = await make_org(backend, {"olga": (Role.OPERATOR,)})
    line = new_id()
    async with backend.db.sessions() as session, session.begin():
        with system_context("test: secrets", org_id=fixture.org_id):
            key = await _data_key_id(session, backend, fixture.org_id)
            for name, dept, bl in (
                ("ops", fixture.department.id, None),
                ("risk", fixture.other_department.id, None),
                ("risk-on-line", fixture.other_department.id, line),
                ("org-level", None, None),
            ):
                session.add(_secret(fixture.org_id, name, dept, bl, key))
    olga = await principal_of(backend, fixture, "olga")
    on_line = TenantContext(
        org_id=fixture.org_id,
        visible_department_ids=olga.tenant_context().visible_department_ids,
        visible_business_line_ids=frozenset({line}),
    )
    async with backend.db.sessions() as session:
        with use_tenant(olga.tenant_context()):
            assert set((await session.scalars(sa.select(VaultSecret.name))).all()) == {"ops"}
        with use_tenant(on_line):
            assert set((await session.scalars(sa.select(VaultSecret.name))).all()) == {"ops", "risk-on-line"}
        with use_tenant(org_ctx(fixture.org_id)):
            assert len((await session.scalars(sa.select(VaultSecret.name))).all()) == 4


async def _data_key_id(session: sa.ext.asyncio.AsyncSession, backend: Backend, org_id: str) -> str:
    from finrpa.identity.permissions import Principal
    from finrpa.vault.service import VaultService

    actor = Principal.platform(org_id, "test")
    await VaultService(session, backend.settings).put_secret(actor, org_id, "seed", "v")
    row = await session.scalar(sa.select(VaultSecret).where(VaultSecret.name == "seed"))
    assert row is not None
    await session.delete(row)
    return row.data_key_id


def _secret(org_id: str, name: str, dept: str | None, bl: str | None, key: str) -> VaultSecret:
    return VaultSecret(
        org_id=org_id,
        name=name,
        kind="generic",
        ciphertext=b"\x00",
        data_key_id=key,
        created_by="t",
        dept_id=dept,
        bl_id=bl,
    )


async def test_a_pooled_connection_reused_by_another_tenant_carries_no_setting(backend: Backend) -> None:
    postgres_only(backend)
    first, second = await make_org(backend), await make_org(backend)
    database = open_tenant_database(backend.url, pool_size=1, max_overflow=0)
    setting = sa.text("SELECT current_setting('finrpa.org_id', true)")
    try:
        async with database.sessions() as session, session.begin():
            with use_tenant(org_ctx(first.org_id)):
                assert await session.scalar(setting) == first.org_id
        async with database.engine.connect() as connection:  # the same (only) pooled connection, no session
            assert await connection.scalar(setting) in ("", None)
            assert await connection.scalar(sa.text("SELECT count(*) FROM departments")) == 0
        async with database.sessions() as session:
            with use_tenant(org_ctx(second.org_id)):
                orgs = set((await session.execute(sa.text("SELECT DISTINCT org_id FROM departments"))).scalars())
        assert orgs == {second.org_id}
    finally:
        await database.dispose()


async def test_the_app_role_survives_rollbacks_and_cannot_bypass_rls(backend: Backend) -> None:
    postgres_only(backend)
    database = open_tenant_database(backend.url, pool_size=1, max_overflow=0)
    try:
        async with database.sessions() as session:
            await session.execute(sa.text("SELECT 1"))
            await session.rollback()
            user = await session.scalar(sa.text("SELECT current_user"))
            flags = (
                await session.execute(
                    sa.text("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
                )
            ).one()
            owns = await session.scalar(
                sa.text("SELECT count(*) FROM pg_tables WHERE tableowner = current_user AND schemaname = 'public'")
            )
    finally:
        await database.dispose()
    assert (user, tuple(flags), owns) == ("finrpa_app", (False, False), 0)


async def test_an_empty_or_forged_blank_setting_is_denied(backend: Backend) -> None:
    postgres_only(backend)
    await make_org(backend)
    database = open_tenant_database(backend.url, orm_filter=False)
    try:
        async with database.sessions() as session:
            await session.execute(sa.text("SELECT set_config('finrpa.org_id', '', true)"))
            assert await session.scalar(sa.text("SELECT count(*) FROM users")) == 0
            await session.execute(sa.text("SELECT set_config('finrpa.system', 'off', true)"))
            assert await session.scalar(sa.text("SELECT count(*) FROM organizations")) == 0
    finally:
        await database.dispose()


async def test_changing_context_inside_a_transaction_moves_the_database_setting_along(backend: Backend) -> None:
    postgres_only(backend)
    first, second = await make_org(backend), await make_org(backend)
    async with backend.db.sessions() as session, session.begin():
        with use_tenant(org_ctx(first.org_id)):
            assert {d.org_id for d in (await session.scalars(sa.select(Department))).all()} == {first.org_id}
        with use_tenant(org_ctx(second.org_id)):
            assert {d.org_id for d in (await session.scalars(sa.select(Department))).all()} == {second.org_id}

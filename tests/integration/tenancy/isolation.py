"""Reusable isolation checks for EVERY ``TenantScoped`` model in ``Base.metadata`` (all domains, as they appear).

``build_world(sessions, labels)`` creates one organisation per label and one synthetic row in every mapped
table for each organisation (foreign keys point at the same organisation's parent rows); then
``assert_orm_isolation`` and ``assert_rls_isolation`` check a model from one organisation's point of view.

A model whose columns cannot be synthesised (a CHECK the generator cannot read, say) registers fixed
values in ``ROW_OVERRIDES`` under its table name.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Mapper

from finrpa.db.base import Base, TenantScoped, new_id
from finrpa.db.models_registry import load_all_models
from finrpa.tenancy import TenantContext, TenantMismatchError, system_context, use_tenant

ROW_OVERRIDES: dict[str, dict[str, Any]] = {
    "department_memberships": {"viewer": True},
    "users": {"kind": "human"},
    "special_grants": {"kind": "CROSS_DEPT_READ"},
}
SKIPPED_TABLES = frozenset({"alembic_version", "finrpa_installation"})
_IN_CHECK = re.compile(r"(\w+)\s+IN\s*\(([^)]*)\)", re.IGNORECASE)

Row = dict[str, Any]


def tenant_models() -> list[type[TenantScoped]]:
    """Every mapped TenantScoped model of every domain, sorted by table name."""
    load_all_models()
    models = {
        mapper.class_
        for mapper in Base.registry.mappers
        if issubclass(mapper.class_, TenantScoped) and isinstance(mapper.local_table, sa.Table)
    }
    return sorted(models, key=lambda model: str(model.__table__.name))


def org_wide(org_id: str) -> TenantContext:
    return TenantContext(org_id=org_id, user_id="isolation-test", org_wide=True, reason="isolation test")


@dataclass
class World:
    """Organisations by label and the row created in each table for each organisation."""

    orgs: dict[str, str] = field(default_factory=dict)
    rows: dict[tuple[str, str], Row] = field(default_factory=dict)
    tables: set[str] = field(default_factory=set)  # tables that exist in the database

    def require_table(self, model: type[Any]) -> None:
        if model.__tablename__ not in self.tables:
            pytest.skip(f"no migration creates {model.__tablename__} yet")

    def row(self, table: str, label: str) -> Row:
        return self.rows[(table, label)]


async def build_world(sessions: async_sessionmaker[AsyncSession], labels: tuple[str, ...] = ("a", "b")) -> World:
    world = World()
    with system_context("isolation test: build rows"):
        async with sessions() as session, session.begin():
            existing = await session.run_sync(lambda sync: set(sa.inspect(sync.connection()).get_table_names()))
            world.tables = existing
            tables = [t for t in load_all_models().sorted_tables if t.name in existing - SKIPPED_TABLES]
            for label in labels:
                org_id = new_id()
                world.orgs[label] = org_id
                for table in tables:
                    row = _synthesise(table, label, org_id, world)
                    await session.execute(sa.insert(table).values(row))
                    world.rows[(table.name, label)] = row
    return world


def _synthesise(table: sa.Table, label: str, org_id: str, world: World) -> Row:
    if table.name == "organizations":
        return {"id": org_id, "slug": f"iso-{label}-{org_id[:8]}", "name": f"Org {label}", "is_active": True}
    overrides = ROW_OVERRIDES.get(table.name, {})
    row: Row = {}
    for column in table.columns:
        value = _value_for(table, column, label, org_id, world, overrides)
        if value is not _SKIP:
            row[column.name] = value
    return row


_SKIP = object()


def _value_for(
    table: sa.Table, column: sa.Column[Any], label: str, org_id: str, world: World, overrides: Mapping[str, Any]
) -> Any:
    if column.name in overrides:
        return overrides[column.name]
    if column.name == "org_id":
        return org_id
    for fk in column.foreign_keys:
        parent = fk.column.table.name
        if parent == table.name or (parent, label) not in world.rows:
            return None if column.nullable else _SKIP
        return world.rows[(parent, label)].get(fk.column.name)
    if column.default is not None:
        return column.default.arg(None) if callable(column.default.arg) else column.default.arg  # type: ignore[attr-defined]
    if column.server_default is not None or column.nullable:
        return _SKIP
    if column.primary_key and isinstance(column.type, sa.Integer):
        return _SKIP if column.autoincrement is True or column.autoincrement == "auto" else 1
    return _by_type(table, column)


def _by_type(table: sa.Table, column: sa.Column[Any]) -> Any:
    choices = _check_choices(table, column.name)
    if choices:
        return choices[0]
    kind = column.type
    if isinstance(kind, sa.Enum):
        return kind.enums[0]
    if isinstance(kind, sa.Boolean):
        return False
    if isinstance(kind, sa.Integer):
        return 1
    if isinstance(kind, sa.Numeric | sa.Float):
        return Decimal("1") if isinstance(kind, sa.Numeric) and kind.asdecimal else 1.0
    if isinstance(kind, sa.DateTime):
        return datetime.now(UTC)
    if isinstance(kind, sa.Date):
        return date.today()
    if isinstance(kind, sa.JSON):
        return {}
    if isinstance(kind, sa.LargeBinary):
        return b"\x00"
    if isinstance(kind, sa.Uuid):
        return uuid.uuid4()
    length = getattr(kind, "length", None) or 32
    return uuid.uuid4().hex[: min(length, 32)]


def _check_choices(table: sa.Table, column: str) -> list[str]:
    for constraint in table.constraints:
        if isinstance(constraint, sa.CheckConstraint):
            for match in _IN_CHECK.finditer(str(constraint.sqltext)):
                if match.group(1) == column:
                    return [choice.strip().strip("'") for choice in match.group(2).split(",")]
    return []


def _pk_criteria(model: type[TenantScoped], row: Row) -> list[sa.ColumnElement[bool]]:
    mapper: Mapper[Any] = sa.inspect(model)
    return [column == row[column.name] for column in mapper.primary_key]


async def _exists_for_system(sessions: async_sessionmaker[AsyncSession], model: type[TenantScoped], row: Row) -> Row:
    with system_context("isolation test: check row", org_id=row["org_id"]):
        async with sessions() as session:
            found = (await session.execute(sa.select(model.__table__).where(*_pk_criteria(model, row)))).first()
    assert found is not None, f"{model.__name__}: the row of organisation {row['org_id']} disappeared"
    return dict(found._mapping)


async def assert_orm_isolation(
    sessions: async_sessionmaker[AsyncSession], model: type[TenantScoped], world: World, me: str, other: str
) -> None:
    """From ``me``'s org-wide context, ``other``'s row of ``model`` can be neither read nor written."""
    world.require_table(model)
    mine, theirs = world.row(model.__tablename__, me), world.row(model.__tablename__, other)
    before = await _exists_for_system(sessions, model, theirs)
    with use_tenant(org_wide(world.orgs[me])):
        async with sessions() as session:
            seen = (await session.scalars(sa.select(model))).all()
            assert seen, f"{model.__name__}: my own row is not visible"
            assert {obj.org_id for obj in seen} == {world.orgs[me]}, f"{model.__name__}: other org visible"
            pk = tuple(theirs[c.name] for c in sa.inspect(model).primary_key)
            assert await session.get(model, pk if len(pk) > 1 else pk[0]) is None
        await _assert_cannot_change(sessions, model, theirs, world.orgs[me])
        await _assert_cannot_insert_for(sessions, model, mine, world.orgs[other])
    assert await _exists_for_system(sessions, model, theirs) == before, f"{model.__name__}: other row changed"


async def _assert_cannot_change(
    sessions: async_sessionmaker[AsyncSession], model: type[TenantScoped], theirs: Row, my_org: str
) -> None:
    for statement in (
        sa.update(model).where(*_pk_criteria(model, theirs)).values(org_id=my_org),
        sa.delete(model).where(*_pk_criteria(model, theirs)),
    ):
        async with sessions() as session, session.begin():
            try:
                result = await session.execute(statement.execution_options(synchronize_session=False))
            except sa.exc.DBAPIError:
                continue  # e.g. an append-only table refuses UPDATE/DELETE outright: also not changed
            assert getattr(result, "rowcount", 0) == 0, f"{model.__name__}: {statement} reached another org"


async def _assert_cannot_insert_for(
    sessions: async_sessionmaker[AsyncSession], model: type[TenantScoped], template: Row, other_org: str
) -> None:
    values = {key: value for key, value in template.items() if key in sa.inspect(model).columns}
    values["org_id"] = other_org
    async with sessions() as session:
        try:
            async with session.begin():
                await session.execute(sa.insert(model), [values])
        except TenantMismatchError:
            return
    raise AssertionError(f"{model.__name__}: inserting a row of another organisation was accepted")


async def assert_no_context_sees_nothing(sessions: async_sessionmaker[AsyncSession], model: type[Any]) -> None:
    async with sessions() as session:
        assert (await session.scalars(sa.select(model))).all() == []


async def assert_rls_isolation(
    sessions: async_sessionmaker[AsyncSession], table: str, world: World, me: str, other: str
) -> None:
    """With the ORM filter off (plain SQL), PostgreSQL RLS alone hides and protects ``other``'s rows."""
    select_orgs = sa.text(f'SELECT DISTINCT org_id FROM "{table}"')  # noqa: S608 - table names from metadata
    with use_tenant(org_wide(world.orgs[me])):
        async with sessions() as session:
            assert set((await session.scalars(select_orgs)).all()) == {world.orgs[me]}, table
            try:
                changed = await session.execute(
                    sa.text(f'UPDATE "{table}" SET org_id = :mine WHERE org_id = :theirs'),  # noqa: S608
                    {"mine": world.orgs[me], "theirs": world.orgs[other]},
                )
                assert getattr(changed, "rowcount", 0) == 0, table
            except sa.exc.DBAPIError:
                pass  # an append-only table refuses UPDATE to the app role outright: also not changed
            await session.rollback()
    async with sessions() as session:  # no context: the setting is empty, and empty matches nothing
        assert (await session.scalars(select_orgs)).all() == [], table

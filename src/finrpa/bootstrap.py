"""Assemble the application for a process (CLI command, API server, worker): settings, database with both
tenancy walls, migrations on first start, and the organisation a command acts for."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy import select

from finrpa.config import Settings, get_settings
from finrpa.db import migrate
from finrpa.db.engine import APPLICATION_NAME, check_reachable, unit_of_work
from finrpa.exceptions import ConfigurationError, NotFoundError
from finrpa.identity.models import Organization
from finrpa.runs.durable import migrate_engine_tables
from finrpa.tenancy.context import system_context
from finrpa.tenancy.database import TenantDatabase, open_tenant_database


@dataclass(frozen=True)
class App:
    settings: Settings
    database: TenantDatabase


@asynccontextmanager
async def open_app(
    settings: Settings | None = None, *, auto_migrate: bool = False, application_name: str = APPLICATION_NAME
) -> AsyncIterator[App]:
    """Open the database (migrating it first when asked, or refusing when it is behind). ``application_name``
    names the process's PostgreSQL sessions (a worker uses its own, so they can be ended when it is dead)."""
    settings = settings or get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    url = settings.resolved_database_url
    if auto_migrate:
        await migrate.upgrade(url)
        await migrate_engine_tables(settings)
    else:
        state = await migrate.migration_state(url)
        if not state.up_to_date:
            raise ConfigurationError("The database is not at the current schema; run `finrpa migrate` first.")
    database = open_tenant_database(
        url, application_name=application_name, lock_timeout_s=settings.database_lock_timeout_s
    )
    try:
        await check_reachable(database.engine)
        yield App(settings=settings, database=database)
    finally:
        await database.dispose()


async def resolve_org(app: App, slug: str | None) -> Organization:
    """The organisation named by ``slug``; without one, the only organisation there is."""
    with system_context("resolve the organisation a command acts for"):
        async with unit_of_work(app.database.sessions) as session:
            organizations = list((await session.execute(select(Organization))).scalars())
    if slug is not None:
        for organization in organizations:
            if organization.slug == slug:
                return organization
        known = ", ".join(sorted(o.slug for o in organizations)) or "none yet"
        raise NotFoundError(f"No organisation {slug!r} (known: {known}). Create one with `finrpa org create`.")
    if len(organizations) == 1:
        return organizations[0]
    if not organizations:
        raise NotFoundError("There is no organisation yet: create one with `finrpa org create`, or run `finrpa demo`.")
    known = ", ".join(sorted(o.slug for o in organizations))
    raise ConfigurationError(f"Several organisations exist ({known}); say which one with --org.")

"""Open the application's database with both walls up: ``finrpa_app`` on PostgreSQL and tenant sessions.

The application connects with the URL in FINRPA_DATABASE_URL (the owner that runs migrations) and
switches every new pooled connection to ``finrpa_app`` with ``SET ROLE``; that role owns no table and has
no BYPASSRLS, so Row-Level Security applies to everything the application does. Migrations keep using
the owner through ``finrpa.db.migrate`` and are not affected. On SQLite there is no role; the ORM hook is
the only wall.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from finrpa.db.engine import create_engine, session_factory
from finrpa.db.migrations.rls import APP_ROLE
from finrpa.tenancy.session import install_tenancy


@dataclass(frozen=True)
class TenantDatabase:
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]

    async def dispose(self) -> None:
        await self.engine.dispose()


def use_app_role(engine: AsyncEngine, role: str = APP_ROLE) -> None:
    """Run ``SET ROLE <role>`` on every new PostgreSQL connection of ``engine`` (no-op on SQLite).

    Call before the engine hands out its first connection.
    """
    if engine.dialect.name != "postgresql":
        return
    if not role.replace("_", "").isalnum():
        raise ValueError(f"{role!r} is not a plain role name.")

    @event.listens_for(engine.sync_engine, "connect")
    def _set_role(dbapi_connection: Any, _record: Any) -> None:
        # Outside any transaction: a SET ROLE inside one would be undone by the first ROLLBACK.
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f'SET ROLE "{role}"')
        finally:
            cursor.close()
            dbapi_connection.autocommit = autocommit


def open_tenant_database(url: str, *, orm_filter: bool = True, **engine_kwargs: Any) -> TenantDatabase:
    """An engine under the application role and a session factory with tenancy installed."""
    engine = create_engine(url, **engine_kwargs)
    use_app_role(engine)
    sessions = session_factory(engine)
    install_tenancy(sessions, orm_filter=orm_filter)
    return TenantDatabase(engine=engine, sessions=sessions)

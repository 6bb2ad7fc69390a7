"""Apply, roll back and inspect FinRPA's Alembic migrations programmatically."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.resources import files

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

import finrpa
from finrpa.db.engine import check_reachable, create_engine


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(files("finrpa.db") / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


@dataclass(frozen=True)
class MigrationState:
    current: frozenset[str]
    heads: frozenset[str]
    applied: frozenset[str]  # current revisions and everything below them, dependencies included

    @property
    def up_to_date(self) -> bool:
        return self.heads <= self.applied


async def _with_connection(url: str, action: str, revision: str) -> None:
    engine = create_engine(url)
    await check_reachable(engine)
    config = alembic_config(url)

    def run(connection: Connection) -> None:
        config.attributes["connection"] = connection
        if action == "upgrade":
            command.upgrade(config, revision)
            _stamp_installation(connection)
        else:
            command.downgrade(config, revision)

    try:
        async with engine.begin() as connection:
            await connection.run_sync(run)
    finally:
        await engine.dispose()


def _stamp_installation(connection: Connection) -> None:
    has_table = connection.dialect.has_table(connection, "finrpa_installation")
    if has_table and connection.execute(text("SELECT count(*) FROM finrpa_installation")).scalar() == 0:
        connection.execute(
            text("INSERT INTO finrpa_installation (id, installed_at, installed_version) VALUES (1, :at, :v)"),
            {"at": datetime.now(UTC), "v": finrpa.__version__},
        )


async def upgrade(url: str, revision: str = "heads") -> None:
    await _with_connection(url, "upgrade", revision)


async def downgrade(url: str, revision: str = "base") -> None:
    await _with_connection(url, "downgrade", revision)


async def migration_state(url: str) -> MigrationState:
    engine = create_engine(url)
    await check_reachable(engine)
    script = ScriptDirectory.from_config(alembic_config(url))

    def read(connection: Connection) -> frozenset[str]:
        return frozenset(MigrationContext.configure(connection).get_current_heads())

    try:
        async with engine.connect() as connection:
            current = await connection.run_sync(read)
    finally:
        await engine.dispose()
    applied = frozenset(rev.revision for rev in script.iterate_revisions(tuple(current), "base") if rev)
    return MigrationState(current=current, heads=frozenset(script.get_heads()), applied=applied)

"""The llm branch migrates up and down on SQLite and PostgreSQL; on PostgreSQL its tables are under RLS."""

from __future__ import annotations

from sqlalchemy import inspect, text

from finrpa.db.engine import create_engine
from finrpa.db.migrate import downgrade, upgrade

TABLES = {"llm_calls", "llm_router_decisions"}


async def _state(url: str) -> tuple[set[str], set[str]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            tables = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
            forced: set[str] = set()
            if connection.dialect.name == "postgresql":
                result = await connection.execute(
                    text("SELECT relname FROM pg_class WHERE relrowsecurity AND relforcerowsecurity")
                )
                forced = {row[0] for row in result}
    finally:
        await engine.dispose()
    return tables, forced


async def test_llm_branch_upgrades_and_downgrades(database_url: str) -> None:
    await upgrade(database_url)
    tables, forced = await _state(database_url)
    assert TABLES <= tables
    if database_url.startswith("postgresql"):
        assert TABLES <= forced

    await downgrade(database_url, "llm@-1")
    tables, _ = await _state(database_url)
    assert not TABLES & tables and "finrpa_installation" in tables

    await upgrade(database_url)
    assert TABLES <= (await _state(database_url))[0]

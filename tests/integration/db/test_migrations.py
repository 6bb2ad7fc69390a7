from __future__ import annotations

from sqlalchemy import inspect

from finrpa.db.engine import create_engine
from finrpa.db.migrate import downgrade, migration_state, upgrade


async def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            names = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    finally:
        await engine.dispose()
    return names - {"alembic_version"}


async def test_migrations_upgrade_and_downgrade_cleanly(database_url: str) -> None:
    await upgrade(database_url)
    state = await migration_state(database_url)
    assert state.up_to_date
    assert "finrpa_installation" in await _tables(database_url)

    await downgrade(database_url, "base")
    assert await _tables(database_url) == set()
    assert not (await migration_state(database_url)).current

    await upgrade(database_url)  # and back up again: downgrade left nothing behind that blocks it
    assert (await migration_state(database_url)).up_to_date

"""The http branch's hand-written migration creates exactly what the model declares, and rolls back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from finrpa.db.engine import create_engine
from finrpa.db.migrate import downgrade, upgrade
from finrpa.db.models_registry import load_all_models
from tests.fixtures.databases import fresh_database

pytestmark = pytest.mark.asyncio(loop_scope="function")


def _ours(obj: Any, name: str | None, kind: str, _reflected: bool, _compare_to: Any) -> bool:
    table = name if kind == "table" else getattr(getattr(obj, "table", None), "name", None)
    return table == "idempotency_keys"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_the_idempotency_table_matches_its_model_and_downgrades(backend: str, tmp_path: Path) -> None:
    from tests.fixtures.databases import backends

    if backend not in backends():
        pytest.skip("PostgreSQL is not configured (FINRPA_TEST_DATABASE_URL)")
    async with fresh_database(backend, tmp_path) as url:
        await upgrade(url)
        engine = create_engine(url)
        metadata = load_all_models()

        def differences(connection: Connection) -> list[Any]:
            context = MigrationContext.configure(connection, opts={"compare_type": True, "include_object": _ours})
            return list(compare_metadata(context, metadata))

        def tables(connection: Connection) -> set[str]:
            return set(inspect(connection).get_table_names())

        try:
            async with engine.connect() as connection:
                assert await connection.run_sync(differences) == []
            await downgrade(url, "http@base")
            async with engine.connect() as connection:
                assert "idempotency_keys" not in await connection.run_sync(tables)
        finally:
            await engine.dispose()

"""The hand-written identity and vault migrations create exactly what the models declare."""

from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from finrpa.db.engine import create_engine
from finrpa.db.models_registry import load_all_models
from tests.integration.tenancy.support import Backend

pytestmark = pytest.mark.asyncio(loop_scope="session")

OWN_TABLES = frozenset(
    {
        "organizations",
        "departments",
        "business_lines",
        "users",
        "department_memberships",
        "business_line_memberships",
        "special_grants",
        "auth_sessions",
        "refresh_tokens",
        "login_attempts",
        "api_keys",
        "vault_data_keys",
        "vault_secrets",
        "credential_reads",
    }
)


def _ours(obj: Any, name: str | None, kind: str, _reflected: bool, _compare_to: Any) -> bool:
    table = name if kind == "table" else getattr(getattr(obj, "table", None), "name", None)
    return table in OWN_TABLES


async def test_models_and_migrations_agree(backend: Backend) -> None:
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

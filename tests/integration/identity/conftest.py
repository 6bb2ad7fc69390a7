"""One migrated database per backend for this folder (session-wide) (each test makes its own organisations)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.fixtures.databases import backends
from tests.integration.tenancy.support import Backend, migrated_backend


@pytest_asyncio.fixture(scope="session", loop_scope="session", params=backends())
async def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Backend]:
    async with migrated_backend(request.param, tmp_path_factory.mktemp(request.param)) as migrated:
        yield migrated


@pytest.fixture(autouse=True)
def _cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Still Argon2id, with small costs: the machine runs many tests at once (production keeps RFC 9106)."""
    from argon2 import PasswordHasher

    monkeypatch.setattr(
        "finrpa.identity.passwords._HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    )

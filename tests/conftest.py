"""Shared test set-up: no outbound network, development settings in a temporary data folder."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.network import install_network_guard

install_network_guard()
os.environ.setdefault("FINRPA_ENV", "development")
for _name in ("FINRPA_DATABASE_URL", "FINRPA_REDIS_URL", "FINRPA_LLM_PROVIDER", "FINRPA_S3_ENDPOINT_URL"):
    os.environ.pop(_name, None)


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from finrpa.config import get_settings

    monkeypatch.setenv("FINRPA_ENV", "development")
    monkeypatch.setenv("FINRPA_DATA_DIR", str(tmp_path / "var"))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(params=backends())
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database, once per configured backend (SQLite always, PostgreSQL when configured)."""
    async with fresh_database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
async def migrated_database_url(database_url: str) -> str:
    """A database with every migration applied."""
    from finrpa.db.migrate import upgrade

    await upgrade(database_url)
    return database_url

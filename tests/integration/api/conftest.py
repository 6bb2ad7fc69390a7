"""One running API with two organisations per backend and test module (see world.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from tests.fixtures.databases import backends
from tests.integration.api.world import World, running_world


@pytest.fixture(scope="module", autouse=True)
def _cheap_password_hashing() -> Iterator[None]:
    """Still Argon2id, with small costs: the machine runs many tests at once (production keeps RFC 9106)."""
    from argon2 import PasswordHasher

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("finrpa.identity.passwords._HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        yield


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, _cheap_password_hashing: None
) -> AsyncIterator[World]:
    async with running_world(request.param, tmp_path_factory.mktemp(request.param)) as running:
        yield running

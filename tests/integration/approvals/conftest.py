"""One migrated database per backend and test module; a Desk (organisation, people, audit, bus) per test.

The bus is parametrized: the in-process bus always, real Redis when FINRPA_TEST_REDIS_URL is set (each
test gets its own channel namespace).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from finrpa.bus import Bus, InProcessBus, RedisBus
from tests.fixtures.databases import backends
from tests.integration.approvals.support import Desk, open_desk, redis_url
from tests.integration.tenancy.support import Backend, migrated_backend


def bus_kinds() -> list[str]:
    return ["memory", "redis"] if redis_url() else ["memory"]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Backend]:
    async with migrated_backend(request.param, tmp_path_factory.mktemp(request.param)) as migrated:
        yield migrated


@pytest.fixture(scope="module", autouse=True)
def _cheap_password_hashing() -> Iterator[None]:
    """Still Argon2id, with small costs: the machine runs many tests at once."""
    from argon2 import PasswordHasher

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("finrpa.identity.passwords._HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        yield


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def memory_desk(backend: Backend) -> Desk:
    """A desk on the in-process bus, shared by the module's tests (each works on its own requests)."""
    return await open_desk(backend, InProcessBus())


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=bus_kinds())
async def desk(request: pytest.FixtureRequest, backend: Backend) -> AsyncIterator[Desk]:
    """A desk on each configured bus, shared by the module's tests."""
    bus: Bus
    if request.param == "redis":
        url = redis_url()
        assert url is not None
        bus = RedisBus(url, namespace=f"finrpa-test-{uuid.uuid4().hex[:10]}:")
    else:
        bus = InProcessBus()
    try:
        yield await open_desk(backend, bus)
    finally:
        await bus.close()

"""schemathesis against the published OpenAPI document: generated requests to every operation never get a 5xx.

The API runs in a real server (uvicorn, loopback) over a seeded database and is called as an org admin
through an API key with every scope, so most requests pass authentication and reach the handlers. A bounded
run (a few examples per operation) runs with the tests; ``FINRPA_SLOW=1`` runs the long one.
"""

from __future__ import annotations

import asyncio
import os
import queue
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from finrpa.api import ApiOptions, create_app
from tests.fixtures.databases import backends
from tests.integration.api.world import PASSWORD, seeded_database

SLOW = bool(os.environ.get("FINRPA_SLOW"))
EXAMPLES = 40 if SLOW else 3


@dataclass
class Served:
    base_url: str
    headers: dict[str, str]
    document: dict[str, Any]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(backend: str, tmp: Path, port: int, ready: queue.Queue[Any], stop: threading.Event) -> None:
    async def main() -> None:
        async with seeded_database(backend, tmp) as (app_settings, orgs):
            app = create_app(app_settings, ApiOptions(worker=False, dispatcher=False, auto_migrate=False))
            server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
            task = asyncio.create_task(server.serve())
            while not server.started and not task.done():
                await asyncio.sleep(0.05)
            ready.put(orgs)
            while not stop.is_set() and not task.done():
                await asyncio.sleep(0.1)
            server.should_exit = True
            await task

    try:
        asyncio.run(main())
    except Exception as exc:  # noqa: BLE001 - handed to the test thread, which fails with it
        ready.put(exc)


def _api_key(base_url: str, org: Any) -> str:
    with httpx.Client(base_url=base_url, timeout=30) as client:
        login = client.post("/api/v1/auth/login", json={"org": org.slug, "username": "admin", "password": PASSWORD})
        login.raise_for_status()
        token = login.json()["access_token"]
        created = client.post(
            "/api/v1/api-keys",
            headers={"Authorization": f"Bearer {token}"},
            json={
                "user_id": org.users["admin"],
                "name": "fuzz",
                "scopes": ["read", "operate", "approve", "audit", "admin"],
            },
        )
        created.raise_for_status()
        return str(created.json()["key"])


@pytest.fixture(scope="module", params=backends())
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    from argon2 import PasswordHasher

    port, ready, stop = _free_port(), queue.Queue[Any](), threading.Event()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("finrpa.identity.passwords._HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        args = (request.param, tmp_path_factory.mktemp(f"fuzz-{request.param}"), port, ready, stop)
        thread = threading.Thread(target=_serve, args=args, daemon=True)
        thread.start()
        outcome = ready.get(timeout=120)
        if isinstance(outcome, BaseException):
            raise outcome
        base_url = f"http://127.0.0.1:{port}"
        try:
            key = _api_key(base_url, outcome["a"])
            document = httpx.get(f"{base_url}/api/v1/openapi.json", timeout=30).json()
            yield Served(base_url, {"Authorization": f"Bearer {key}"}, document)
        finally:
            stop.set()
            thread.join(timeout=30)


def _fuzz(served: Served, operation: Any, mode: GenerationMode, failures: list[str]) -> None:
    @given(case=operation.as_strategy(mode))
    @settings(
        max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
    )
    def run(case: Any) -> None:
        response = case.call(base_url=served.base_url, headers=served.headers, timeout=30)
        if response.status_code >= 500:
            failures.append(f"{case.method} {case.formatted_path} → {response.status_code}: {response.text[:300]}")

    try:
        run()
    except Unsatisfiable:
        if mode is GenerationMode.POSITIVE:
            raise  # only an operation without inputs has no invalid request to make


def test_no_generated_request_gets_a_server_error(served: Served) -> None:
    schema = schemathesis.openapi.from_dict(served.document)
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path.endswith("/stream"):
            continue  # a stream of an existing run stays open; its errors are covered by the task tests
        operations += 1
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz(served, operation, mode, failures)
    assert operations >= 40, "the fuzzer lost its operations"
    assert not failures, "\n".join(sorted(set(failures)))

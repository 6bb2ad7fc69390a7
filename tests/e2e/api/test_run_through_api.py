"""The operator's main job through the HTTP API: store the portal password, start bank_statement_download,
watch it live over SSE until it completes in the embedded worker (headless Chromium against the sandbox bank),
then open the evidence of its actions."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from finrpa.api import ApiOptions
from finrpa.commands.demo import DEMO_ACCOUNT, DEMO_PERIOD, DEMO_USER
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from tests.integration.api.world import World, running_world

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxServer]:
    server = SandboxServer(SandboxConfig(port=0))
    server.start()
    yield server
    server.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    from argon2 import PasswordHasher

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("finrpa.identity.passwords._HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        options = ApiOptions(worker=True, dispatcher=False, auto_migrate=False)
        async with running_world("sqlite", tmp_path_factory.mktemp("e2e"), options) as running:
            yield running


async def _events_until_end(world: World, task_id: str) -> list[tuple[str, dict[str, object]]]:
    headers = await world.headers("a", "operator")
    events: list[tuple[str, dict[str, object]]] = []
    timeout = httpx.Timeout(180.0)
    async with world.client.stream(
        "GET", f"/api/v1/tasks/{task_id}/stream", headers=headers, timeout=timeout
    ) as stream:
        kind = ""
        async for line in stream.aiter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((kind, json.loads(line.removeprefix("data: "))))
    return events


async def test_a_statement_download_started_over_http_completes_with_evidence(
    world: World, sandbox: SandboxServer
) -> None:
    department = world.orgs["a"].departments["ops"]
    stored = await world.call(
        "POST",
        "/api/v1/credentials",
        "a",
        "admin",
        json={"name": "sandbox-bank", "value": DEMO_PASSWORD, "dept_id": department},
    )
    assert stored.status_code == 201, stored.text
    parameters = {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": DEMO_USER,
        "password": "secret://sandbox-bank",
        "account_number": DEMO_ACCOUNT,
        "start_date": DEMO_PERIOD[0].isoformat(),
        "end_date": DEMO_PERIOD[1].isoformat(),
    }
    task = await world.create_task(parameters=parameters)

    events = await _events_until_end(world, task["id"])

    kinds = [kind for kind, _ in events]
    assert kinds[0] == "run_created" and kinds[-1] == "end"
    assert events[-1][1]["status"] == "COMPLETED", events[-4:]
    detail = (await world.call("GET", f"/api/v1/tasks/{task['id']}", "a", "viewer")).json()
    assert [s["status"] for s in detail["plan"]["subtasks"]] == ["SUCCESS"] * 4
    actions = (await world.call("GET", f"/api/v1/tasks/{task['id']}/actions", "a", "operator")).json()["items"]
    assert DEMO_PASSWORD not in json.dumps(actions)
    with_screenshot = next(row for row in actions if row["has_screenshot_after"])
    link = await world.call(
        "POST", f"/api/v1/audit/records/{with_screenshot['id']}/links", "a", "operator", json={"phase": "after"}
    )
    png = await world.client.get(httpx.URL(link.json()["url"]).raw_path.decode())
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    summary = (await world.call("GET", "/api/v1/metrics/summary", "a", "operator")).json()
    assert summary["runs_by_status"] == {"COMPLETED": 1} and summary["success_rate"] == 1.0
    assert Path(world.settings.data_dir / "runs" / task["id"]).is_dir()

"""Shared for run tests: one sandbox (state exposed, dynamic ids on) and one Chromium per module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import pytest_asyncio

from finrpa.browser import BrowserManager
from finrpa.db.engine import unit_of_work
from finrpa.runs.service import RunRequest, create_run
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from finrpa.workflows.loader import get_template
from tests.fixtures.llm_server import llm_server, llm_server_process
from tests.fixtures.runs import RunHarness

__all__ = ["llm_server", "llm_server_process"]  # fixtures for the goal and LLM-mode run tests


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxServer]:
    server = SandboxServer(SandboxConfig(port=0, expose_state=True, dynamic_ids=True))
    server.start()
    yield server
    server.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager() -> AsyncIterator[BrowserManager]:
    browser = BrowserManager()
    await browser.start()
    yield browser
    await browser.close()


def sandbox_state(sandbox: SandboxServer) -> dict[str, Any]:
    return dict(httpx.get(f"{sandbox.base_url}/__sandbox__/state", timeout=10).json())


def configure(sandbox: SandboxServer, **changes: Any) -> None:
    httpx.post(f"{sandbox.base_url}/__sandbox__/config", json=changes, timeout=10).raise_for_status()


def reset(sandbox: SandboxServer) -> None:
    httpx.post(f"{sandbox.base_url}/__sandbox__/reset", timeout=10).raise_for_status()


async def start(harness: RunHarness, template_id: str, arguments: dict[str, Any]) -> str:
    with system_context("test: start a run", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            request = RunRequest(
                get_template(template_id), arguments, dept_id=harness.dept_id, created_by=harness.operator_id
            )
            run = await create_run(session, request)
            return run.id

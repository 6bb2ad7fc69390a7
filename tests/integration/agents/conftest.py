"""Shared by the agent integration tests: the scripted LLM server, one sandbox (state exposed, dynamic ids
on) and one Chromium per module, and a signed-in bank session per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from finrpa.browser import BrowserManager, Controller, RunBrowser, RunBrowserConfig
from finrpa.cache import InProcessKeyValueStore, KeyValueStore, RedisKeyValueStore
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from tests.fixtures.llm_server import llm_server, llm_server_process
from tests.integration.cache.conftest import REDIS_ENV, store_backends

__all__ = ["llm_server", "llm_server_process"]


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


def configure(sandbox: SandboxServer, **changes: Any) -> None:
    httpx.post(f"{sandbox.base_url}/__sandbox__/config", json=changes, timeout=10).raise_for_status()


@pytest_asyncio.fixture(loop_scope="module")
async def run_browser(manager: BrowserManager, sandbox: SandboxServer, tmp_path: Path) -> AsyncIterator[RunBrowser]:
    configure(sandbox, layout="v1", error_rate=0.0)
    run = await manager.new_run(
        RunBrowserConfig(run_id="agents-test", downloads_dir=tmp_path / "downloads", portal_urls=[sandbox.base_url])
    )
    yield run
    await run.close()


async def sign_in(controller: Controller, sandbox: SandboxServer, layout: str = "v1") -> None:
    """Sign in to the sandbox bank through the controller (labels of the given layout)."""
    user, password, submit = ("用户名", "密码", "登录") if layout == "v1" else ("登录账号", "登录密码", "立即登录")
    await controller.navigate(f"{sandbox.base_url}/bank/login")
    snapshot = await controller.observe()
    await controller.fill(snapshot, snapshot.find(name=user)[0].ref, "corp_demo")
    await controller.fill(snapshot, snapshot.find(name=password)[0].ref, DEMO_PASSWORD)
    await controller.click(snapshot, snapshot.find(name=submit, role="button")[0].ref)


@pytest_asyncio.fixture(loop_scope="module", params=store_backends())
async def shared_store(request: pytest.FixtureRequest) -> AsyncIterator[KeyValueStore]:
    """The cache's store: in process, and Redis (a namespace of its own) when FINRPA_TEST_REDIS_URL is set."""
    if request.param == "memory":
        yield InProcessKeyValueStore()
        return
    store = RedisKeyValueStore(os.environ[REDIS_ENV], namespace=f"finrpa-test-{uuid.uuid4().hex[:10]}:")
    try:
        yield store
    finally:
        await store.delete_prefix("")
        await store.close()

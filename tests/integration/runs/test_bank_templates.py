"""Templates run end to end against the sandbox bank in real headless Chromium, with no LLM."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from finrpa.agents.plan import TaskStatus
from finrpa.browser import BrowserManager
from finrpa.db.engine import unit_of_work
from finrpa.runs.repository import RunRepository
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.ledger import statement_rows
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from finrpa.workflows.binding import ArgumentError
from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.runs import RunHarness, run_harness
from tests.integration.runs.conftest import configure, start

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

ACCOUNT = "1001020309000123456"


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def harness(request: pytest.FixtureRequest, tmp_path: Path, manager: BrowserManager) -> AsyncIterator[RunHarness]:
    async with fresh_database(request.param, tmp_path) as url:
        async for item in run_harness(url, tmp_path / "var", manager, {"bank": DEMO_PASSWORD}):
            yield item


def statement_arguments(sandbox: SandboxServer, **overrides: str) -> dict[str, Any]:
    arguments = {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": "secret://bank",
        "account_number": ACCOUNT,
        "start_date": "2024-01-01",
        "end_date": "2024-03-31",
    }
    arguments.update(overrides)
    return arguments


def serials(path: Path) -> set[str]:
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    key = next(name for name in rows[0] if name in ("流水号", "交易流水号", "Serial no."))
    return {row[key] for row in rows}


@pytest.mark.parametrize("layout", ["v1", "v2"])
async def test_statement_download_matches_the_portal_statement(
    harness: RunHarness, sandbox: SandboxServer, layout: str
) -> None:
    configure(sandbox, layout=layout, error_rate=0.0)
    run_id = await start(harness, "bank_statement_download", statement_arguments(sandbox))
    final = await harness.runner.execute(run_id, harness.org_id)
    assert final.status is TaskStatus.COMPLETED, final.last_error
    expected = {row.serial for row in statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 3, 31), sandbox.config.seed)}
    folder = harness.runner.run_folder(run_id)
    assert serials(folder / "statement.csv") == expected
    assert serials(folder / "extracted_transactions.csv") == expected
    assert harness.secrets.reads == [("bank", "login password")]
    with system_context("test: read the checkpoint", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            checkpoint = await RunRepository(session).checkpoint(run_id)
    assert checkpoint is not None and checkpoint.url and "/bank/" in checkpoint.url
    assert checkpoint.storage_state is None, "a finished run keeps no portal session at rest"


async def test_wrong_password_aborts_after_exactly_one_attempt(harness: RunHarness, sandbox: SandboxServer) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    harness.secrets.values["bank"] = "not-the-password"
    httpx.post(f"{sandbox.base_url}/__sandbox__/reset", timeout=10)
    run_id = await start(harness, "bank_statement_download", statement_arguments(sandbox))
    final = await harness.runner.execute(run_id, harness.org_id)
    assert final.status is TaskStatus.ABORTED
    assert "rejected" in (final.last_error or "")
    assert "用户名或密码错误" in (final.last_error or ""), "the portal's own words say why"
    assert "not-the-password" not in (final.last_error or "")
    with system_context("test: read events", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            events = await RunRepository(session).events(run_id)
    starts = [e for e in events if e.type == "subtask_started"]
    assert len(starts) == 1, "a rejected password must never be retried"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


async def test_missing_parameter_fails_before_a_browser_starts(harness: RunHarness, sandbox: SandboxServer) -> None:
    arguments = statement_arguments(sandbox)
    del arguments["account_number"]
    with pytest.raises(ArgumentError, match="account_number"):
        await start(harness, "bank_statement_download", arguments)


async def test_transient_errors_are_retried_and_the_run_still_succeeds(
    harness: RunHarness, sandbox: SandboxServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.25)
    try:
        run_id = await start(harness, "bank_statement_download", statement_arguments(sandbox))
        final = await harness.runner.execute(run_id, harness.org_id)
    finally:
        configure(sandbox, error_rate=0.0)
    assert final.status is TaskStatus.COMPLETED, final.last_error
    with system_context("test: read events", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            events = await RunRepository(session).events(run_id)
    assert any(e.type == "subtask_retry" for e in events), "the error rate should have forced a retry"


async def test_a_run_whose_preparation_fails_leaves_no_browser_open(
    harness: RunHarness, sandbox: SandboxServer, manager: BrowserManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's browser starts opening before its policy is read (warm-up); a failure there closes it again."""
    import finrpa.runs.runner as runner_module
    from finrpa.runs.browser_session import BrowserSession

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("policy store unavailable")

    opened: list[Any] = []
    warm_up = BrowserSession.warm_up

    def watched(session: BrowserSession) -> None:
        warm_up(session)
        opened.append(session._opening)

    monkeypatch.setattr(runner_module, "open_run_policy", broken)
    monkeypatch.setattr(BrowserSession, "warm_up", watched)
    open_before = len(manager._runs)
    run_id = await start(harness, "bank_statement_download", statement_arguments(sandbox))
    with pytest.raises(RuntimeError, match="policy store unavailable"):
        await harness.runner.execute(run_id, harness.org_id)
    assert len(opened) == 1 and opened[0] is not None
    assert (await opened[0]).closed  # it had opened (the failure came first) and was closed, not left behind
    assert len(manager._runs) == open_before

"""After a run that signs in with a vault credential, the secret appears nowhere the run left anything: no table
row (events, checkpoints, audit, effects, credential reads…), no file in the run folder or the object store, no log
line."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy import text

from finrpa.agents.plan import TaskStatus
from finrpa.audit.service import AuditService
from finrpa.browser import BrowserManager
from finrpa.commands.demo import BANK_PASSWORD_SECRET
from finrpa.db.engine import unit_of_work
from finrpa.db.models_registry import load_all_models
from finrpa.runs.secrets import vault_secrets
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from tests.fixtures.databases import fresh_database
from tests.fixtures.runs import RunHarness, run_harness
from tests.integration.runs.conftest import configure, start

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

SECRET = "demo123"  # the sandbox's published password, stored in the vault by the demo seed


@pytest_asyncio.fixture(loop_scope="module")
async def harness(tmp_path: Path, manager: BrowserManager) -> AsyncIterator[RunHarness]:
    async with fresh_database("sqlite", tmp_path) as url:
        async for item in run_harness(url, tmp_path / "var", manager, {}):
            audit = AuditService.from_settings(item.app.settings)
            item.runner.secrets = vault_secrets(item.app.database.sessions, item.app.settings, audit)
            yield item


async def test_the_vault_secret_is_in_no_row_file_or_log_line(
    harness: RunHarness, sandbox: SandboxServer, caplog: pytest.LogCaptureFixture
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    caplog.set_level(logging.DEBUG)
    arguments = {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": f"secret://{BANK_PASSWORD_SECRET}",
        "account_number": "1001020309000123456",
        "start_date": "2024-01-01",
        "end_date": "2024-01-31",
    }
    run_id = await start(harness, "bank_statement_download", arguments)
    final = await harness.runner.execute(run_id, harness.org_id)
    assert final.status is TaskStatus.COMPLETED, final.last_error
    leaks: list[str] = []
    with system_context("test: read every table"):
        async with unit_of_work(harness.app.database.sessions) as session:
            for table in load_all_models().sorted_tables:
                rows = (await session.execute(text(f'SELECT * FROM "{table.name}"'))).all()  # noqa: S608 - metadata names
                leaks += [f"table {table.name}" for row in rows if SECRET in repr(tuple(row))]
            reads = (await session.execute(text("SELECT count(*) FROM credential_reads"))).scalar()
    assert reads and reads >= 1, "the credential read itself is recorded"
    for path in Path(harness.app.settings.data_dir).rglob("*"):
        if path.is_file() and path.name not in ("finrpa.db", "finrpa.db-wal", "finrpa.db-shm"):
            if SECRET.encode() in path.read_bytes():
                leaks.append(f"file {path}")
    leaks += [f"log {record.name}" for record in caplog.records if SECRET in record.getMessage()]
    assert not leaks, leaks

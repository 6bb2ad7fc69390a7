"""`finrpa audit …` as an operator or auditor types it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finrpa.audit.service import AuditService
from finrpa.cli import app
from finrpa.config import get_settings
from tests.integration.audit.conftest import SharedDatabase
from tests.integration.audit.support import append_rows, tamper

CARD = "6222021234567890"


@pytest.fixture
def cli(shared_db: SharedDatabase, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("FINRPA_DATABASE_URL", shared_db.url)
    get_settings.cache_clear()
    return CliRunner()


def _rows(shared_db: SharedDatabase, service: AuditService, org_id: str, count: int) -> None:
    """Append through the service on a private loop, as the run layer would have."""

    async def work() -> None:
        from finrpa.tenancy import open_tenant_database

        database = open_tenant_database(shared_db.url)
        try:
            await append_rows(database, service, org_id, count, task_id="run-1", input_value=CARD, raw_value=CARD)
        finally:
            await database.dispose()

    asyncio.run(work())


def test_verify_export_and_check_from_the_command_line(
    cli: CliRunner, shared_db: SharedDatabase, audit_service: AuditService, org_id: str, tmp_path: Path
) -> None:
    _rows(shared_db, audit_service, org_id, 3)
    result = cli.invoke(app, ["audit", "verify", "--org", org_id, "--checkpoint"])
    assert result.exit_code == 0, result.output
    assert f"OK org {org_id}: 3 rows" in result.output and "signed checkpoint of 3 rows" in result.output

    key = cli.invoke(app, ["audit", "public-key"])
    pem = key.output.split("-----END PUBLIC KEY-----")[0] + "-----END PUBLIC KEY-----\n"
    (tmp_path / "key.pem").write_text(pem)
    out = tmp_path / "evidence.zip"
    result = cli.invoke(
        app, ["audit", "export", "--org", org_id, "--task", "run-1", "--out", str(out), "--by", "aud-1"]
    )
    assert result.exit_code == 0, result.output
    result = cli.invoke(app, ["audit", "verify-export", str(out), "--public-key", str(tmp_path / "key.pem")])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("VERIFIED")

    result = cli.invoke(app, ["audit", "check-value", "--org", org_id, "--seq", "2", "--stdin"], input=CARD + "\n")
    assert (result.exit_code, result.output.strip()) == (0, "MATCH")
    result = cli.invoke(app, ["audit", "check-value", "--org", org_id, "--seq", "2", "--stdin"], input="0000\n")
    assert (result.exit_code, result.output.strip()) == (1, "NO MATCH")

    result = cli.invoke(app, ["audit", "search", "--org", org_id, "--type", "VALUE_CHECKED"])
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["action_type"] for line in lines] == ["VALUE_CHECKED", "VALUE_CHECKED"]
    assert CARD not in result.output


def test_verify_fails_loudly_and_names_the_row(
    cli: CliRunner, shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    _rows(shared_db, audit_service, org_id, 4)
    sql = "UPDATE audit_records SET duration_ms = 1 WHERE org_id = :org AND seq = 3"

    async def doctor() -> None:
        from finrpa.db.engine import create_engine

        engine = create_engine(shared_db.url)
        try:
            await tamper(engine, (sql, {"org": org_id}))
        finally:
            await engine.dispose()

    asyncio.run(doctor())
    result = cli.invoke(app, ["audit", "verify"])
    assert result.exit_code == 1
    assert f"FAILED org {org_id}: modified at seq 3" in result.output


def test_incremental_verify_from_the_command_line_trusts_the_checkpoint_and_full_verify_does_not(
    cli: CliRunner, shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    _rows(shared_db, audit_service, org_id, 4)
    assert cli.invoke(app, ["audit", "checkpoint", "--org", org_id]).exit_code == 0
    _rows(shared_db, audit_service, org_id, 2)
    sql = "UPDATE audit_records SET duration_ms = 1 WHERE org_id = :org AND seq = 2"

    async def doctor() -> None:
        from finrpa.db.engine import create_engine

        engine = create_engine(shared_db.url)
        try:
            await tamper(engine, (sql, {"org": org_id}))
        finally:
            await engine.dispose()

    asyncio.run(doctor())
    result = cli.invoke(app, ["audit", "verify", "--org", org_id, "--incremental"])
    assert result.exit_code == 0, result.output
    assert f"OK org {org_id}: 6 rows" in result.output and "incremental: rows from seq 5 checked" in result.output
    result = cli.invoke(app, ["audit", "verify", "--org", org_id])  # the default re-checks every row
    assert result.exit_code == 1
    assert f"FAILED org {org_id}: modified at seq 2" in result.output

from __future__ import annotations

import subprocess
import sys


def _finrpa(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-c", "from finrpa.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_unreachable_database_gives_one_clear_line_with_masked_password() -> None:
    result = _finrpa(
        "migrate", env_extra={"FINRPA_DATABASE_URL": "postgresql://bank:hunter2@127.0.0.1:1/finrpa"}
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "postgresql+asyncpg://bank:***@127.0.0.1:1/finrpa" in lines[0]
    assert "hunter2" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    assert "FINRPA_DATABASE_URL" in lines[0]


def test_production_without_secrets_refuses_to_start() -> None:
    result = _finrpa("migrate", env_extra={"FINRPA_ENV": "production", "FINRPA_SECRET_KEY": ""})
    assert result.returncode == 2
    assert "FINRPA_SECRET_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_migrate_then_doctor_reports_migrations_at_head() -> None:
    assert _finrpa("migrate").returncode == 0
    result = _finrpa("doctor")
    assert "OK      migrations" in result.stdout, result.stdout
    assert "database" in result.stdout


def test_help_everywhere() -> None:
    for command in ([], ["migrate"], ["doctor"], ["version"]):
        result = _finrpa(*command, "--help")
        assert result.returncode == 0, result.stderr
        assert "Usage" in result.stdout

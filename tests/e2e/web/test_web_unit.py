"""The dashboard's own Vitest suite (schema→form fields, i18n fallbacks, amounts and dates, the SSE parser and
run-view reducer, the session's token refresh, audit filters, approval progress) run from pytest, so `make test`
and CI fail when the UI's logic does."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.e2e.web.conftest import REPOSITORY

WEB = REPOSITORY / "web"


def test_the_dashboards_vitest_suite_passes() -> None:
    npx = shutil.which("npx")
    if npx is None or not (WEB / "node_modules").is_dir():
        pytest.fail("Node packages are not installed: run `make setup` (or `cd web && npm ci`).")
    result = subprocess.run(
        [npx, "vitest", "run", "--reporter=dot"], cwd=WEB, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout

"""``finrpa policy validate``: an administrator checks a policy file before uploading it."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from finrpa.cli import app

GOOD = """
@id("org.no_payments_at_night")
@reason("Payments are not submitted at night.")
forbid (principal, action == Action::"payment.submit", resource) when { context.hour >= 22 };
"""
BAD = '@id("org.big") forbid (principal, action, resource) when { context.amount > 10 };'


def test_a_valid_file_lists_its_policies(tmp_path: Path) -> None:
    path = tmp_path / "night.cedar"
    path.write_text(GOOD, encoding="utf-8")
    result = CliRunner().invoke(app, ["policy", "validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "org.no_payments_at_night" in result.output and "1 file(s) valid" in result.output


def test_an_invalid_file_fails_with_the_validators_message(tmp_path: Path) -> None:
    path = tmp_path / "big.cedar"
    path.write_text(BAD, encoding="utf-8")
    result = CliRunner().invoke(app, ["policy", "validate", str(path)])
    assert result.exit_code != 0
    assert "attribute `amount` in context not found" in str(result.exception)

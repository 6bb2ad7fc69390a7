"""The identity and vault commands, run as an administrator would, against a migrated database."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from finrpa.cli import app
from finrpa.exceptions import FinRPAError
from finrpa.identity.errors import MakerCheckerViolationError
from tests.integration.tenancy.support import Backend

SECRET_VALUE = "portal-pass-for-tests-91f"


@pytest.fixture
def finrpa(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("FINRPA_DATABASE_URL", backend.url)
    return CliRunner()


def invoke(runner: CliRunner, *args: str, stdin: str | None = None) -> str:
    result = runner.invoke(app, list(args), input=stdin)
    if result.exception is not None:
        raise result.exception
    assert result.exit_code == 0, result.output
    return result.output


def test_an_administrator_sets_up_a_bank_and_maker_checker_holds(finrpa: CliRunner) -> None:
    slug = f"cli-bank-{id(finrpa) % 100000}"
    assert f"Created organisation {slug}" in invoke(finrpa, "org", "create", "招商银行 上海分行", "--slug", slug)
    assert slug in invoke(finrpa, "org", "list")
    invoke(finrpa, "dept", "create", "ops", "--org", slug, "--name", "运营部")
    created = invoke(finrpa, "user", "create", "olga", "--org", slug)
    assert "Initial password (shown only now" in created
    invoke(finrpa, "user", "create", "alex", "--org", slug, "--password-stdin", stdin="a-strong-pass-phrase-1\n")
    invoke(finrpa, "user", "grant", "olga", "--org", slug, "--dept", "ops", "--role", "operator")
    with pytest.raises(MakerCheckerViolationError, match="cannot be operator and approver in the same department"):
        invoke(finrpa, "user", "grant", "olga", "--org", slug, "--dept", "ops", "--role", "approver")
    invoke(finrpa, "user", "grant", "alex", "--org", slug, "--dept", "ops", "--role", "approver")
    listed = invoke(finrpa, "user", "list", "--org", slug)
    assert "olga" in listed and "ops:operator" in listed and "ops:approver" in listed


def test_secrets_go_in_through_stdin_and_never_come_out(finrpa: CliRunner) -> None:
    slug = f"cli-vault-{id(finrpa) % 100000}"
    invoke(finrpa, "org", "create", "Vault Bank", "--slug", slug)
    invoke(finrpa, "dept", "create", "ops", "--org", slug, "--name", "运营部")
    stored = invoke(
        finrpa, "secret", "put", "bank/login", "--org", slug, "--dept", "ops", "--value-stdin", stdin=SECRET_VALUE
    )
    listed = invoke(finrpa, "secret", "list", "--org", slug)
    assert "secret://bank/login" in listed and "password" in listed
    assert SECRET_VALUE not in stored + listed


def test_an_unknown_organisation_is_named_in_one_sentence(finrpa: CliRunner) -> None:
    with pytest.raises(FinRPAError, match=r"No organisation .nowhere.; `finrpa org list` shows the existing ones"):
        invoke(finrpa, "dept", "list", "--org", "nowhere")

"""``finrpa notify``: add and list channels with masked endpoints, send a test message, report failures."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from typer.testing import CliRunner

from finrpa.cli import app, main
from finrpa.config import get_settings
from finrpa.notify.errors import ChannelConfigError
from finrpa.tenancy import TenantDatabase
from tests.integration.notify.conftest import ORG, TEST_SECRETS, Answer, Receiver

WECOM_KEY = "test-wecom-key-not-real"


@pytest.fixture
def cli_env(database: TenantDatabase, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    url = database.engine.url.render_as_string(hide_password=False)
    env = {"FINRPA_DATABASE_URL": url, **TEST_SECRETS}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    return env


async def _invoke(*args: str) -> tuple[int, str, BaseException | None]:
    result = await asyncio.to_thread(CliRunner().invoke, app, ["notify", *args])
    return result.exit_code, result.output, result.exception


async def test_add_list_and_test_a_wecom_channel_without_showing_its_key(
    cli_env: dict[str, str], receiver: Receiver
) -> None:
    url = receiver.url(f"/cgi-bin/webhook/send?key={WECOM_KEY}")
    code, output, error = await _invoke(
        "add", "ops", "--org", ORG, "--kind", "wecom", "--config", json.dumps({"url": url})
    )
    assert code == 0, error
    assert WECOM_KEY not in output

    code, output, error = await _invoke("channels", "--org", ORG)
    assert code == 0, error
    assert "ops  wecom" in output and f"{receiver.base_url}/…" in output
    assert WECOM_KEY not in output

    code, output, error = await _invoke("test", "ops", "--org", ORG)
    assert code == 0, error
    assert "accepted" in output
    [request] = receiver.received()
    body = request.json()
    assert isinstance(body, dict) and "FinRPA 测试消息" in body["markdown"]["content"]


async def test_bad_settings_are_refused_with_a_sentence(cli_env: dict[str, str]) -> None:
    code, _, error = await _invoke(
        "add",
        "hook",
        "--org",
        ORG,
        "--kind",
        "webhook",
        "--config",
        '{"url": "https://x.example/", "secret": "raw"}',
    )
    assert code != 0
    assert isinstance(error, ChannelConfigError)
    assert "secret:// reference" in error.message and "raw" not in error.message


def test_a_failing_test_message_is_one_line_on_stderr_without_the_key(
    cli_env: dict[str, str],
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = receiver.url(f"/send?key={WECOM_KEY}")
    added = CliRunner().invoke(
        app, ["notify", "add", "ops", "--org", ORG, "--kind", "wecom", "--config", json.dumps({"url": url})]
    )
    assert added.exit_code == 0, added.exception
    receiver.answer(Answer(body={"errcode": 93000, "errmsg": f"invalid webhook url {WECOM_KEY}"}))
    monkeypatch.setattr(sys, "argv", ["finrpa", "notify", "test", "ops", "--org", ORG])

    with pytest.raises(SystemExit) as exit_info:
        main()

    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: ") and "errcode 93000" in lines[0]
    assert WECOM_KEY not in captured.err + captured.out

"""SandboxServer runs the portals on a free loopback port in the background; the CLI validates switches."""

from __future__ import annotations

import socket

import httpx
import pytest
import typer
from typer.testing import CliRunner

from finrpa.exceptions import ConfigurationError
from finrpa.sandbox.command import sandbox
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.server import SandboxServer, SandboxStartError


def test_server_answers_on_a_free_port_and_stops() -> None:
    server = SandboxServer(SandboxConfig(port=0, expose_state=True))
    base_url = server.start()
    assert base_url.startswith("http://127.0.0.1:") and not base_url.endswith(":0")
    assert "corp_demo" in httpx.get(base_url + "/").text
    server.set_config(layout="v2")
    assert httpx.get(base_url + "/__sandbox__/state").json()["config"]["layout"] == "v2"
    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(base_url + "/", timeout=2)


def test_two_servers_keep_separate_state() -> None:
    with SandboxServer(SandboxConfig(port=0)) as first, SandboxServer(SandboxConfig(port=0)) as second:
        assert first.base_url != second.base_url
        httpx.post(first.base_url + "/bank/login", data={"username": "corp_demo", "password": "wrong"})
        assert first.state().login_failures == {"bank:corp_demo": 1}
        assert second.state().login_failures == {}


def test_a_taken_port_is_reported_as_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SandboxStartError, match="pick another port"):
            SandboxServer(SandboxConfig(port=port), startup_timeout_s=5).start()


def test_cli_refuses_an_unknown_layout_in_one_sentence() -> None:
    app = typer.Typer()
    app.command()(sandbox)
    result = CliRunner().invoke(app, ["--layout", "v3"])
    assert isinstance(result.exception, ConfigurationError)
    assert "--layout" in result.exception.message and "finrpa sandbox --help" in result.exception.message

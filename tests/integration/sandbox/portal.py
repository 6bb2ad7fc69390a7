"""Talking to the sandbox over HTTP in tests: an app with a settable clock, login, form tokens, messages."""

from __future__ import annotations

import re
from datetime import datetime

import httpx
from fastapi.testclient import TestClient

from finrpa.sandbox.app import create_app
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD

TOKEN = re.compile(r'name="(?:formToken|txnToken)" value="([^"]+)"')
ALERT = re.compile(r'role="alert">([^<]+)<')
NOTICE = re.compile(r'role="status">([^<]+)<')
FIXED_NOW = datetime(2025, 6, 16, 10, 30, 0)


class FakeClock:
    """Monotonic seconds the test moves forward by hand (for idle timeouts)."""

    def __init__(self) -> None:
        self.seconds = 1_000.0

    def __call__(self) -> float:
        return self.seconds

    def advance(self, seconds: float) -> None:
        self.seconds += seconds


def sandbox_client(clock: FakeClock | None = None, **switches: object) -> TestClient:
    """A client of a fresh sandbox (state exposed) whose "today" is 2025-06-16."""
    config = SandboxConfig.model_validate({"expose_state": True} | switches)
    app = create_app(config, clock=clock or FakeClock(), now=lambda: FIXED_NOW)
    return TestClient(app)


def login(client: TestClient, portal: str, username: str, password: str = DEMO_PASSWORD) -> httpx.Response:
    return client.post(f"/{portal}/login", data={"username": username, "password": password})


def form_token(html: str) -> str:
    match = TOKEN.search(html)
    assert match, "the page has no one-time form token"
    return match.group(1)


def alerts(html: str) -> list[str]:
    """The error messages the page shows (role=alert)."""
    return ALERT.findall(html)


def notices(html: str) -> list[str]:
    return NOTICE.findall(html)

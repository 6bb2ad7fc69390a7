"""LoginSkill reads the password from the vault while it types the username, and never leaves that read running."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from finrpa.browser import SecretText
from finrpa.skills.builtin import login
from finrpa.skills.builtin.login import LoginParams, LoginSkill


class _Page:
    def __init__(self, fail_on: str | None = None) -> None:
        self.fail_on = fail_on
        self.typed: list[tuple[str, Any]] = []

    async def observe(self) -> Any:
        return SimpleNamespace(url="https://portal.test/login")

    async def present(self, label: str, roles: Any) -> Any:
        return object() if label == "用户名" else None

    async def set_field(self, label: str, value: Any, *, sensitive: bool = False) -> None:
        await asyncio.sleep(0.01)
        if label == self.fail_on:
            raise RuntimeError(f"no field {label}")
        self.typed.append((label, value))

    async def click(self, label: str, *, roles: Any) -> None:
        return None


class _Context:
    def __init__(self, page: _Page) -> None:
        self.page = page
        self.controller = SimpleNamespace(navigate=self._navigate)
        self.reads: list[str] = []
        self.finished: list[str] = []

    async def _navigate(self, url: str) -> None:
        return None

    async def secret(self, reference: Any, *, purpose: str) -> SecretText:
        self.reads.append(purpose)
        await asyncio.sleep(0.05)  # slower than typing the username
        self.finished.append(purpose)
        return SecretText("pw")


@pytest.fixture(autouse=True)
def _login_page(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter([True, False])  # the login form, then signed in
    monkeypatch.setattr(login, "has_password_field", lambda snapshot: next(answers))
    monkeypatch.setattr(login, "raise_if_transient", lambda snapshot: None)


def _params() -> LoginParams:
    return LoginParams(url="https://portal.test/login", username="corp", password="secret://bank")


async def test_the_password_is_read_once_and_typed_after_the_username() -> None:
    page = _Page()
    context = _Context(page)
    result = await LoginSkill().execute(_params(), context)  # type: ignore[arg-type]
    assert result.success
    assert context.reads == ["login password"] and context.finished == ["login password"]
    assert [label for label, _ in page.typed] == ["用户名", "密码"]
    assert page.typed[1][1].reveal() == "pw"


async def test_a_failure_typing_the_username_waits_for_the_password_read() -> None:
    context = _Context(_Page(fail_on="用户名"))
    with pytest.raises(RuntimeError, match="no field"):
        await LoginSkill().execute(_params(), context)  # type: ignore[arg-type]
    assert context.finished == ["login password"]  # its read (and audit row) completed, not left running
    assert [task for task in asyncio.all_tasks() if task is not asyncio.current_task()] == []

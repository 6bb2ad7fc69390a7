"""Sandbox switches are validated, also when changed at runtime."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from finrpa.sandbox.config import SandboxConfig


def test_defaults_are_the_plain_v1_portal() -> None:
    config = SandboxConfig()
    assert (config.layout, config.captcha, config.totp, config.error_rate, config.expose_state) == (
        "v1",
        False,
        False,
        0.0,
        False,
    )


def test_changes_are_validated_and_unknown_switches_refused() -> None:
    assert SandboxConfig().with_changes({"layout": "v2"}).layout == "v2"
    with pytest.raises(ValidationError):
        SandboxConfig().with_changes({"error_rate": 1.5})
    with pytest.raises(ValidationError):
        SandboxConfig().with_changes({"colour": "red"})

"""Every realism switch of the sandbox portals as one validated model (`finrpa sandbox --help` mirrors it)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Layout = Literal["v1", "v2"]


class SandboxConfig(BaseModel):
    """What the sandbox imitates. Every switch is off by default except the v1 layout."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8600, ge=0, le=65535, description="0 picks a free port.")
    layout: Layout = "v1"
    captcha: bool = Field(default=False, description="Image captcha (验证码) on every login form.")
    totp: bool = Field(default=False, description="Second login step asking for a TOTP (动态口令).")
    latency_ms: int = Field(default=0, ge=0, le=60_000, description="Added to every page and form request.")
    error_rate: float = Field(default=0.0, ge=0.0, le=1.0, description="Share of requests that fail.")
    session_timeout_s: float = Field(
        default=0.0, ge=0.0, description="Idle logout after S seconds; 0 = never."
    )
    dynamic_ids: bool = Field(default=False, description="New ids and hashed class names on every render.")
    expose_state: bool = Field(default=False, description="Serve /__sandbox__/state, /reset and /config.")
    seed: int = Field(default=42, description="Seeds the transaction data and the error injection.")

    def with_changes(self, changes: dict[str, object]) -> SandboxConfig:
        """Return a validated copy with `changes` applied (unknown switches are refused)."""
        return SandboxConfig.model_validate({**self.model_dump(), **changes})

"""SessionKeepAliveSkill: keeps a long run's portal session alive (e.g. while an approval is pending) with
a harmless touch, and reports an expired session so the run signs in again."""

from __future__ import annotations

import asyncio
import time

from pydantic import BaseModel, Field

from finrpa.browser import Navigate
from finrpa.skills.base import BaseSkill, ErrorStrategy, SideEffect, SkillError, SkillResult
from finrpa.skills.context import SkillContext
from finrpa.skills.portal_state import has_password_field
from finrpa.skills.registry import register_skill
from finrpa.skills.resolve import NAVIGABLE


class KeepAliveParams(BaseModel):
    duration_s: float = Field(default=60.0, gt=0, le=24 * 3600, description="How long to keep the session alive.")
    interval_s: float = Field(default=30.0, gt=0, le=3600)
    touch_label: str | None = Field(default=None, description="A harmless menu item to open; default: reload.")


class SessionExpiredError(SkillError):
    code = "session_expired"
    retryable = True


@register_skill
class SessionKeepAliveSkill(BaseSkill[KeepAliveParams]):
    skill_name = "SessionKeepAliveSkill"
    description = "Keep a portal session alive during a long wait; detect expiry so the run signs in again."
    params_model = KeepAliveParams
    error_strategy = ErrorStrategy.RETRY
    side_effect = SideEffect.READ
    required_capabilities = frozenset({"navigate"})
    timeout_s = 24 * 3600.0

    async def execute(self, params: KeepAliveParams, context: SkillContext) -> SkillResult:
        deadline = time.monotonic() + params.duration_s
        touches = 0
        while True:
            await self.touch(params, context)
            touches += 1
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return SkillResult.ok({"touches": touches})
            await asyncio.sleep(min(params.interval_s, remaining))

    async def touch(self, params: KeepAliveParams, context: SkillContext) -> None:
        """One keep-alive touch; raises SessionExpiredError when the portal shows its login form."""
        if params.touch_label:
            await context.page.click(params.touch_label, roles=NAVIGABLE)
        else:
            snapshot = await context.page.observe()
            await context.controller.execute(Navigate(url=snapshot.url))
        if has_password_field(await context.page.observe()):
            raise SessionExpiredError("The portal session expired (the login form is shown); sign in again.")

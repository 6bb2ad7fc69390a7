"""LoginSkill: signs in to a portal with vault credentials, captcha strategy and TOTP; never retries a
rejected password (accounts lock after a few wrong attempts)."""

from __future__ import annotations

import asyncio
from typing import Literal

import pyotp
from pydantic import BaseModel, ConfigDict, Field

from finrpa.browser import PageSnapshot, SecretText
from finrpa.skills.base import BaseSkill, ErrorStrategy, SideEffect, SkillError, SkillResult
from finrpa.skills.context import SkillContext
from finrpa.skills.portal_state import alert_text, has_password_field, raise_if_transient, read_portal_reply
from finrpa.skills.registry import register_skill
from finrpa.skills.resolve import CLICKABLE, FILLABLE


class LoginParams(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    url: str = Field(description="The portal's login page.")
    username: str
    password: str | SecretText = Field(description="The password, a secret:// reference, or a SecretText.")
    captcha_strategy: Literal["skip", "manual", "ocr"] = "skip"
    totp_secret: str | SecretText | None = Field(default=None, description="secret:// reference to the TOTP seed.")
    username_label: str = "用户名"
    password_label: str = "密码"  # noqa: S105 - a field label, not a password
    captcha_label: str = "验证码"
    otp_label: str = "动态口令"
    submit_label: str = "登录"
    otp_submit_label: str = "验证"


class LoginRejectedError(SkillError):
    code = "login_rejected"
    retryable = False


@register_skill
class LoginSkill(BaseSkill[LoginParams]):
    skill_name = "LoginSkill"
    description = "Sign in to a portal (credentials from the vault, captcha strategy, TOTP second factor)."
    params_model = LoginParams
    error_strategy = ErrorStrategy.ABORT
    side_effect = SideEffect.READ
    required_capabilities = frozenset({"navigate", "fill", "click"})
    sensitive_params = frozenset({"password", "totp_secret"})
    timeout_s = 90.0

    async def execute(self, params: LoginParams, context: SkillContext) -> SkillResult:
        page = context.page
        await context.controller.navigate(params.url)
        snapshot = await page.observe()
        raise_if_transient(snapshot)
        if not has_password_field(snapshot) and await page.present(params.username_label, FILLABLE) is None:
            return SkillResult.ok({"signed_in": True, "already": True}, url=snapshot.url)
        # The password is read from the vault (and its read audited) while the username is typed.
        reading = asyncio.ensure_future(context.secret(params.password, purpose="login password"))
        try:
            await page.set_field(params.username_label, params.username)
        except BaseException:
            await asyncio.gather(reading, return_exceptions=True)  # never left running behind a failed step
            raise
        password = await reading
        await page.set_field(params.password_label, password, sensitive=True)
        if await page.present(params.captcha_label, FILLABLE) is not None:
            self._captcha(params)
        await page.click(params.submit_label, roles=CLICKABLE)
        after = await page.observe()
        raise_if_transient(after)
        if await page.present(params.otp_label, FILLABLE) is not None:
            after = await self._second_factor(params, context)
        if has_password_field(after):
            # Only on this failure path: the portal's own words ("用户名或密码错误，您还可以尝试 4 次。"), with the
            # password masked should the page echo it.
            reply = await read_portal_reply(context.browser.active_tab, hide=[password])
            reason = reply.describe() if reply.alerts else alert_text(after) or "the portal kept the login form"
            raise LoginRejectedError(
                f"The portal rejected the sign-in for {params.username!r}: {reason}. FinRPA does not retry a "
                "rejected password (it would lock the account); check the credential in the vault."
            )
        return SkillResult.ok({"signed_in": True}, url=after.url)

    def _captcha(self, params: LoginParams) -> None:
        if params.captcha_strategy == "ocr":
            raise SkillError(
                "The login page shows a captcha and no captcha solver is installed; use captcha_strategy "
                "'manual' so a person enters it.",
                code="captcha_solver_missing",
            )
        raise SkillError(
            "The login page shows a captcha: a person must enter it and complete the sign-in, then mark this "
            "step done.",
            code="captcha_required",
            needs_human=True,
        )

    async def _second_factor(self, params: LoginParams, context: SkillContext) -> PageSnapshot:
        if not params.totp_secret:
            raise SkillError(
                "The portal asks for a one-time password and the template has no TOTP seed (totp_secret).",
                code="totp_required",
                needs_human=True,
            )
        seed = await context.secret(params.totp_secret, purpose="login one-time password")
        code = SecretText(pyotp.TOTP(seed.reveal()).now())
        await context.page.set_field(params.otp_label, code, sensitive=True)
        await context.page.click(params.otp_submit_label, roles=CLICKABLE)
        snapshot = await context.page.observe()
        raise_if_transient(snapshot)
        if await context.page.present(params.otp_label, FILLABLE) is not None:
            raise LoginRejectedError("The portal rejected the one-time password; check the TOTP seed in the vault.")
        return snapshot

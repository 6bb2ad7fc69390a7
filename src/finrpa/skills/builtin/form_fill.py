"""FormFillSkill: reaches a form by its menu name, fills fields by label (text, native and custom dropdowns,
date pickers, checkboxes, radios, files), reads every value back, and optionally submits, confirms and
captures what the result page says (e.g. the payment's reference number). A portal that answers the submission
with its own error messages on the re-shown form fails the step as form_rejected, quoting them (masked)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from finrpa.browser import SecretText
from finrpa.skills.base import (
    BaseSkill,
    ErrorStrategy,
    ReconcileOutcome,
    ReconcileResult,
    SideEffect,
    SkillError,
    SkillResult,
)
from finrpa.skills.context import SkillContext
from finrpa.skills.portal_state import alert_text, mask_values, raise_if_transient, read_portal_reply
from finrpa.skills.registry import register_skill
from finrpa.skills.resolve import CLICKABLE


class ReconcileSpec(BaseModel):
    """How to look up in the portal whether a submission happened (used after a crash)."""

    navigate_to: list[str] = Field(default_factory=list)
    search_field: str = Field(description="Label of the search box, e.g. 关键字.")
    query: str = Field(description="The business id to search for.")
    submit: str = "查询"
    reference_column: str = Field(description="Column holding the external reference, e.g. 交易流水号.")


class FormFillParams(BaseModel):
    navigate_to: list[str] = Field(default_factory=list, description="Menu labels to follow first.")
    fields: dict[str, Any] = Field(
        default_factory=dict, description="Field label → value (text, YYYY-MM-DD, option label, true/false)."
    )
    files: dict[str, str] = Field(default_factory=dict, description="File field label → path of the file to upload.")
    sensitive_fields: list[str] = Field(default_factory=list)
    submit: str | None = Field(default=None, description="Label of the submit button, if the form is submitted.")
    confirm: str | None = Field(default=None, description="Label of the confirm button of a confirmation dialog.")
    expect_text: str | None = Field(default=None, description="Text that must appear after submitting.")
    capture: dict[str, str] = Field(default_factory=dict, description="Output name → label of a shown value.")
    reconcile: ReconcileSpec | None = None


class FormRejectedError(SkillError):
    """The portal answered the submission with its own error messages (an over-long 附言, an unknown
    account): a person must correct the input, so retrying with the same values is pointless.

    The step had already clicked submit, so the run layer still records the effect as uncertain, not as
    not done: a retry reconciles with the portal's records before it submits again."""

    code = "form_rejected"
    retryable = False


# How long a failed submit waits for the portal's alert to show (a toast after an XHR answer).
_REPLY_WAIT_S = 1.5


@register_skill
class FormFillSkill(BaseSkill[FormFillParams]):
    skill_name = "FormFillSkill"
    description = "Fill a form by field labels (any widget), verify each value, optionally submit and confirm."
    params_model = FormFillParams
    error_strategy = ErrorStrategy.RETRY
    side_effect = SideEffect.WRITE
    side_effect_declared_by_step = True
    required_capabilities = frozenset({"click", "fill", "select"})
    timeout_s = 120.0

    async def execute(self, params: FormFillParams, context: SkillContext) -> SkillResult:
        page = context.page
        if params.navigate_to:
            await page.navigate_menu(params.navigate_to)
        raise_if_transient(await page.observe())
        sensitive = set(params.sensitive_fields)
        hidden: list[str | SecretText] = []  # what went into secret or sensitive fields: never in an error
        for label, value in params.fields.items():
            if value is None or value == "":
                continue
            if isinstance(value, str) and value.startswith("secret://"):
                value = await context.secret(value, purpose=f"form field {label}")
            if label in sensitive or isinstance(value, SecretText):
                hidden.append(value if isinstance(value, SecretText) else str(value))
            await page.set_field(label, value, sensitive=label in sensitive)
        for label, path in params.files.items():
            await page.set_field(label, str(context.upload_file(path)))
        data: dict[str, Any] = {"filled": sorted([*params.fields, *params.files])}
        if params.submit:
            await self._submit(params, context, hidden)
            await self._check_outcome(params, context, hidden)
            for name, label in params.capture.items():
                captured = await page.read_value(label)
                if captured is None:
                    raise await _missing_capture(params, context, label, hidden)
                data[name] = captured
        return SkillResult.ok(data, url=page.url)

    async def _submit(self, params: FormFillParams, context: SkillContext, hidden: list[str | SecretText]) -> None:
        page = context.page
        assert params.submit is not None
        await context.before_effect()
        await page.click(params.submit, roles=CLICKABLE)
        raise_if_transient(await page.observe())
        if not params.confirm:
            return
        if await page.present(params.confirm, CLICKABLE) is None:
            # No confirmation dialog: the portal may have answered the submit itself with its errors.
            reply = await read_portal_reply(context.browser.active_tab, hide=hidden)
            if reply.alerts and await page.present(params.submit, CLICKABLE) is not None:
                raise _rejected(reply.describe())
        await context.before_effect()
        await page.click(params.confirm, roles=CLICKABLE)
        raise_if_transient(await page.observe())

    async def _check_outcome(
        self, params: FormFillParams, context: SkillContext, hidden: list[str | SecretText]
    ) -> None:
        page = context.page
        if params.expect_text and not await page.text_visible(params.expect_text):
            reply = await read_portal_reply(context.browser.active_tab, hide=hidden, wait_s=_REPLY_WAIT_S)
            said = reply.describe()
            problem = (
                said if reply.alerts else "the expected confirmation did not appear" + (f" ({said})" if said else "")
            )
            raise _rejected(problem)
        alerts = mask_values(alert_text(await page.current()), hidden)
        still_on_form = params.submit is not None and await page.present(params.submit, CLICKABLE) is not None
        if alerts and (still_on_form or not params.capture):
            raise _rejected(alerts)

    async def reconcile(self, params: FormFillParams, context: SkillContext) -> ReconcileResult:
        spec = params.reconcile
        if spec is None:
            return await super().reconcile(params, context)
        page = context.page
        if spec.navigate_to:
            await page.navigate_menu(spec.navigate_to)
        await page.set_field(spec.search_field, spec.query)
        await page.click(spec.submit, roles=CLICKABLE)
        reference = await _reference_for(context, spec)
        if reference:
            return ReconcileResult(
                outcome=ReconcileOutcome.HAPPENED,
                external_reference=reference,
                detail=f"found {spec.query!r} in the portal's records",
            )
        return ReconcileResult(
            outcome=ReconcileOutcome.DID_NOT_HAPPEN, detail=f"no record of {spec.query!r} in the portal"
        )


async def _missing_capture(
    params: FormFillParams, context: SkillContext, label: str, hidden: list[str | SecretText]
) -> SkillError:
    """Why the result page lacks ``label``: the portal's own error messages on the re-shown form make it a
    rejection a person must fix (form_rejected); otherwise the submission is uncertain (capture_missing)."""
    reply = await read_portal_reply(context.browser.active_tab, hide=hidden, wait_s=_REPLY_WAIT_S)
    still_on_form = params.submit is not None and await context.page.present(params.submit, CLICKABLE) is not None
    if reply.alerts and still_on_form:
        return _rejected(reply.describe())
    said = reply.describe()
    return SkillError(
        f"The result page does not show {label!r}; the submission is uncertain" + (f" ({said})." if said else "."),
        code="capture_missing",
        retryable=False,
    )


def _rejected(problem: str) -> FormRejectedError:
    stop = "" if problem.endswith(("。", ".", "！", "!")) else "."
    return FormRejectedError(f"The portal did not accept the form: {problem}{stop} Correct the input and submit again.")


async def _reference_for(context: SkillContext, spec: ReconcileSpec) -> str | None:
    from finrpa.skills.builtin.tables import read_all_rows, wait_for_table

    snapshot, table = await wait_for_table(context, None, [spec.reference_column])
    if table is None:
        return None
    headers, rows = await read_all_rows(context, snapshot, table)
    column = next((i for i, h in enumerate(headers) if spec.reference_column in h), None)
    for row in rows:
        if any(spec.query in cell for cell in row) and column is not None and column < len(row):
            return row[column].strip() or None
    return None

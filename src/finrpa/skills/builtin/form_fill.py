"""FormFillSkill: reaches a form by its menu name, fills fields by label (text, native and custom dropdowns,
date pickers, checkboxes, radios, files), reads every value back, and optionally submits, confirms and
captures what the result page says (e.g. the payment's reference number)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

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
from finrpa.skills.portal_state import alert_text, raise_if_transient
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
    code = "form_rejected"
    retryable = False


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
        for label, value in params.fields.items():
            if value is None or value == "":
                continue
            if isinstance(value, str) and value.startswith("secret://"):
                value = await context.secret(value, purpose=f"form field {label}")
            await page.set_field(label, value, sensitive=label in sensitive)
        for label, path in params.files.items():
            await page.set_field(label, str(context.upload_file(path)))
        data: dict[str, Any] = {"filled": sorted([*params.fields, *params.files])}
        if params.submit:
            await context.before_effect()
            await page.click(params.submit, roles=CLICKABLE)
            snapshot = await page.observe()
            raise_if_transient(snapshot)
            if params.confirm:
                await context.before_effect()
                await page.click(params.confirm, roles=CLICKABLE)
                snapshot = await page.observe()
                raise_if_transient(snapshot)
            await self._check_outcome(params, context)
            for name, label in params.capture.items():
                captured = await page.read_value(label)
                if captured is None:
                    raise SkillError(
                        f"The result page does not show {label!r}; the submission is uncertain.",
                        code="capture_missing",
                        retryable=False,
                    )
                data[name] = captured
        return SkillResult.ok(data, url=page.url)

    async def _check_outcome(self, params: FormFillParams, context: SkillContext) -> None:
        snapshot = await context.page.observe()
        if params.expect_text and not await context.page.text_visible(params.expect_text):
            problem = alert_text(snapshot) or "the expected confirmation did not appear"
            raise FormRejectedError(f"The portal did not accept the form: {problem}.")
        alerts = alert_text(snapshot)
        still_on_form = params.submit is not None and await context.page.present(params.submit, CLICKABLE) is not None
        if alerts and (still_on_form or not params.capture):
            raise FormRejectedError(f"The portal did not accept the form: {alerts}.")

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

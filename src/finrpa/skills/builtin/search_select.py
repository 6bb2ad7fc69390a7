"""SearchAndSelectSkill: types a query, waits for results, picks the one row matching the given criteria
(never the first of several), opens it and verifies the selection."""

from __future__ import annotations

import time

from pydantic import BaseModel, Field

from finrpa.browser import Click, Target
from finrpa.skills.base import BaseSkill, ErrorStrategy, SideEffect, SkillError, SkillResult
from finrpa.skills.context import SkillContext
from finrpa.skills.portal_state import raise_if_transient
from finrpa.skills.registry import register_skill
from finrpa.skills.resolve import CLICKABLE


class SearchAndSelectParams(BaseModel):
    navigate_to: list[str] = Field(default_factory=list)
    query_field: str = Field(description="Label of the search box.")
    query: str
    search_button: str | None = Field(
        default=None, description="Label of the search button; none: results appear as you type."
    )
    match: str = Field(description="Text the chosen result must contain (e.g. the policy number).")
    verify_text: str | None = Field(default=None, description="Text the opened record must show; default: match.")
    wait_s: float = Field(default=10.0, gt=0, le=120)


class SelectionError(SkillError):
    code = "selection_failed"
    retryable = True


@register_skill
class SearchAndSelectSkill(BaseSkill[SearchAndSelectParams]):
    skill_name = "SearchAndSelectSkill"
    description = "Search, pick the single result matching the criteria, open it and verify the selection."
    params_model = SearchAndSelectParams
    error_strategy = ErrorStrategy.RETRY
    side_effect = SideEffect.READ
    required_capabilities = frozenset({"fill", "click"})

    async def execute(self, params: SearchAndSelectParams, context: SkillContext) -> SkillResult:
        page = context.page
        if params.navigate_to:
            await page.navigate_menu(params.navigate_to)
        await page.set_field(params.query_field, params.query)
        if params.search_button:
            await page.click(params.search_button, roles=CLICKABLE)
        snapshot, candidate = await self._single_result(params, context)
        await context.controller.execute(
            Click(snapshot_id=snapshot.snapshot_id, target=Target(ref=candidate.ref, fingerprint=candidate.fingerprint))
        )
        expected = params.verify_text or params.match
        after = await page.observe()
        raise_if_transient(after)
        if expected not in after.text:
            raise SelectionError(f"After selecting {params.match!r} the page does not show {expected!r}.")
        return SkillResult.ok({"selected": params.match}, url=after.url)

    async def _single_result(self, params: SearchAndSelectParams, context: SkillContext):  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + params.wait_s
        while True:
            snapshot = await context.page.observe()
            raise_if_transient(snapshot)
            links = [
                element
                for element in snapshot.elements
                if element.visible
                and element.role in CLICKABLE
                and element.role != "button"
                and params.match in f"{element.name} {element.fingerprint.row}"
            ]
            distinct_rows = {(e.fingerprint.row or e.name) for e in links}
            if len(distinct_rows) == 1:
                return snapshot, links[0]
            if len(distinct_rows) > 1:
                raise SelectionError(
                    f"{len(distinct_rows)} results contain {params.match!r}; narrow the criteria instead of guessing."
                )
            if time.monotonic() >= deadline:
                raise SelectionError(f"No result for {params.query!r} contains {params.match!r}.")
            await context.page.pause(snapshot, deadline)

"""The controller never acts on the wrong element: re-rendered, moved, duplicated, covered, disabled,
renamed or navigated targets are re-resolved correctly or refused with the right reason.

The fixture page records which control received every click/input/change event (``window.fxLog``);
each scenario asserts that only the intended control ever received one.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from finrpa.browser import (
    Click,
    Controller,
    Fill,
    PageSnapshot,
    RunBrowser,
    StaleSnapshotError,
    Target,
    TargetRefusedError,
)
from finrpa.browser.snapshot import ElementInfo
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

WRONG_ELEMENT_EVENTS: list[str] = []
SCENARIOS_RUN: list[str] = []


@dataclass(frozen=True)
class Scenario:
    name: str
    mutation: str
    kind: str  # "fill" or "click"
    target: str  # data-fx of the intended control
    expected: str  # "ok" or a refusal reason


SCENARIOS = [
    Scenario("ids and classes regenerated", "fx.regenerate()", "fill", "amount", "ok"),
    Scenario("field moved to the top", "fx.move('amount')", "fill", "amount", "ok"),
    Scenario("field moved into another section", "fx.moveToOther('amount')", "fill", "amount",
             "fingerprint_mismatch"),
    Scenario("second field with the same label", "fx.duplicate('amount')", "fill", "amount", "ambiguous"),
    Scenario("same label in another section", "fx.duplicateElsewhere('amount')", "fill", "amount", "ok"),
    Scenario("overlay covers the button", "fx.overlay()", "click", "submit", "occluded"),
    Scenario("overlay covers the field", "fx.overlay()", "fill", "amount", "occluded"),
    Scenario("button disabled", "fx.disable('submit')", "click", "submit", "disabled"),
    Scenario("field disabled", "fx.disable('amount')", "fill", "amount", "disabled"),
    Scenario("field hidden", "fx.hide('amount')", "fill", "amount", "not_found"),
    Scenario("label reworded", "fx.rename('amount', '付款金额')", "fill", "amount", "not_found"),
    Scenario("table rows swapped", "fx.swapRows()", "click", "delete-张三", "ok"),
    Scenario("target row removed", "fx.removeRow('张三')", "click", "delete-张三", "fingerprint_mismatch"),
    Scenario("second button with the same name", "fx.duplicateButton('submit')", "click", "submit", "ambiguous"),
]


def _element_for(snapshot: PageSnapshot, fx: str) -> ElementInfo:
    if fx == "amount":
        return snapshot.find(name="金额", role="textbox")[0]
    if fx == "submit":
        return snapshot.find(name="提交", role="button")[0]
    name = fx.removeprefix("delete-")
    return next(e for e in snapshot.find(name="删除", role="button") if name in e.fingerprint.row)


def _action(scenario: Scenario, element: ElementInfo, snapshot_id: str | None) -> Fill | Click:
    target = Target(fingerprint=element.fingerprint) if snapshot_id is None else Target(
        ref=element.ref, fingerprint=element.fingerprint
    )
    if scenario.kind == "fill":
        return Fill(snapshot_id=snapshot_id, target=target, value="123.45", timeout_ms=3000)
    return Click(snapshot_id=snapshot_id, target=target, timeout_ms=3000)


async def _open(run: RunBrowser, site: StaticSite) -> tuple[Controller, PageSnapshot]:
    controller = Controller(run, screenshots=False)
    await controller.navigate(site.url("mutations.html"))
    return controller, await controller.observe()


async def _events(run: RunBrowser) -> list[dict[str, str]]:
    return list(await run.active_tab.page.evaluate("fx.log()"))


def _tally(scenario: str, events: list[dict[str, str]], intended: str | None) -> list[str]:
    SCENARIOS_RUN.append(scenario)
    wrong = [f"{scenario}: {e['fx']} got {e['type']}" for e in events if e["fx"] != intended]
    WRONG_ELEMENT_EVENTS.extend(wrong)
    return wrong


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_replayed_fingerprint_is_resolved_or_refused(
    run_browser: RunBrowser, static_site: StaticSite, scenario: Scenario
) -> None:
    controller, snapshot = await _open(run_browser, static_site)
    element = _element_for(snapshot, scenario.target)
    await run_browser.active_tab.page.evaluate(scenario.mutation)
    await _events(run_browser)  # the mutation itself is not an action

    if scenario.expected == "ok":
        await controller.execute(_action(scenario, element, None))
    else:
        with pytest.raises(TargetRefusedError) as refused:
            await controller.execute(_action(scenario, element, None))
        assert refused.value.reason == scenario.expected

    events = await _events(run_browser)
    assert _tally(scenario.name, events, scenario.target) == []
    assert bool(events) == (scenario.expected == "ok")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_action_from_a_snapshot_taken_before_the_change_is_stale(
    run_browser: RunBrowser, static_site: StaticSite, scenario: Scenario
) -> None:
    controller, snapshot = await _open(run_browser, static_site)
    element = _element_for(snapshot, scenario.target)
    await run_browser.active_tab.page.evaluate(scenario.mutation)
    await _events(run_browser)

    if scenario.mutation.startswith("fx.hide"):  # a style change is not structural: re-resolution refuses
        with pytest.raises(TargetRefusedError, match="No visible element"):
            await controller.execute(_action(scenario, element, snapshot.snapshot_id))
    else:
        with pytest.raises(StaleSnapshotError):
            await controller.execute(_action(scenario, element, snapshot.snapshot_id))

    assert _tally("stale: " + scenario.name, await _events(run_browser), None) == []


async def test_after_a_stale_refusal_the_reobserved_target_is_the_right_one(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, _ = await _open(run_browser, static_site)
    await run_browser.active_tab.page.evaluate("fx.swapRows()")
    await _events(run_browser)
    fresh = await controller.observe()

    await controller.execute(_action(SCENARIOS[11], _element_for(fresh, "delete-张三"), fresh.snapshot_id))

    events = await _events(run_browser)
    assert _tally("re-observed rows swapped", events, "delete-张三") == []
    assert events
    assert "张三 已删除" in await run_browser.active_tab.page.inner_text("table")


async def test_navigation_makes_the_snapshot_stale(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snapshot = await _open(run_browser, static_site)
    element = _element_for(snapshot, "amount")
    page = run_browser.active_tab.page
    async with page.expect_navigation():
        await page.evaluate("fx.navigate()")

    with pytest.raises(StaleSnapshotError):
        await controller.execute(_action(SCENARIOS[0], element, snapshot.snapshot_id))
    assert _tally("navigated", await _events(run_browser), None) == []


async def test_own_actions_do_not_make_the_snapshot_stale(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snapshot = await _open(run_browser, static_site)
    payee = snapshot.find(name="收款账号")[0]
    amount = snapshot.find(name="金额")[0]

    await controller.fill(snapshot, payee.ref, "6222020200012345678")
    await controller.fill(snapshot, amount.ref, "88.00")
    await controller.click(snapshot, snapshot.find(name="提交", role="button")[0].ref)

    assert await run_browser.active_tab.page.inner_text("#result") == "已提交"
    events = await _events(run_browser)
    assert {e["fx"] for e in events} == {"payee", "amount", "submit"}


async def test_no_action_reached_a_wrong_element() -> None:
    assert len(SCENARIOS_RUN) >= 2 * len(SCENARIOS)
    assert WRONG_ELEMENT_EVENTS == []
    print(f"\nwrong-element actions: {len(WRONG_ELEMENT_EVENTS)} across {len(SCENARIOS_RUN)} scenario runs")

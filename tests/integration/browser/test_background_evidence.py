"""Background evidence: an action returns once its effect is verified, and its after-shot and record finish
while the next action is prepared. The after-shot must still show the page as the action left it, and the
records must arrive complete and in action order."""

from __future__ import annotations

import asyncio
import io
from typing import Any, cast

import pytest
from PIL import Image

from finrpa.browser import ActionIntent, ActionRecord, Controller, PageSnapshot, RunBrowser
from finrpa.browser import controller as controller_module
from finrpa.browser.actions import Click, Expectation, Target
from finrpa.browser.errors import BrowserError
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

RED, BLUE = (200, 30, 30), (30, 30, 200)


class SlowRecorder:
    """Records actions; each write takes a while, as storing a PNG does on a busy disk."""

    def __init__(self, delay_s: float = 0.05, fail_first: bool = False) -> None:
        self.records: list[ActionRecord] = []
        self.delay_s = delay_s
        self.fail_first = fail_first

    async def intent(self, intent: ActionIntent) -> None:
        return None

    async def record(self, record: ActionRecord) -> None:
        await asyncio.sleep(self.delay_s)
        if self.fail_first:
            self.fail_first = False
            raise OSError(28, "No space left on device")
        self.records.append(record)


async def _opened(run_browser: RunBrowser, url: str, recorder: SlowRecorder) -> tuple[Controller, PageSnapshot]:
    """A controller in background-evidence mode, its tab at ``url``, and a snapshot of that page."""
    controller = Controller(run_browser, recorder=recorder, screenshots=True, background_evidence=True)
    await controller.navigate(url)
    return controller, await controller.observe()


def _band(png: bytes, *, bottom: bool = False) -> tuple[int, ...]:
    """The colour near the top (or the bottom) of the viewport, right of the form's fields."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    pixel = image.getpixel((1000, image.height - 20 if bottom else 200))
    assert isinstance(pixel, tuple)
    return pixel


async def test_an_action_returns_before_its_record_and_settled_waits_for_it(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder = SlowRecorder(delay_s=0.3)
    controller, _ = await _opened(run_browser, static_site.url("tall.html"), recorder)
    assert recorder.records == []  # still being written
    await controller.settled()
    assert [r.kind for r in recorder.records] == ["navigate"]
    assert recorder.records[0].screenshot_after is not None


async def test_a_target_below_the_fold_is_scrolled_to_only_after_the_previous_after_shot(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder = SlowRecorder(delay_s=0.0)
    controller, snapshot = await _opened(run_browser, static_site.url("tall.html"), recorder)
    note, submit = snapshot.find(name="备注")[0], snapshot.find(name="提交")[0]
    await controller.fill(snapshot, note.ref, "第一行")
    # Resolving the button must scroll it into view: that waits until the fill's after-shot is taken.
    after = await controller.observe()
    button = after.element(submit.ref)
    assert button is not None
    target = Target(ref=submit.ref, fingerprint=button.fingerprint)
    await controller.execute(
        Click(snapshot_id=after.snapshot_id, target=target, expect=Expectation(text_visible="已提交"))
    )
    await controller.settled()

    fill, click = recorder.records[1], recorder.records[2]
    assert (fill.kind, click.kind) == ("fill", "click")
    assert fill.screenshot_after is not None and click.screenshot_after is not None
    assert _band(fill.screenshot_after.png) == RED  # the page as the fill left it, not yet scrolled
    assert _band(click.screenshot_after.png, bottom=True) == BLUE  # scrolled down to the button
    assert click.screenshot_before is not None and _band(click.screenshot_before.png) == RED
    assert [r.action_index for r in recorder.records] == [1, 2, 3]


async def test_shared_before_shots_and_order_hold_in_the_background(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder = SlowRecorder(delay_s=0.02)
    controller, snapshot = await _opened(run_browser, static_site.url("login.html"), recorder)
    for name, value in (("用户名", "zhang"), ("备注", "第一行"), ("用户名", "li")):
        await controller.fill(snapshot, snapshot.find(name=name)[0].ref, value)
    await controller.settled()

    assert [r.action_index for r in recorder.records] == [1, 2, 3, 4]
    for earlier, later in zip(recorder.records[1:], recorder.records[2:], strict=False):
        assert later.screenshot_before is not None and earlier.screenshot_after is not None
        assert later.screenshot_before.shared_from == earlier.action_index
        assert later.screenshot_before.sha256 == earlier.screenshot_after.sha256
    assert all(r.screenshot_after is not None for r in recorder.records)


async def test_a_failed_record_is_raised_by_settled_not_lost(run_browser: RunBrowser, static_site: StaticSite) -> None:
    recorder = SlowRecorder(delay_s=0.01, fail_first=True)
    controller, _ = await _opened(run_browser, static_site.url("login.html"), recorder)  # its record: in the background
    with pytest.raises(OSError, match="No space left"):
        await controller.settled()
    await controller.settled()  # raised once; nothing else pending


async def test_a_failing_action_is_recorded_after_the_one_before_it(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder = SlowRecorder(delay_s=0.2)
    controller, snapshot = await _opened(run_browser, static_site.url("login.html"), recorder)
    await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "zhang")
    await run_browser.active_tab.page.evaluate("document.querySelector('input').remove()")
    with pytest.raises(BrowserError):
        await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "li")
    await controller.settled()
    assert [(r.action_index, r.outcome) for r in recorder.records][:2] == [(1, "ok"), (2, "ok")]
    assert recorder.records[2].action_index == 3 and recorder.records[2].outcome != "ok"


async def test_an_after_shot_that_hangs_is_given_up_and_the_record_written_without_it(
    run_browser: RunBrowser, static_site: StaticSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = SlowRecorder(delay_s=0.0)
    controller, snapshot = await _opened(run_browser, static_site.url("login.html"), recorder)

    async def frozen(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(3600)  # a page whose scripts never answer again

    monkeypatch.setattr(controller_module, "capture_with_state", frozen)
    monkeypatch.setattr(controller_module, "_SHOT_TIMEOUT_S", 0.3)
    await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "zhang")
    await asyncio.wait_for(controller.settled(), 5)
    fill = recorder.records[-1]
    assert (fill.kind, fill.outcome, fill.screenshot_after) == ("fill", "ok", None)
    assert fill.screenshot_before is not None  # the navigation's after-shot, taken before the freeze


async def test_an_after_shot_is_given_up_when_the_page_opens_a_dialog_meanwhile(
    run_browser: RunBrowser, static_site: StaticSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = SlowRecorder(delay_s=0.0)
    controller, snapshot = await _opened(run_browser, static_site.url("login.html"), recorder)
    tab = run_browser.active_tab

    async def blocked(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(0.05)
        tab.pending_dialog = cast(Any, "a session-expiry alert")  # the page's scripts stop answering
        await asyncio.sleep(3600)

    monkeypatch.setattr(controller_module, "capture_with_state", blocked)
    try:
        await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "zhang")
        await asyncio.wait_for(controller.settled(), 2)  # not the 15 s a frozen page is given
    finally:
        tab.pending_dialog = None
    assert (recorder.records[-1].kind, recorder.records[-1].screenshot_after) == ("fill", None)

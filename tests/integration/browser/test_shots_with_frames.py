"""A page with child frames (a form partly in an iframe, another origin's frame) shares the previous action's
after-shot as the next before-shot when no frame changed, and captures afresh when one did."""

from __future__ import annotations

import pytest

from finrpa.browser import ActionIntent, ActionRecord, Controller, RunBrowser
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


class MemoryRecorder:
    def __init__(self) -> None:
        self.records: list[ActionRecord] = []

    async def intent(self, intent: ActionIntent) -> None:
        return None

    async def record(self, record: ActionRecord) -> None:
        self.records.append(record)


async def test_unchanged_frames_share_the_after_shot_and_a_change_in_a_child_frame_does_not(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder = MemoryRecorder()
    controller = Controller(run_browser, recorder=recorder, screenshots=True)
    await controller.navigate(static_site.url("frames.html"))
    page = run_browser.active_tab.page
    child = next(frame for frame in page.frames if frame.name == "policy-frame")
    await child.wait_for_load_state()
    snapshot = await controller.observe()
    assert len(snapshot.frames) >= 3
    name = next(e for e in snapshot.find(name="投保人姓名") if e.frame_path == "main/0")
    idno = next(e for e in snapshot.find(name="证件号码") if e.frame_path == "main/0")

    await controller.fill(snapshot, name.ref, "张晓华")
    await controller.fill(snapshot, idno.ref, "110105")
    first, second = recorder.records[-2:]
    assert first.screenshot_after is not None and second.screenshot_before is not None
    assert second.screenshot_before.shared_from == first.action_index
    assert second.screenshot_before.sha256 == first.screenshot_after.sha256

    # The child frame's own script changes it between two actions: the before-shot is taken afresh.
    await child.evaluate("document.getElementById('ok').textContent = '草稿'")
    await controller.fill(snapshot, name.ref, "李娜")
    third = recorder.records[-1]
    assert third.screenshot_before is not None and third.screenshot_before.shared_from is None

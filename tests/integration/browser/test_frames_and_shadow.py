"""Elements inside same-origin and cross-origin iframes and open shadow roots are observed and usable."""

from __future__ import annotations

import pytest
from playwright.async_api import ElementHandle, Frame

from finrpa.browser import (
    Click,
    Controller,
    Expectation,
    Fill,
    PageSnapshot,
    RunBrowser,
    Target,
    TargetRefusedError,
    frames,
)
from finrpa.browser.snapshot import ElementInfo
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def _frames(run: RunBrowser, site: StaticSite) -> tuple[Controller, PageSnapshot]:
    controller = Controller(run, screenshots=False)
    await controller.navigate(site.url("frames.html"))
    for _ in range(50):  # the cross-origin frame is attached by script after load
        snapshot = await controller.observe()
        if len(snapshot.find(name="证件号码")) == 2:
            return controller, snapshot
    raise AssertionError("the cross-origin frame never loaded")


def _in_frame(snapshot: PageSnapshot, name: str, path: str) -> ElementInfo:
    return next(e for e in snapshot.find(name=name) if e.frame_path == path)


async def test_snapshot_maps_frames_and_shadow_hosts(run_browser: RunBrowser, static_site: StaticSite) -> None:
    _, snapshot = await _frames(run_browser, static_site)

    frames = {f.path: f for f in snapshot.frames}
    assert set(frames) == {"main", "main/0", "main/1"}
    assert (frames["main/0"].name, frames["main/1"].name) == ("policy-frame", "xo-frame")
    assert not frames["main/0"].cross_origin and frames["main/1"].cross_origin
    same = _in_frame(snapshot, "证件号码", "main/0")
    cross = _in_frame(snapshot, "证件号码", "main/1")
    assert same.fingerprint.frame == "main/0" and cross.fingerprint.frame == "main/1"
    assert cross.bbox[1] > same.bbox[1] > 0  # bboxes are in the tab's viewport, offset by the iframe
    assert snapshot.find(name="报告名称")[0].shadow_path == ["report-form"]
    assert snapshot.find(name="选择文件")[0].shadow_path == ["report-form", "file-picker"]
    assert snapshot.find(name="报告名称")[0].fingerprint.container == "报告信息"


async def test_fields_in_both_iframes_and_in_shadow_dom_can_be_filled_and_clicked(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snapshot = await _frames(run_browser, static_site)
    sid = snapshot.snapshot_id

    def target(element: ElementInfo) -> Target:
        return Target(ref=element.ref, fingerprint=element.fingerprint)

    for path in ("main/0", "main/1"):
        await controller.execute(Fill(snapshot_id=sid, target=target(_in_frame(snapshot, "投保人姓名", path)),
                                      value=f"王五 {path}"))
        await controller.execute(Click(snapshot_id=sid, target=target(_in_frame(snapshot, "保存", path)),
                                       expect=Expectation(text_visible="已保存")))
    await controller.execute(Fill(snapshot_id=sid, target=target(snapshot.find(name="报告名称")[0]), value="三月月报"))
    await controller.execute(Click(snapshot_id=sid, target=target(snapshot.find(name="选择文件")[0])))

    after = await controller.observe()
    assert _in_frame(after, "投保人姓名", "main/1").value == "王五 main/1"
    assert _in_frame(after, "投保人姓名", "main/0").value == "王五 main/0"
    assert after.find(name="报告名称")[0].value == "三月月报"
    assert "已选择" in after.text


async def test_an_id_number_typed_into_a_cross_origin_frame_is_masked_in_the_snapshot(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snapshot = await _frames(run_browser, static_site)
    field = _in_frame(snapshot, "证件号码", "main/1")
    await controller.fill(snapshot, field.ref, "11010119900307123X")
    after = await controller.observe()
    masked = _in_frame(after, "证件号码", "main/1")
    assert masked.value is not None and "19900307" not in masked.value and masked.sensitive


async def test_a_frames_iframe_element_is_asked_for_once_and_again_when_it_went_stale(
    run_browser: RunBrowser, static_site: StaticSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _frames(run_browser, static_site)
    child = run_browser.active_tab.page.main_frame.child_frames[0]
    asked: list[object] = []
    original = type(child).frame_element

    async def counting(frame: Frame) -> ElementHandle:
        asked.append(frame)
        return await original(frame)

    monkeypatch.setattr(type(child), "frame_element", counting)
    frames._ELEMENTS.pop(child, None)
    assert await frames.on_frame_element(child, "el => el.name") == "policy-frame"
    assert await frames.on_frame_element(child, "el => el.name") == "policy-frame"
    assert len(asked) == 1
    await frames._ELEMENTS[child].dispose()  # as when its parent's document is replaced in place
    assert await frames.on_frame_element(child, "el => el.name") == "policy-frame"
    assert len(asked) == 2


@pytest.mark.parametrize("path", ["main/0", "main/1"], ids=["same-origin frame", "cross-origin frame"])
async def test_a_field_in_a_frame_under_a_modal_of_the_page_is_refused_as_covered(
    run_browser: RunBrowser, static_site: StaticSite, path: str
) -> None:
    controller, snapshot = await _frames(run_browser, static_site)
    page = run_browser.active_tab.page
    field = _in_frame(snapshot, "投保人姓名", path)
    target = Target(ref=field.ref, fingerprint=field.fingerprint)
    cover = "d => { d.id = 'cover'; d.style.cssText = 'position:fixed;inset:0;background:#0003;z-index:9'; }"
    await page.evaluate(f"({cover})(document.body.appendChild(document.createElement('div')))")
    snapshot = await controller.observe()
    with pytest.raises(TargetRefusedError) as refused:
        await controller.execute(Fill(snapshot_id=snapshot.snapshot_id, target=target, value="王五"))
    assert refused.value.reason == "occluded"
    await page.evaluate("document.getElementById('cover').remove()")
    snapshot = await controller.observe()
    await controller.execute(Fill(snapshot_id=snapshot.snapshot_id, target=target, value="王五"))

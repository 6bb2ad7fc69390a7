"""Each action kind acts on the live page and counts as done only when its effect is verified."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from finrpa.browser import (
    AcceptDialog,
    BrowserManager,
    Check,
    Click,
    Controller,
    DismissDialog,
    Expectation,
    Extract,
    Fill,
    InvalidActionError,
    PageSnapshot,
    PostconditionFailedError,
    Press,
    RunBrowser,
    RunBrowserConfig,
    Select,
    StaleSnapshotError,
    SwitchTab,
    Target,
    TargetRefusedError,
    Upload,
    verify,
)
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def _controls(run: RunBrowser, site: StaticSite, page: str = "controls.html") -> tuple[Controller, PageSnapshot]:
    controller = Controller(run, screenshots=False)
    await controller.navigate(site.url(page))
    return controller, await controller.observe()


def _target(snapshot: PageSnapshot, name: str, role: str | None = None) -> Target:
    element = snapshot.find(name=name, role=role)[0]
    return Target(ref=element.ref, fingerprint=element.fingerprint)


async def test_select_check_radio_and_custom_checkbox_read_back(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    sid = snap.snapshot_id

    chosen = await controller.execute(Select(snapshot_id=sid, target=_target(snap, "币种"), option="美元"))
    await controller.execute(Check(snapshot_id=sid, target=_target(snap, "我已阅读并同意")))
    await controller.execute(Check(snapshot_id=sid, target=_target(snap, "接收通知")))
    await controller.execute(Check(snapshot_id=sid, target=_target(snap, "对私")))

    assert chosen.value == "美元"
    after = await controller.observe()
    assert after.find(name="币种")[0].value == "美元"
    assert [after.find(name=n)[0].checked for n in ("我已阅读并同意", "接收通知", "对公", "对私")] == [
        True, True, False, True,
    ]


async def test_unknown_select_option_is_a_typed_error_listing_the_options(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    with pytest.raises(InvalidActionError, match="人民币"):
        await controller.execute(Select(snapshot_id=snap.snapshot_id, target=_target(snap, "币种"), option="欧元"))


async def test_a_select_sends_the_events_of_a_user_choice_and_a_choice_the_page_undoes_fails(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site, "selects.html")
    chosen = await controller.execute(Select(snapshot_id=snap.snapshot_id, target=_target(snap, "币种"), option="美元"))
    assert chosen.value == "美元"
    page = run_browser.active_tab.page
    # input, then change, each once and bubbling (the change reaches a listener on the body), as Playwright's
    # selectOption sends them
    assert await page.evaluate("window.seen") == ["input:USD:true", "change:USD:true", "body-change:cur"]

    snap = await controller.observe()
    with pytest.raises(PostconditionFailedError, match="changed it back"):
        await controller.execute(Select(snapshot_id=snap.snapshot_id, target=_target(snap, "期限"), option="六个月"))
    snap = await controller.observe()
    with pytest.raises(InvalidActionError, match="option is disabled"):
        await controller.execute(Select(snapshot_id=snap.snapshot_id, target=_target(snap, "地区"), option="华北"))
    assert await page.evaluate("document.getElementById('region').value") == ""


async def test_select_on_a_custom_dropdown_is_refused_before_anything_is_chosen(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site, "widgets.html")
    target = _target(snap, "币种", role="combobox")
    with pytest.raises(InvalidActionError, match="custom dropdown"):
        await controller.execute(Select(snapshot_id=snap.snapshot_id, target=target, option="美元"))
    assert (await controller.observe()).find(name="币种", role="combobox")[0].value in ("", "请选择", None)


async def test_a_fill_reaches_the_page_as_playwrights_fill_does_and_other_fields_are_left_to_it(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site, "fills.html")
    page = run_browser.active_tab.page
    await controller.execute(Fill(snapshot_id=snap.snapshot_id, target=_target(snap, "户名甲"), value="杭州示例"))
    await page.get_by_label("户名乙").fill("杭州示例")  # the twin field, by Playwright's own fill (which blurs 甲)
    await page.evaluate("document.activeElement.blur()")
    seen = await page.evaluate("window.seen")
    # the same events, in the same order, with the same values, as Playwright's fill of the twin field
    assert seen["a"] == seen["b"] == [
        "focus|true||旧值",
        "beforeinput|true|insertText|旧值",
        "input|true|insertText|杭州示例",
        "change|true||杭州示例",
        "blur|true||杭州示例",
    ]
    for name, value, expected in (
        ("说明", "第二行", "第二行"),
        ("笔数", "12", "12"),  # number fields are Playwright's
        ("邮箱", "ops@example.com", "ops@example.com"),
        ("批注", "新批注", "新批注"),  # so is contenteditable
    ):
        snap = await controller.observe()
        done = await controller.execute(Fill(snapshot_id=snap.snapshot_id, target=_target(snap, name), value=value))
        assert done.value == expected
    assert await page.evaluate("[memo.value, count.value, mail.value, note.textContent]") == [
        "第二行", "12", "ops@example.com", "新批注",
    ]
    snap = await controller.observe()
    await controller.execute(Fill(snapshot_id=snap.snapshot_id, target=_target(snap, "户名甲"), value=""))
    assert await page.evaluate("a.value") == ""


async def test_a_tab_on_a_field_reads_back_what_the_field_kept_as_it_lost_focus(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site, "fills.html")
    target = _target(snap, "签发日期")
    await controller.execute(Fill(snapshot_id=snap.snapshot_id, target=target, value="2024-03-01"))
    pressed = await controller.execute(Press(snapshot_id=snap.snapshot_id, key="Tab", target=target))
    assert pressed.value == "2024/03/01"  # rewritten by the field's blur handler


async def test_a_field_that_rewrites_input_fails_the_read_back_unless_the_format_is_declared(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    target = _target(snap, "大写字段")
    with pytest.raises(PostconditionFailedError, match="reads back 'ABC'"):
        await controller.execute(Fill(snapshot_id=snap.snapshot_id, target=target, value="abc", timeout_ms=2000))
    done = await controller.execute(
        Fill(snapshot_id=snap.snapshot_id, target=target, value="abc", expect_value="ABC")
    )
    assert done.value == "ABC"


async def test_a_click_that_changes_nothing_is_a_failure_not_a_success(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    with pytest.raises(PostconditionFailedError, match="changed nothing observable"):
        await controller.execute(
            Click(snapshot_id=snap.snapshot_id, target=_target(snap, "无反应"), timeout_ms=1500)
        )


async def test_clicks_on_buttons_role_buttons_and_pointer_elements_verify_their_effect(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    for name, text in (("查询", "查询完成"), ("角色按钮", "角色按钮"), ("点击区域", "点击区域"), ("更多选项", "更多")):
        await controller.execute(
            Click(snapshot_id=snap.snapshot_id, target=_target(snap, name), expect=Expectation(text_visible=text))
        )
        assert await run_browser.active_tab.page.inner_text("#out") == text


async def test_declared_expectation_that_never_holds_fails(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snap = await _controls(run_browser, static_site)
    with pytest.raises(PostconditionFailedError, match="URL to contain '/never'"):
        await controller.execute(Click(
            snapshot_id=snap.snapshot_id, target=_target(snap, "查询"), expect=Expectation(url_contains="/never"),
            timeout_ms=1000,
        ))


async def test_link_click_navigates_and_the_snapshot_becomes_stale(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    result = await controller.execute(Click(snapshot_id=snap.snapshot_id, target=_target(snap, "跳转首页")))
    assert result.navigated and result.url_after.endswith("home.html?user=link")
    with pytest.raises(StaleSnapshotError, match=r"navigated|gone"):
        await controller.execute(Click(snapshot_id=snap.snapshot_id, target=_target(snap, "查询")))


@pytest.mark.parametrize("expect", [None, Expectation(url_contains="home.html")])
async def test_a_navigating_click_is_verified_by_the_navigation_without_reading_a_document(
    run_browser: RunBrowser, static_site: StaticSite, monkeypatch: pytest.MonkeyPatch, expect: Expectation | None
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    reads: list[object] = []
    counters_of = verify.counters_of

    async def counted(frame: Any, timeout_s: float = 3.0) -> dict[str, Any] | None:
        reads.append(frame)
        return await counters_of(frame, timeout_s)

    monkeypatch.setattr(verify, "counters_of", counted)
    click = Click(snapshot_id=snap.snapshot_id, target=_target(snap, "跳转首页"), expect=expect)
    result = await controller.execute(click)
    assert result.navigated and result.url_after.endswith("home.html?user=link")
    assert reads == []  # the main frame's navigation is the effect: no wait in the old or the new document


async def test_native_confirm_waits_for_an_accept_or_dismiss_action(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    opened = await controller.execute(Click(snapshot_id=snap.snapshot_id, target=_target(snap, "删除记录")))
    assert opened.dialog is not None and opened.dialog.text == "确定删除吗？"
    blocked = await controller.observe()
    assert blocked.dialogs[0].native and blocked.dialogs[0].kind == "confirm"
    with pytest.raises(InvalidActionError, match="dialog is open"):
        await controller.execute(Click(target=_target(snap, "查询")))

    await controller.execute(DismissDialog())
    assert await run_browser.active_tab.page.inner_text("#out") == "已取消"

    snap = await controller.observe()
    await controller.execute(Click(snapshot_id=snap.snapshot_id, target=_target(snap, "删除记录")))
    await controller.execute(AcceptDialog())
    assert await run_browser.active_tab.page.inner_text("#out") == "已确认"


async def test_click_can_answer_its_dialog_by_policy(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snap = await _controls(run_browser, static_site)
    result = await controller.execute(Click(
        snapshot_id=snap.snapshot_id, target=_target(snap, "删除记录"), dialog="accept",
        expect=Expectation(dialog=True, text_visible="已确认"),
    ))
    assert result.dialog is not None and result.dialog.kind == "confirm"


async def test_new_tab_is_reported_and_can_be_switched_to(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snap = await _controls(run_browser, static_site)
    result = await controller.execute(Click(snapshot_id=snap.snapshot_id, target=_target(snap, "新窗口")))
    assert result.new_tab_id is not None
    await controller.execute(SwitchTab(to_tab=result.new_tab_id))
    other = await controller.observe()
    assert other.tab_id == result.new_tab_id
    assert "用户 tab" in other.text or other.url.endswith("user=tab")


async def test_extract_table_returns_rows_of_the_named_table(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snap = await _controls(run_browser, static_site)
    assert [(t.caption, t.headers, t.row_count) for t in snap.tables] == [("交易明细", ["日期", "摘要", "金额"], 3)]
    result = await controller.execute(Extract(snapshot_id=snap.snapshot_id, what="table", table_id="t1"))
    assert result.table is not None
    assert result.table.rows[1] == ["2024-03-02", "房租", "-3,000.00"]


async def test_upload_sets_the_file_and_reads_it_back(
    run_browser: RunBrowser, static_site: StaticSite, tmp_path: Path
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    report = tmp_path / "月报.csv"
    report.write_text("a,b\n1,2\n", encoding="utf-8")
    upload = Upload(snapshot_id=snap.snapshot_id, target=_target(snap, "附件"), files=[report])
    result = await controller.execute(upload)
    assert result.value == "月报.csv"


async def test_press_enter_in_a_form_submits_it(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller = Controller(run_browser, screenshots=False)
    await controller.navigate(static_site.url("login.html"))
    snap = await controller.observe()
    await controller.fill(snap, snap.find(name="用户名")[0].ref, "bob")
    result = await controller.execute(Press(
        snapshot_id=snap.snapshot_id, key="Enter", target=_target(snap, "用户名"),
        expect=Expectation(url_contains="user=bob"),
    ))
    assert result.navigated


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda s: Click(snapshot_id=s.snapshot_id, target=Target(ref="e999")), "has no element 'e999'"),
        (lambda s: Click(snapshot_id="s-unknown", target=Target(ref="e1")), "unknown or too old"),
        (lambda s: Upload(snapshot_id=s.snapshot_id, target=Target(ref="e15"), files=[Path("/nonexistent/x.pdf")]),
         "'x.pdf' does not exist"),
        (lambda s: DismissDialog(), "No dialog is open"),
        (lambda s: SwitchTab(to_tab="t99"), "no open tab 't99'"),
    ],
    ids=["unknown ref", "unknown snapshot", "missing upload file", "no dialog", "unknown tab"],
)
async def test_bad_input_is_a_typed_error_at_once(
    run_browser: RunBrowser, static_site: StaticSite, make: object, message: str
) -> None:
    controller, snap = await _controls(run_browser, static_site)
    started = time.monotonic()
    with pytest.raises(InvalidActionError, match=message):
        await controller.execute(make(snap))  # type: ignore[operator]
    assert time.monotonic() - started < 5  # typed error, not a timeout


@pytest.mark.parametrize("url", ["not a url", "ftp://files.example.com/a", "javascript:alert(1)", "http://"])
async def test_invalid_urls_are_refused(run_browser: RunBrowser, url: str) -> None:
    controller = Controller(run_browser, screenshots=False)
    with pytest.raises(InvalidActionError, match="is not an http"):
        await controller.navigate(url)


async def test_a_session_exported_from_one_run_restores_in_another(
    browser_manager: BrowserManager, run_browser: RunBrowser, static_site: StaticSite, tmp_path: Path
) -> None:
    controller = Controller(run_browser, screenshots=False)
    await controller.navigate(static_site.url("home.html"))
    await run_browser.active_tab.page.evaluate(
        "() => { document.cookie = 'sid=abc; path=/'; localStorage.setItem('token', 'xyz'); }"
    )
    state = await run_browser.export_storage_state()

    config = RunBrowserConfig(run_id="restored", downloads_dir=tmp_path, portal_urls=[static_site.base_url],
                              storage_state=state)
    restored = await browser_manager.new_run(config)
    try:
        await Controller(restored, screenshots=False).navigate(static_site.url("home.html"))
        values = await restored.active_tab.page.evaluate("() => [document.cookie, localStorage.getItem('token')]")
    finally:
        await restored.close()
    assert values == ["sid=abc", "xyz"]
    assert "abc" not in repr(state)


async def _cover_on_move(run_browser: RunBrowser, static_site: StaticSite) -> tuple[Controller, PageSnapshot, Any]:
    """clicks.html, set to throw a cover over the page as the pointer moves in (after resolution, before the press)."""
    controller, snap = await _controls(run_browser, static_site, "clicks.html")
    page = run_browser.active_tab.page
    await page.evaluate("() => { window.coverOnMove = true; }")
    return controller, snap, page


async def _uncover(controller: Controller, page: Any) -> PageSnapshot:
    await page.evaluate("() => { window.coverOnMove = false; document.getElementById('cover').remove(); }")
    return await controller.observe()


async def test_a_click_lands_on_its_target_only_and_a_cover_arriving_as_it_is_pressed_stops_it(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap, page = await _cover_on_move(run_browser, static_site)

    with pytest.raises(TargetRefusedError, match="covered or moved") as refused:
        await controller.execute(Click(snapshot_id=snap.snapshot_id, target=_target(snap, "提交申请")))

    assert refused.value.reason == "occluded"
    # Neither the target nor the cover saw the press: the guard stopped it before any page handler.
    assert await page.evaluate("window.clicks") == {"go": 0, "other": 0, "wrap": 0, "cover": 0}
    snap = await _uncover(controller, page)
    await controller.execute(Click(snapshot_id=snap.snapshot_id, target=_target(snap, "提交申请")))
    # The guard is gone once its click is done: the page's own clicks are not touched.
    await page.locator("#other").click()
    assert await page.evaluate("window.clicks") == {"go": 1, "other": 1, "wrap": 0, "cover": 0}


async def test_a_check_is_guarded_like_a_click_and_a_box_already_ticked_is_left_alone(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap, page = await _cover_on_move(run_browser, static_site)

    with pytest.raises(TargetRefusedError, match="covered or moved"):
        await controller.execute(Check(snapshot_id=snap.snapshot_id, target=_target(snap, "我已阅读并同意")))

    assert await page.evaluate("[document.getElementById('agree').checked, window.clicks.cover]") == [False, 0]
    snap = await _uncover(controller, page)
    ticked = await controller.execute(Check(snapshot_id=snap.snapshot_id, target=_target(snap, "我已阅读并同意")))
    kept = await controller.execute(Check(snapshot_id=snap.snapshot_id, target=_target(snap, "接收通知")))
    assert (ticked.value, kept.value) == ("true", "true")
    boxes = "['agree', 'notify'].map((id) => document.getElementById(id).checked)"
    assert await page.evaluate(boxes) == [True, True]
    await page.locator("#other").click()  # no guard is left behind by the box that needed no click
    assert (await page.evaluate("window.clicks"))["other"] == 1


async def test_a_link_broken_over_lines_is_clicked_through_playwrights_checked_click(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snap = await _controls(run_browser, static_site, "clicks.html")
    page = run_browser.active_tab.page
    assert await page.evaluate("document.getElementById('wrap').getClientRects().length") > 1

    await controller.execute(Click(snapshot_id=snap.snapshot_id, target=_target(snap, "查看全部历史交易明细记录")))

    assert (await page.evaluate("window.clicks"))["wrap"] == 1

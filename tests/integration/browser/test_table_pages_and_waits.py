"""Table pages read in one call (rows plus a snapshot of the links and buttons on the page), and waiting for a
page to move on after a snapshot: content that arrives late wakes the waiter at once, in the main frame or a
child frame; a quiet page lets the wait run out."""

from __future__ import annotations

import asyncio
import time

import pytest
from playwright.async_api import Route

from finrpa.browser import Click, Controller, Extract, PostconditionFailedError, RunBrowser, Target
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

_LATE_RESULT = (
    "setTimeout(() => document.body.append(Object.assign(document.createElement('p'), {textContent: 'x'})), 300)"
)


async def test_a_late_change_wakes_the_wait_and_a_quiet_page_times_out(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller = Controller(run_browser, screenshots=False)
    await controller.navigate(static_site.url("controls.html"))
    snapshot = await controller.observe()

    started = time.monotonic()
    assert await controller.wait_for_page_change(snapshot, 0.3) is False
    assert time.monotonic() - started >= 0.25

    page = run_browser.active_tab.page
    await page.evaluate(_LATE_RESULT)
    started = time.monotonic()
    assert await controller.wait_for_page_change(snapshot, 10.0) is True
    assert time.monotonic() - started < 5.0

    # The snapshot is older than the change: waiting on it again returns at once.
    assert await controller.wait_for_page_change(snapshot, 10.0) is True
    assert await controller.wait_for_page_change(await controller.observe(), 0.2) is False


async def test_a_change_in_a_child_frame_or_a_navigation_counts(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller = Controller(run_browser, screenshots=False)
    await controller.navigate(static_site.url("frames.html"))
    snapshot = await controller.observe()
    page = run_browser.active_tab.page
    child = next(frame for frame in page.frames if frame.name == "policy-frame")
    await child.evaluate(_LATE_RESULT)
    assert await controller.wait_for_page_change(snapshot, 10.0) is True

    snapshot = await controller.observe()
    await page.evaluate(f"setTimeout(() => location.assign({static_site.url('controls.html')!r}), 200)")
    assert await controller.wait_for_page_change(snapshot, 10.0) is True


async def test_a_table_page_is_read_in_one_call_with_a_snapshot_of_its_links_and_buttons(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller = Controller(run_browser, screenshots=False)
    await controller.navigate(static_site.url("controls.html"))
    full = await controller.observe()
    (table,) = full.tables
    roles = ["button", "link"]

    result = await controller.execute(
        Extract(what="table", caption=table.caption, headers=table.headers, observe_roles=roles)
    )

    assert result.table is not None and result.table.rows[1] == ["2024-03-02", "房租", "-3,000.00"]
    page = result.snapshot
    assert page is not None and page.roles == roles and page.tables == full.tables
    wanted = [e for e in full.elements if e.role in roles]
    assert [e.fingerprint for e in page.elements] == [e.fingerprint for e in wanted] and wanted
    # Later actions may name it, with the staleness check and re-resolution of any other snapshot.
    button = page.find(name="我知道了", role="button")[0]
    await controller.execute(
        Click(snapshot_id=page.snapshot_id, target=Target(ref=button.ref, fingerprint=button.fingerprint))
    )
    assert not (await controller.observe()).find(name="我知道了")


async def test_a_table_page_without_the_table_fails_the_extract(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller = Controller(run_browser, screenshots=False)
    await controller.navigate(static_site.url("controls.html"))
    with pytest.raises(PostconditionFailedError):
        await controller.execute(Extract(what="table", caption="别的表", headers=["日期"], observe_roles=["link"]))


async def test_a_page_still_parsing_is_observed_once_parsed_and_a_new_document_is_waited_for_again(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    """Observing waits for DOMContentLoaded without a round trip once the tab saw it; a navigation makes the
    next observation wait for the new document again (its content after a slow script is there)."""
    page = run_browser.active_tab.page if run_browser.tabs else (await run_browser.new_tab()).page
    tab = run_browser.active_tab
    url = static_site.url("late-parse.html")
    html = "<p>before</p><script src='slow-parse.js'></script><button>after the slow script</button>"

    async def document(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/html", body=html)

    async def slow_script(route: Route) -> None:
        await asyncio.sleep(0.6)
        await route.fulfill(status=200, content_type="text/javascript", body="window.slow = 1;")

    await page.route(url, document)
    await page.route("**/slow-parse.js", slow_script)
    controller = Controller(run_browser, screenshots=False)
    for _ in range(2):  # the second time, the tab had seen the first document parsed
        await page.goto(url, wait_until="commit")
        assert tab.parsed is False
        snapshot = await controller.observe()
        assert "after the slow script" in [element.name for element in snapshot.elements]
        assert tab.parsed is True

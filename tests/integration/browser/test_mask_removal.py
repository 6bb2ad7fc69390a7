"""The masks a screenshot paints come down after it without being waited for: the next capture, snapshot or
table read of the tab waits for them first, so no mask outlives its picture and no late removal takes the next
picture's masks down."""

from __future__ import annotations

import pytest

from finrpa.browser import Controller, RunBrowser
from finrpa.browser.screenshots import capture, capture_with_state, masks_removed
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

_MASKS = "() => document.querySelectorAll('finrpa-mask').length"


async def test_masks_come_down_after_the_capture_and_before_the_next_one(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller = Controller(run_browser, screenshots=False)
    await controller.navigate(static_site.url("login.html"))
    tab = run_browser.active_tab
    await tab.page.get_by_label("密码").fill("s3cret-pass")

    first = await capture_with_state(tab)
    assert first.shot.masked_regions >= 1 and first.state is not None
    await masks_removed(tab)
    assert await tab.page.evaluate(_MASKS) == 0

    # Back to back: each capture paints its own masks after the last one's came down.
    for _ in range(3):
        assert (await capture(tab)).masked_regions == first.shot.masked_regions
    snapshot = await controller.observe()  # waits for the masks too
    assert tab.clearing is None and await tab.page.evaluate(_MASKS) == 0
    assert not [e for e in snapshot.elements if e.tag == "finrpa-mask"]

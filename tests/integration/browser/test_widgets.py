"""Custom date pickers and dropdowns are driven by names and text, and their result is read back."""

from __future__ import annotations

from datetime import date

import pytest

from finrpa.browser import Controller, InvalidActionError, PageSnapshot, RunBrowser
from finrpa.browser.widgets import choose_option, pick_date
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def _widgets(run: RunBrowser, site: StaticSite) -> tuple[Controller, PageSnapshot]:
    controller = Controller(run, screenshots=False)
    await controller.navigate(site.url("widgets.html"))
    return controller, await controller.observe()


@pytest.mark.parametrize(
    ("field", "wanted", "shown"),
    [
        ("开始日期", date(2024, 1, 31), "2024-01-31"),  # readonly, titled day cells, two months back
        ("开始日期", date(2024, 5, 2), "2024-05-02"),  # day 2 also shown for the next month
        ("交易日期", date(2023, 12, 25), "2023-12-25"),  # no date attributes: header text + day run, across a year
        ("结束日期", date(2024, 7, 9), "2024/07/09"),  # editable: typed, then verified
    ],
)
async def test_pick_date_sets_and_reads_back_the_date(
    run_browser: RunBrowser, static_site: StaticSite, field: str, wanted: date, shown: str
) -> None:
    controller, snapshot = await _widgets(run_browser, static_site)
    ref = snapshot.find(name=field)[0].ref

    assert await pick_date(controller, snapshot, ref, wanted) == wanted

    after = await controller.observe()
    assert after.find(name=field)[0].value == shown


async def test_choose_option_in_an_aria_combobox(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snapshot = await _widgets(run_browser, static_site)
    combo = snapshot.find(name="币种")[0]
    assert combo.role == "combobox" and combo.value == "请选择"

    assert await choose_option(controller, snapshot, combo.ref, "美元") == "美元"
    assert (await controller.observe()).find(name="币种")[0].value == "美元"


async def test_choose_option_in_a_dropdown_without_aria(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snapshot = await _widgets(run_browser, static_site)
    product = snapshot.find(name="产品")[0]

    assert await choose_option(controller, snapshot, product.ref, "安心保") == "安心保"
    assert (await controller.observe()).find(name="产品")[0].value == "安心保"


async def test_an_option_that_does_not_exist_is_a_typed_error_listing_what_is_there(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snapshot = await _widgets(run_browser, static_site)
    with pytest.raises(InvalidActionError, match="福满堂"):
        await choose_option(controller, snapshot, snapshot.find(name="产品")[0].ref, "不存在的产品")

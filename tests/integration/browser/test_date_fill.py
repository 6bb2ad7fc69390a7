"""A Fill of a read-only date field (a portal's custom date picker) goes through the picker inside the one
controller action: the calendar is opened, walked to the month and the day clicked, the field read back, and
one action recorded with the date typed; an editable field is still typed, and a read-only field that is no
date picker is refused at once with a clear reason."""

from __future__ import annotations

import pytest

from finrpa.browser import (
    ActionIntent,
    ActionRecord,
    Controller,
    Fill,
    InvalidActionError,
    RunBrowser,
    Target,
    TargetRefusedError,
)
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


class _Records:
    def __init__(self) -> None:
        self.records: list[ActionRecord] = []

    async def intent(self, intent: ActionIntent) -> None:
        return None

    async def record(self, record: ActionRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize(
    ("field", "typed", "shown"),
    [
        ("开始日期", "2024-01-31", "2024-01-31"),  # titled day cells, two months back from the picker's March
        ("开始日期", "2024/5/2", "2024-05-02"),  # another format; day 2 is also shown for the next month
        ("交易日期", "2023-12-25", "2023-12-25"),  # no date attributes: header text and day run, across a year
    ],
)
async def test_fill_of_a_read_only_date_field_picks_the_date_in_its_calendar_as_one_action(
    run_browser: RunBrowser, static_site: StaticSite, field: str, typed: str, shown: str
) -> None:
    records = _Records()
    controller = Controller(run_browser, recorder=records, screenshots=False)
    await controller.navigate(static_site.url("widgets.html"))
    snapshot = await controller.observe()
    element = snapshot.find(name=field)[0]
    assert element.readonly

    result = await controller.fill(snapshot, element.ref, typed)

    assert result.value == shown
    after = await controller.observe()
    assert after.find(name=field)[0].value == shown and not after.dialogs
    fill = records.records[-1]
    assert [r.kind for r in records.records] == ["navigate", "fill"] and fill.outcome == "ok"
    assert fill.value_masked == typed
    # The snapshot the fill came from stays usable for the next field (the changes were the fill's own).
    other = snapshot.find(name="结束日期")[0]
    assert (await controller.fill(snapshot, other.ref, "2024/07/09")).value == "2024/07/09"


async def test_an_editable_date_field_is_typed_and_a_read_only_field_without_a_picker_is_refused(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller = Controller(run_browser, screenshots=False)
    await controller.navigate(static_site.url("widgets.html"))
    snapshot = await controller.observe()
    typed = snapshot.find(name="结束日期")[0]
    assert not typed.readonly
    # Typed as given: the field's own blur normalisation is not a calendar's doing.
    assert (await controller.fill(snapshot, typed.ref, "2024-07-09")).value == "2024-07-09"

    product = snapshot.find(name="产品")[0]  # a read-only dropdown, no calendar behind it
    assert product.readonly
    with pytest.raises(InvalidActionError, match="No open calendar"):
        await controller.execute(
            Fill(snapshot_id=snapshot.snapshot_id, target=Target(ref=product.ref), value="2024-07-09", timeout_ms=1500)
        )
    with pytest.raises(TargetRefusedError, match="read-only"):
        await controller.execute(
            Fill(target=Target(fingerprint=product.fingerprint), value="安心保", timeout_ms=1500)
        )

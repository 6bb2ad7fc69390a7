"""Helpers for custom widgets that common portals build instead of native controls.

* :func:`pick_date` — a non-native date picker: type the date and verify it, else open the calendar,
  move month by month with its previous/next buttons and click the day cell (found by its full-date
  attribute or by its position in the month's run of day numbers), then read the field back.
* :func:`choose_option` — a custom dropdown/listbox: open it, click the option with that accessible name,
  read the field back. Native ``<select>`` elements go through a Select action.

They work by roles, accessible names and text (never by a page's ids), and every step is an ordinary
controller action, so each is resolved, verified, screenshotted and recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from finrpa.browser.actions import Click, Fill, Press, Select, Target
from finrpa.browser.controller import Controller
from finrpa.browser.errors import InvalidActionError, PostconditionFailedError, StaleSnapshotError
from finrpa.browser.frames import find_frame
from finrpa.browser.script import invoke
from finrpa.browser.snapshot import ElementInfo, Fingerprint, PageSnapshot

_FORMATS = (
    ("YYYY年MM月DD日", "%Y年%m月%d日"),
    ("YYYY-MM-DD", "%Y-%m-%d"),
    ("YYYY/MM/DD", "%Y/%m/%d"),
    ("YYYY.MM.DD", "%Y.%m.%d"),
    ("YYYYMMDD", "%Y%m%d"),
)
_DATE = re.compile(r"(\d{4})\D{0,3}(\d{1,2})\D{0,3}(\d{1,2})")


def parse_date(text: str | None) -> date | None:
    """The first date in ``text`` (2024-03-01, 2024/3/1, 2024年3月1日, 20240301), or None."""
    if not text:
        return None
    match = _DATE.search(text)
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def date_format_for(element: ElementInfo) -> str:
    """strftime format suggested by the field's placeholder-like name or current value (ISO otherwise)."""
    hints = " ".join(filter(None, [element.name, element.value, element.label])).upper()
    for pattern, strftime in _FORMATS:
        if pattern in hints:
            return strftime
    if element.value and re.fullmatch(r"\d{4}/\d{1,2}/\d{1,2}", element.value):
        return "%Y/%m/%d"
    return "%Y-%m-%d"


@dataclass
class _MonthSelect:
    fingerprint: Fingerprint
    options: list[tuple[str, str]]  # (label, value)

    def option_for(self, number: int) -> str | None:
        for label, value in self.options:
            for text in (value, label):
                digits = re.sub(r"\D", "", text)
                if digits and int(digits) == number:
                    return value
        return None


@dataclass
class _Calendar:
    year: int
    month: int
    prev: Fingerprint | None
    next: Fingerprint | None
    days: dict[str, Fingerprint]
    year_select: _MonthSelect | None = None
    month_select: _MonthSelect | None = None


async def pick_date(
    controller: Controller, snapshot: PageSnapshot, ref: str, value: date, *, max_months: int = 240
) -> date:
    """Set a date field (native or custom picker) to ``value`` and return the date it reads back."""
    element = _element(snapshot, ref)
    target = Target(ref=ref, fingerprint=element.fingerprint)
    if element.type == "date":
        await controller.execute(Fill(snapshot_id=snapshot.snapshot_id, target=target, value=value.isoformat()))
        return value
    if not element.readonly and element.role == "textbox" and await _typed(controller, snapshot, element, value):
        return value
    await controller.execute(Click(target=Target(fingerprint=element.fingerprint), tab_id=snapshot.tab_id))
    await _navigate_calendar(controller, snapshot.tab_id, element.fingerprint.frame, value, max_months)
    shown = parse_date((await controller.read(Target(fingerprint=element.fingerprint), snapshot.tab_id)).value)
    if shown != value:
        raise PostconditionFailedError(
            f'The date field "{element.name}" shows {shown} after choosing {value}; the picker did not take it.'
        )
    await controller.accept_own_changes(snapshot)
    return value


async def _typed(controller: Controller, snapshot: PageSnapshot, element: ElementInfo, value: date) -> bool:
    text = value.strftime(date_format_for(element))
    fingerprint = element.fingerprint
    target = Target(ref=element.ref, fingerprint=fingerprint)
    try:
        await controller.execute(Fill(snapshot_id=snapshot.snapshot_id, target=target, value=text))
        # Tab commits the typed date and closes the calendar typing may have opened (Enter could submit).
        await controller.execute(Press(snapshot_id=snapshot.snapshot_id, key="Tab", target=target))
        reading = await controller.read(Target(fingerprint=fingerprint), snapshot.tab_id)
    except (PostconditionFailedError, StaleSnapshotError):
        return False
    if parse_date(reading.value) != value:
        return False
    await controller.accept_own_changes(snapshot)
    return True


async def _navigate_calendar(
    controller: Controller, tab_id: str, frame_path: str, value: date, max_months: int
) -> None:
    for _ in range(max_months):
        calendar = await _calendar_for(controller, tab_id, frame_path, value)
        offset = (value.year * 12 + value.month) - (calendar.year * 12 + calendar.month)
        if offset == 0:
            day = calendar.days.get(str(value.day))
            if day is None:
                raise InvalidActionError(f"The calendar for {value:%Y-%m} has no day {value.day}.")
            await controller.execute(Click(target=Target(fingerprint=day), tab_id=tab_id))
            return
        if abs(offset) > 1 and await _jump(controller, tab_id, calendar, value):
            continue
        button = calendar.next if offset > 0 else calendar.prev
        if button is None:
            direction = "next" if offset > 0 else "previous"
            raise InvalidActionError(f"The calendar has no {direction}-month button that FinRPA recognises.")
        await controller.execute(Click(target=Target(fingerprint=button), tab_id=tab_id))
    raise InvalidActionError(f"{value} is more than {max_months} months away from the calendar's month.")


async def _jump(controller: Controller, tab_id: str, calendar: _Calendar, value: date) -> bool:
    """Use the calendar's year or month select when it has one (one step instead of many clicks)."""
    for chooser, number, current in (
        (calendar.year_select, value.year, calendar.year),
        (calendar.month_select, value.month, calendar.month),
    ):
        if chooser is None or number == current:
            continue
        option = chooser.option_for(number)
        if option is None:
            return False
        await controller.execute(Select(target=Target(fingerprint=chooser.fingerprint), option=option, tab_id=tab_id))
        return True
    return False


async def _calendar_for(controller: Controller, tab_id: str, frame_path: str, value: date) -> _Calendar:
    frame = find_frame(controller.run.tab(tab_id).page, frame_path)
    raw = await invoke(frame, "calendars") if frame is not None else []
    if not raw:
        raise InvalidActionError("No open calendar was found after clicking the date field; pick the date by hand.")
    calendars = [_calendar(c, frame_path) for c in raw]
    return next((c for c in calendars if (c.year, c.month) == (value.year, value.month)), calendars[0])


def _calendar(raw: dict[str, Any], frame_path: str) -> _Calendar:
    def fp(item: dict[str, Any] | None) -> Fingerprint | None:
        return Fingerprint(frame=frame_path, **item) if item else None

    def chooser(item: dict[str, Any] | None) -> _MonthSelect | None:
        if not item:
            return None
        options = [(str(o["label"]), str(o["value"])) for o in item["options"]]
        return _MonthSelect(Fingerprint(frame=frame_path, **item["fingerprint"]), options)

    return _Calendar(
        year=int(raw["year"]), month=int(raw["month"]), prev=fp(raw.get("prev")), next=fp(raw.get("next")),
        days={str(k): Fingerprint(frame=frame_path, **v) for k, v in dict(raw.get("days") or {}).items()},
        year_select=chooser(raw.get("year_select")), month_select=chooser(raw.get("month_select")),
    )


async def choose_option(controller: Controller, snapshot: PageSnapshot, ref: str, option: str) -> str:
    """Choose ``option`` (its visible name) in a native or custom dropdown and return what it reads back."""
    element = _element(snapshot, ref)
    target = Target(ref=ref, fingerprint=element.fingerprint)
    if element.tag == "select":
        result = await controller.execute(Select(snapshot_id=snapshot.snapshot_id, target=target, option=option))
        return result.value or option
    await controller.execute(Click(snapshot_id=snapshot.snapshot_id, target=target))
    choice = await _option_target(controller, snapshot.tab_id, element.fingerprint.frame, option)
    await controller.execute(Click(target=choice, tab_id=snapshot.tab_id))
    reading = await controller.read(Target(fingerprint=element.fingerprint), snapshot.tab_id)
    if option not in (reading.value or ""):
        raise PostconditionFailedError(
            f'"{element.name}" shows {reading.value!r} after choosing {option!r}; the dropdown did not take it.'
        )
    await controller.accept_own_changes(snapshot)
    return reading.value or option


async def _option_target(controller: Controller, tab_id: str, frame_path: str, option: str) -> Target:
    frame = find_frame(controller.run.tab(tab_id).page, frame_path)
    if frame is None:
        raise InvalidActionError("The dropdown's frame is gone; observe the page again.")
    found = await invoke(frame, "optionFingerprints", option)
    if len(found) == 1:
        return Target(fingerprint=Fingerprint(frame=frame_path, **found[0]))
    if not found:
        names = await invoke(frame, "visibleOptionNames")
        raise InvalidActionError(f"The open dropdown has no option {option!r}; it shows {names}.")
    raise InvalidActionError(f"{len(found)} visible options are named {option!r}; choose by a more specific name.")


def _element(snapshot: PageSnapshot, ref: str) -> ElementInfo:
    element = snapshot.element(ref)
    if element is None:
        raise InvalidActionError(f"Snapshot {snapshot.snapshot_id} has no element {ref!r}; pick one it lists.")
    return element

"""Custom date pickers: dates in portal formats, the open calendar as the page model reads it, and the walk
from the calendar's month to a date.

The walk (:func:`walk_to`) is shared by the two ways FinRPA drives a picker, through a :class:`CalendarDriver`:

* ``widgets.pick_date`` (the skills) makes every click an ordinary controller action, recorded one by one;
* the controller's own Fill of a read-only date field (``operations.do_fill``, e.g. an LLM's fill proposal)
  opens the picker and clicks inside that one verified action, which records the date the field reads back.

Both work by roles, accessible names and text (never by a page's ids).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from playwright.async_api import Frame

from finrpa.browser.errors import InvalidActionError
from finrpa.browser.script import invoke
from finrpa.browser.snapshot import ElementInfo, Fingerprint

_FORMATS = (
    ("YYYY年MM月DD日", "%Y年%m月%d日"),
    ("YYYY-MM-DD", "%Y-%m-%d"),
    ("YYYY/MM/DD", "%Y/%m/%d"),
    ("YYYY.MM.DD", "%Y.%m.%d"),
    ("YYYYMMDD", "%Y%m%d"),
)
_DATE = re.compile(r"(\d{4})\D{0,3}(\d{1,2})\D{0,3}(\d{1,2})")
_WHOLE_DATE = re.compile(r"\s*(\d{4})(?:[-/.]|年)?(\d{1,2})(?:[-/.]|月)?(\d{1,2})日?\s*")


def parse_date(text: str | None) -> date | None:
    """The first date in ``text`` (2024-03-01, 2024/3/1, 2024年3月1日, 20240301), or None."""
    if not text:
        return None
    match = _DATE.search(text)
    return _date_of(match) if match is not None else None


def as_date(text: str) -> date | None:
    """``text`` when it is a date and nothing else (2024-03-01, 2024/3/1, 2024年3月1日, 20240301), else None."""
    match = _WHOLE_DATE.fullmatch(text)
    return _date_of(match) if match is not None else None


def _date_of(match: re.Match[str]) -> date | None:
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
class MonthSelect:
    """A year or month <select> in a calendar's header."""

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
class Calendar:
    """An open calendar: the month it shows, its navigation and its day cells (by day of that month)."""

    year: int
    month: int
    prev: Fingerprint | None
    next: Fingerprint | None
    days: dict[str, Fingerprint]
    year_select: MonthSelect | None = None
    month_select: MonthSelect | None = None


class CalendarDriver(Protocol):
    """How a walk acts on the page: read the open calendar, click a cell or button, choose a header option."""

    async def calendar(self, value: date) -> Calendar: ...

    async def click(self, fingerprint: Fingerprint) -> None: ...

    async def choose(self, fingerprint: Fingerprint, option: str) -> None: ...


async def open_calendars(frame: Frame | None, frame_path: str) -> list[Calendar]:
    """The calendars open in ``frame`` (none when the frame is gone)."""
    raw = await invoke(frame, "calendars") if frame is not None else []
    return [_calendar(item, frame_path) for item in raw or []]


def calendar_for(calendars: list[Calendar], value: date) -> Calendar:
    """The calendar showing ``value``'s month, else the first one open."""
    if not calendars:
        raise InvalidActionError("No open calendar was found after clicking the date field; pick the date by hand.")
    return next((c for c in calendars if (c.year, c.month) == (value.year, value.month)), calendars[0])


async def walk_to(driver: CalendarDriver, value: date, max_months: int = 240) -> None:
    """From the open calendar's month to ``value``'s (by its year/month selects when it has them, else month
    by month), then click the day."""
    for _ in range(max_months):
        calendar = await driver.calendar(value)
        offset = (value.year * 12 + value.month) - (calendar.year * 12 + calendar.month)
        if offset == 0:
            day = calendar.days.get(str(value.day))
            if day is None:
                raise InvalidActionError(f"The calendar for {value:%Y-%m} has no day {value.day}.")
            await driver.click(day)
            return
        if abs(offset) > 1 and await _jump(driver, calendar, value):
            continue
        button = calendar.next if offset > 0 else calendar.prev
        if button is None:
            direction = "next" if offset > 0 else "previous"
            raise InvalidActionError(f"The calendar has no {direction}-month button that FinRPA recognises.")
        await driver.click(button)
    raise InvalidActionError(f"{value} is more than {max_months} months away from the calendar's month.")


async def _jump(driver: CalendarDriver, calendar: Calendar, value: date) -> bool:
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
        await driver.choose(chooser.fingerprint, option)
        return True
    return False


def _calendar(raw: dict[str, Any], frame_path: str) -> Calendar:
    def fp(item: dict[str, Any] | None) -> Fingerprint | None:
        return Fingerprint(frame=frame_path, **item) if item else None

    def chooser(item: dict[str, Any] | None) -> MonthSelect | None:
        if not item:
            return None
        options = [(str(o["label"]), str(o["value"])) for o in item["options"]]
        return MonthSelect(Fingerprint(frame=frame_path, **item["fingerprint"]), options)

    return Calendar(
        year=int(raw["year"]), month=int(raw["month"]), prev=fp(raw.get("prev")), next=fp(raw.get("next")),
        days={str(k): Fingerprint(frame=frame_path, **v) for k, v in dict(raw.get("days") or {}).items()},
        year_select=chooser(raw.get("year_select")), month_select=chooser(raw.get("month_select")),
    )

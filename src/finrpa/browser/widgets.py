"""Helpers for custom widgets that common portals build instead of native controls.

* :func:`pick_date` — a non-native date picker: type the date and verify it, else open the calendar,
  move month by month with its previous/next buttons and click the day cell (found by its full-date
  attribute or by its position in the month's run of day numbers), then read the field back.
* :func:`choose_option` — a custom dropdown/listbox: open it, click the option with that accessible name,
  read the field back. Native ``<select>`` elements go through a Select action.

They work by roles, accessible names and text (never by a page's ids), and every step is an ordinary
controller action, so each is resolved, verified, screenshotted and recorded. The calendar walk is
:func:`finrpa.browser.date_picker.walk_to`, the same one the controller's Fill of a read-only date field uses.
"""

from __future__ import annotations

from datetime import date

from finrpa.browser.actions import Click, Fill, Press, Select, Target
from finrpa.browser.controller import Controller
from finrpa.browser.date_picker import (
    Calendar,
    calendar_for,
    date_format_for,
    open_calendars,
    parse_date,
    walk_to,
)
from finrpa.browser.errors import InvalidActionError, PostconditionFailedError, StaleSnapshotError
from finrpa.browser.frames import find_frame
from finrpa.browser.script import invoke
from finrpa.browser.snapshot import ElementInfo, Fingerprint, PageSnapshot

__all__ = ["choose_option", "date_format_for", "parse_date", "pick_date"]


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
    await walk_to(_ControllerDriver(controller, snapshot.tab_id, element.fingerprint.frame), value, max_months)
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
        # Tab commits the typed date and closes the calendar typing may have opened (Enter could submit); the press
        # reads the field back (the portal may rewrite it as it loses focus), else it is read again by its name.
        pressed = await controller.execute(Press(snapshot_id=snapshot.snapshot_id, key="Tab", target=target))
        shown = pressed.value
        if shown is None:
            shown = (await controller.read(Target(fingerprint=fingerprint), snapshot.tab_id)).value
    except (PostconditionFailedError, StaleSnapshotError):
        return False
    if parse_date(shown) != value:
        return False
    await controller.accept_own_changes(snapshot)
    return True


class _ControllerDriver:
    """Walks a calendar with ordinary controller actions: every click is resolved, verified and recorded."""

    def __init__(self, controller: Controller, tab_id: str, frame_path: str) -> None:
        self.controller, self.tab_id, self.frame_path = controller, tab_id, frame_path

    async def calendar(self, value: date) -> Calendar:
        frame = find_frame(self.controller.run.tab(self.tab_id).page, self.frame_path)
        return calendar_for(await open_calendars(frame, self.frame_path), value)

    async def click(self, fingerprint: Fingerprint) -> None:
        await self.controller.execute(Click(target=Target(fingerprint=fingerprint), tab_id=self.tab_id))

    async def choose(self, fingerprint: Fingerprint, option: str) -> None:
        await self.controller.execute(Select(target=Target(fingerprint=fingerprint), option=option, tab_id=self.tab_id))


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

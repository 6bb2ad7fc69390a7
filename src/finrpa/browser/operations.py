"""What each action does to the page and how its effect is verified.

The controller resolves the target and takes the screenshots; the functions here act on an already
resolved element handle and return only once the postcondition held (or raise).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from finrpa.browser.actions import (
    AcceptDialog,
    Check,
    Click,
    Download,
    Expectation,
    ExtractedTable,
    Fill,
    Navigate,
    Press,
    Select,
    Uncheck,
    Upload,
)
from finrpa.browser.date_picker import Calendar, as_date, calendar_for, open_calendars, parse_date, walk_to
from finrpa.browser.downloads import DownloadedFile
from finrpa.browser.errors import (
    ActionTimeoutError,
    BrowserError,
    EgressDeniedError,
    InvalidActionError,
    PostconditionFailedError,
    TargetRefusedError,
)
from finrpa.browser.events import EgressBlocked
from finrpa.browser.frames import find_frame
from finrpa.browser.records import mask_value
from finrpa.browser.resolve import ResolvedTarget, refuse, resolve_target
from finrpa.browser.runtime import RunBrowser, Tab
from finrpa.browser.script import invoke
from finrpa.browser.snapshot import DialogInfo, Fingerprint, PageSnapshot
from finrpa.browser.verify import Baseline, counters_of, wait_for_change, wait_for_expectation
from finrpa.kit.secret_text import reveal

_READ = "(el, e) => window.__finrpa_pm.readState(el, e)"
_PREPARE_FILL = "(el, [sensitive, isDate]) => window.__finrpa_pm.prepareFill(el, sensitive, isDate)"
_NEXT_CHANGE = "([s, ms]) => window.__finrpa_pm.nextChange(s, ms)"
_ARM_CLICK = "(el) => window.__finrpa_pm.armClick(el)"
_CLICK_LANDED = "() => window.__finrpa_pm.clickLanded()"
_DEFAULT_CHANGE_S = 5.0
_READBACK_S = 2.0


@dataclass
class OpContext:
    run: RunBrowser
    tab: Tab
    target: ResolvedTarget | None
    timeout_s: float
    pending_clicks: dict[str, asyncio.Future[None]]


@dataclass
class OpResult:
    value: str | None = None
    value_masked: str | None = None
    navigated: bool = False
    dialog: DialogInfo | None = None
    download: DownloadedFile | None = None
    table: ExtractedTable | None = None
    text: str | None = None
    new_tab_id: str | None = None
    snapshot: PageSnapshot | None = None
    counters: dict[str, Any] | None = field(default=None, repr=False)


def _target(ctx: OpContext) -> ResolvedTarget:
    assert ctx.target is not None, "element actions are resolved before they run"
    return ctx.target


def playwright_failure(exc: PlaywrightError, ctx: OpContext, doing: str) -> BrowserError:
    """A typed error for a Playwright failure while acting."""
    text = exc.message.splitlines()[0] if exc.message else str(exc)
    fp = ctx.target.fingerprint if ctx.target else None
    what = f'{fp.role} "{fp.name}"' if fp else "the page"
    if isinstance(exc, PlaywrightTimeoutError) and "not editable" in exc.message:
        return TargetRefusedError(
            f"{what} is read-only; the portal sets it (a picker or another field).", reason="disabled"
        )
    if isinstance(exc, PlaywrightTimeoutError):
        return ActionTimeoutError(f"{doing} {what} did not finish in {ctx.timeout_s:.0f} s; observe the page again.")
    if "not attached" in text or "detached" in text:
        return TargetRefusedError(f"{what} disappeared before it could be used; observe again.", reason="detached")
    if "not editable" in text or "disabled" in text:
        return TargetRefusedError(f"{what} cannot be edited now.", reason="disabled")
    if "intercepts pointer events" in text:
        return TargetRefusedError(f"{what} is covered by another element.", reason="occluded")
    return BrowserError(f"{doing} {what} failed: {text}", retryable=True)


async def _read_back(ctx: OpContext, expected: str | None) -> dict[str, Any]:
    return dict(await _target(ctx).handle.evaluate(_READ, expected))


async def _read_until(ctx: OpContext, expected: str, ok: Any) -> dict[str, Any]:
    """Read the element back until ``ok(state)`` holds (input masks and frameworks may settle late)."""
    deadline = time.monotonic() + min(_READBACK_S, ctx.timeout_s)
    state = await _read_back(ctx, expected)
    while not ok(state) and time.monotonic() < deadline:
        since = int(state["counters"]["changes"])
        await _target(ctx).frame.evaluate(_NEXT_CHANGE, [since, 100])
        state = await _read_back(ctx, expected)
    return state


# -- element writes -----------------------------------------------------------------------------------
async def do_fill(ctx: OpContext, action: Fill) -> OpResult:
    target = _target(ctx)
    plain = reveal(action.value)
    sensitive = action.sensitive or not isinstance(action.value, str)
    day = None if sensitive else as_date(plain)
    try:
        # One round trip before the typing: the sensitive mark, and Playwright's fill up to its typing (see
        # prepareFill); the text then goes in as Playwright's fill types it (the protocol's insertText).
        prepared = await target.handle.evaluate(_PREPARE_FILL, [sensitive, day is not None])
    except PlaywrightError as exc:
        raise playwright_failure(exc, ctx, "Filling") from exc
    if prepared == "readonly" and day is not None:
        return await _fill_from_calendar(ctx, action, day)
    try:
        if prepared == "focused" and plain:
            await (await ctx.tab.cdp()).send("Input.insertText", {"text": plain})
        else:
            await target.handle.fill(plain, timeout=ctx.timeout_s * 1000)
        expected = action.expect_value if action.expect_value is not None else plain
        state = await _read_until(ctx, expected, lambda s: s["matches"])
    except PlaywrightError as exc:
        raise playwright_failure(exc, ctx, "Filling") from exc
    masked = mask_value(action.value, sensitive=sensitive or bool(state["sensitive"]))
    if not state["matches"]:
        shown = "a different value" if sensitive or state["sensitive"] else repr(state["value"])
        raise PostconditionFailedError(
            f'The field "{target.fingerprint.name}" reads back {shown} after typing; the portal may reformat '
            "input: set expect_value to the formatted value, or use the date-picker helper."
        )
    return OpResult(value=state["value"], value_masked=masked, counters=state["counters"])


async def _fill_from_calendar(ctx: OpContext, action: Fill, day: date) -> OpResult:
    """A read-only date field takes its date from its picker, as the skills' ``widgets.pick_date`` does:
    open the calendar, walk to the month, click the day, and read the field back (in its own format)."""
    target = _target(ctx)
    wanted = action.expect_value

    def holds(state: dict[str, Any]) -> bool:
        return parse_date(state["value"]) == day and (wanted is None or bool(state["matches"]))

    try:
        state = await _read_back(ctx, wanted)
        if not holds(state):
            # The click opens the picker (it may already be open: then the walk finds it as it is).
            await target.handle.click(timeout=ctx.timeout_s * 1000)
            await walk_to(_InPlaceCalendar(ctx, target.fingerprint.frame), day)
            state = await _read_until(ctx, wanted or day.isoformat(), holds)
    except PlaywrightError as exc:
        raise playwright_failure(exc, ctx, "Picking a date in") from exc
    if not holds(state):
        raise PostconditionFailedError(
            f'The date field "{target.fingerprint.name}" reads back {state["value"]!r} after choosing {day} in '
            "its calendar; the picker did not take it."
        )
    return OpResult(
        value=state["value"], value_masked=mask_value(action.value, sensitive=False), counters=state["counters"]
    )


class _InPlaceCalendar:
    """The calendar walk inside one Fill action: every click goes to the single visible, enabled, unoccluded
    element of its fingerprint and must change the page (the month shown, or the picker closing)."""

    def __init__(self, ctx: OpContext, frame_path: str) -> None:
        self.ctx, self.frame_path = ctx, frame_path

    async def calendar(self, value: date) -> Calendar:
        deadline = time.monotonic() + min(self.ctx.timeout_s, _DEFAULT_CHANGE_S)
        while True:
            frame = find_frame(self.ctx.tab.page, self.frame_path)
            calendars = await open_calendars(frame, self.frame_path)
            if calendars or frame is None or time.monotonic() >= deadline:
                return calendar_for(calendars, value)
            since = int((await counters_of(frame) or {}).get("changes", 0))
            await frame.evaluate(_NEXT_CHANGE, [since, 200])

    async def click(self, fingerprint: Fingerprint) -> None:
        resolved = await resolve_target(self.ctx.tab, fingerprint)
        since = int((await resolved.counters()).get("changes", 0))
        await click_target(replace(self.ctx, target=resolved), resolved, "Clicking")
        await self._changed(resolved, since, f'clicking "{fingerprint.name}"')

    async def choose(self, fingerprint: Fingerprint, option: str) -> None:
        resolved = await resolve_target(self.ctx.tab, fingerprint)
        since = int((await resolved.counters()).get("changes", 0))
        await resolved.handle.select_option(value=option, timeout=self.ctx.timeout_s * 1000)
        await self._changed(resolved, since, f'choosing {option!r} in "{fingerprint.name}"')

    async def _changed(self, resolved: ResolvedTarget, since: int, doing: str) -> None:
        deadline = time.monotonic() + min(self.ctx.timeout_s, _DEFAULT_CHANGE_S)
        while True:
            counters = await resolved.frame.evaluate(_NEXT_CHANGE, [since, 250])
            if int(counters["changes"]) > since:
                return
            if time.monotonic() >= deadline:
                raise PostconditionFailedError(
                    f"In the date picker, {doing} changed nothing on the page; pick the date by hand."
                )


_SELECT_OPTION = "(el, w) => window.__finrpa_pm.selectOption(el, w)"


async def do_select(ctx: OpContext, action: Select) -> OpResult:
    target = _target(ctx)
    name = target.fingerprint.name
    try:
        # One round trip: is it a <select>, which option is the one wanted, choose it, read the field back.
        chosen = dict(await target.handle.evaluate(_SELECT_OPTION, action.option))
        if chosen["tag"] != "SELECT":
            raise InvalidActionError(f'"{name}" is a custom dropdown, not a <select>; use widgets.choose_option.')
        if chosen["value"] is None:
            raise InvalidActionError(f'"{name}" has no option {action.option!r}; its options are {chosen["options"]}.')
        if chosen.get("refused") == "option_disabled":
            raise InvalidActionError(f'"{name}" does not offer {action.option!r} now (the option is disabled).')
        if chosen.get("refused"):
            raise refuse("disabled" if chosen["refused"] == "disabled" else "not_visible", target.fingerprint)
        state = dict(chosen["state"])
        if not state["matches"]:
            state = await _read_until(ctx, action.option, lambda s: s["matches"])
    except PlaywrightError as exc:
        raise playwright_failure(exc, ctx, "Selecting in") from exc
    if not state["matches"]:
        raise PostconditionFailedError(
            f'"{target.fingerprint.name}" shows {state["value"]!r} after choosing {action.option!r}; '
            "the portal changed it back."
        )
    return OpResult(value=state["value"], value_masked=state["value"], counters=state["counters"])


async def do_check(ctx: OpContext, action: Check | Uncheck) -> OpResult:
    target = _target(ctx)
    wanted = isinstance(action, Check)
    # Guarded as a click is (see click_target); Playwright clicks only when the state must change, so a press that
    # never came is no refusal here: the state read back decides.
    guarded = await _arm_click(target)
    failed: PlaywrightError | None = None
    try:
        await target.handle.set_checked(wanted, timeout=ctx.timeout_s * 1000, force=guarded)
    except PlaywrightError as exc:
        failed = exc  # a stopped press leaves the box as it was: Playwright says so, the guard says why
    if guarded and (await _click_outcome(ctx, target, guarded, None))[1] is False:
        raise _stopped(target) from failed
    try:
        if failed is not None:
            raise failed
        state = await _read_until(ctx, "", lambda s: s["checked"] == wanted)
    except PlaywrightError as exc:
        raise playwright_failure(exc, ctx, "Checking" if wanted else "Unchecking") from exc
    if state["checked"] != wanted:
        raise PostconditionFailedError(
            f'"{target.fingerprint.name}" is still {"unchecked" if wanted else "checked"} after the click.'
        )
    return OpResult(value=str(wanted).lower(), value_masked=str(wanted).lower(), counters=state["counters"])


async def do_upload(ctx: OpContext, action: Upload) -> OpResult:
    target = _target(ctx)
    names = [p.name for p in action.files]
    try:
        if target.fingerprint.role == "file":
            await target.handle.set_input_files(action.files, timeout=ctx.timeout_s * 1000)
            state = await _read_back(ctx, None)
        else:
            async with ctx.tab.page.expect_file_chooser(timeout=ctx.timeout_s * 1000) as chooser_info:
                await target.handle.click(timeout=ctx.timeout_s * 1000)
            chooser = await chooser_info.value
            await chooser.set_files(action.files, timeout=ctx.timeout_s * 1000)
            state = dict(await chooser.element.evaluate(_READ, None))
    except PlaywrightError as exc:
        raise playwright_failure(exc, ctx, "Uploading to") from exc
    if state["files"] != names:
        raise PostconditionFailedError(
            f'"{target.fingerprint.name}" holds {state["files"]} instead of {names} after the upload.'
        )
    return OpResult(value=", ".join(names), value_masked=", ".join(names), counters=state["counters"])


async def do_click(ctx: OpContext, action: Click) -> OpResult:
    target = _target(ctx)
    base = Baseline.take(ctx.run, ctx.tab, target.frame, {})
    ctx.tab.dialog_policy = action.dialog
    base.counters = await click_target(ctx, target, "Clicking", base.main_navigations) or {}
    return await _verify_effect(ctx, base, action.expect, "Clicking", target.fingerprint.name)


async def click_target(
    ctx: OpContext, target: ResolvedTarget, doing: str, navigations: int | None = None
) -> dict[str, Any] | None:
    """Click a resolved target and wait for the click (or the native dialog it opened). When the target is in the
    main frame and still where its resolution found it (visible, enabled, on top), the click goes straight to it
    under the page model's click guard (``armClick``) instead of Playwright repeating those checks and waiting for a
    stable position; else Playwright's own checked click. Either way Playwright waits for a navigation the click
    started to commit.

    With ``navigations`` (the tab's main-frame navigation count before the click), returns the frame's counters as
    the target's resolution read them (the page before the click: the page model keeps them), {} when the click
    navigated the frame or a dialog blocks its scripts; read once the click is done, not alongside it (a call into
    the page while the click runs holds the click up by ~10 ms). Raises TargetRefusedError when the guard stopped
    the press (something else was under it by then) or no press reached the target's page: the click then had no
    effect on the page."""
    guarded = await _arm_click(target)
    click = asyncio.ensure_future(target.handle.click(timeout=ctx.timeout_s * 1000, force=guarded))
    counters: dict[str, Any] | None = None
    landed: bool | None = True
    try:
        await _settle_click(ctx, click, doing)
    finally:
        if guarded or navigations is not None:
            counters, landed = await _click_outcome(ctx, target, guarded, navigations)
    if not landed:
        raise _stopped(target)
    return counters


def _stopped(target: ResolvedTarget) -> TargetRefusedError:
    return TargetRefusedError(
        f'{target.fingerprint.role} "{target.fingerprint.name}" was covered or moved when it was clicked, '
        "so the click was stopped; observe the page again.",
        reason="occluded",
    )


async def _arm_click(target: ResolvedTarget) -> bool:
    """True when the page model's click guard is armed on the target (see :func:`click_target`). Only in the main
    frame: a guard sees the presses of its own document, and a press meant for a frame that lands on the page
    around it (a cover over the frame) never reaches the frame's; such targets keep Playwright's checked click,
    which checks every frame on the way before it presses."""
    if target.frame.parent_frame is not None:
        return False
    try:
        return await target.handle.evaluate(_ARM_CLICK) is not None
    except PlaywrightError:
        return False


async def _click_outcome(
    ctx: OpContext, target: ResolvedTarget, guarded: bool, navigations: int | None
) -> tuple[dict[str, Any], bool | None]:
    """(the resolution's counters, whether a guarded click's press landed) once the click is done; see
    :func:`click_target`. Nothing is read from a frame whose document is gone (a click that navigated it, which
    only a press that landed does) or whose scripts a native dialog blocks (the dialog is the click's effect)."""
    if ctx.tab.pending_dialog is not None:
        return {}, True
    main = target.frame is ctx.tab.page.main_frame
    if main and navigations is not None and ctx.tab.main_navigations > navigations:
        return {}, True
    try:
        if not guarded:
            return await asyncio.wait_for(target.counters(), timeout=_READBACK_S), True
        outcome = await asyncio.wait_for(target.frame.evaluate(_CLICK_LANDED), timeout=_READBACK_S)
    except (PlaywrightError, TimeoutError):
        return {}, True
    if not outcome.get("armed"):  # another document by now: the click navigated the frame
        return {}, True
    last = outcome.get("last") or {}
    return dict(last.get("counters") or {}), outcome.get("landed")


async def do_press(ctx: OpContext, action: Press) -> OpResult:
    frame = ctx.target.frame if ctx.target else ctx.tab.page.main_frame
    counters = await ctx.target.counters() if ctx.target else await counters_of(frame) or {}
    base = Baseline.take(ctx.run, ctx.tab, frame, counters)
    if ctx.target is not None:
        press = asyncio.ensure_future(ctx.target.handle.press(action.key, timeout=ctx.timeout_s * 1000))
    else:
        press = asyncio.ensure_future(ctx.tab.page.keyboard.press(action.key))
    await _settle_click(ctx, press, f"Pressing {action.key} on")
    if action.expect is None and action.key.split("+")[-1] != "Enter":
        # Tab, Escape, arrows: no observable default. A target is read back with its frame's counters (after a Tab
        # that commits a typed date, the value the field kept); one gone meanwhile leaves the counters alone.
        if ctx.target is not None and ctx.tab.pending_dialog is None:
            with contextlib.suppress(PlaywrightError):
                state = await _read_back(ctx, None)
                return OpResult(value=state["value"], value_masked=state["value"], counters=state["counters"])
        return OpResult(counters=await counters_of(frame))
    name = ctx.target.fingerprint.name if ctx.target else "the page"
    return await _verify_effect(ctx, base, action.expect, f"Pressing {action.key} on", name)


async def _settle_click(ctx: OpContext, task: asyncio.Future[None], doing: str) -> None:
    """Wait for a click/press to finish, or for the native dialog it opened (which blocks it)."""
    deadline = time.monotonic() + ctx.timeout_s + 1
    while not task.done() and ctx.tab.pending_dialog is None and time.monotonic() < deadline:
        activity: asyncio.Future[Any] = asyncio.ensure_future(ctx.tab.activity.wait())
        waiting: set[asyncio.Future[Any]] = {task, activity}
        await asyncio.wait(waiting, timeout=0.25, return_when=asyncio.FIRST_COMPLETED)
        activity.cancel()
        ctx.tab.activity.clear()
    if not task.done():
        if ctx.tab.pending_dialog is None:
            task.cancel()
            raise ActionTimeoutError(f"{doing} did not finish in {ctx.timeout_s:.0f} s.")
        ctx.pending_clicks[ctx.tab.tab_id] = task
        return
    exc = task.exception()
    if isinstance(exc, PlaywrightError):
        raise playwright_failure(exc, ctx, doing) from exc
    if exc is not None:
        raise exc


async def _verify_effect(ctx: OpContext, base: Baseline, expect: Expectation | None, doing: str, name: str) -> OpResult:
    if expect is not None and not expect.is_empty():
        missing = await wait_for_expectation(ctx.run, ctx.tab, expect, base, ctx.timeout_s)
        if missing:
            raise PostconditionFailedError(
                f'{doing} "{name}" did not lead to {", ".join(missing)} within {ctx.timeout_s:.0f} s.'
            )
        navigated = base.frame is ctx.tab.page.main_frame and ctx.tab.main_navigations > base.main_navigations
        counters = None if ctx.tab.pending_dialog or navigated else await counters_of(base.frame)
    else:
        changed, counters = await wait_for_change(ctx.run, ctx.tab, base, min(ctx.timeout_s, _DEFAULT_CHANGE_S))
        if not changed:
            raise PostconditionFailedError(
                f'{doing} "{name}" changed nothing observable (no navigation, page change, dialog or '
                "download); declare the expected effect or check that the click reached the portal."
            )
    result = _effect_result(ctx, base, counters)
    if result.navigated and ctx.tab.pending_dialog is None:
        await settle_navigation(ctx.tab, ctx.timeout_s)
    return result


async def settle_navigation(tab: Tab, timeout_s: float) -> None:
    """After a navigation, wait until the new document is parsed (its DOM can be observed)."""
    await tab.wait_parsed(timeout_s)


def _effect_result(ctx: OpContext, base: Baseline, counters: dict[str, Any] | None) -> OpResult:
    tab = ctx.tab
    dialog = None
    if tab.pending_dialog is not None:
        dialog = DialogInfo(
            kind=_dialog_kind(tab.pending_dialog.type), text=tab.pending_dialog.message[:500], native=True
        )
    elif tab.dialog_count > base.dialogs and tab.last_dialog is not None:
        dialog = DialogInfo(kind=_dialog_kind(tab.last_dialog[0]), text=tab.last_dialog[1], native=True)
    new_tabs = list(ctx.run.tabs)[base.tabs :]
    navigated = tab.main_navigations > base.main_navigations or (
        counters is not None and counters.get("doc") != base.counters.get("doc")
    )
    return OpResult(
        navigated=navigated,
        dialog=dialog,
        new_tab_id=new_tabs[-1] if new_tabs else None,
        counters=None if navigated else counters,
    )


def _dialog_kind(kind: str) -> Any:
    return kind if kind in ("alert", "confirm", "prompt", "beforeunload") else "alert"


async def do_download(ctx: OpContext, action: Download) -> OpResult:
    target = _target(ctx)
    before = len(ctx.tab.downloads)
    await click_target(ctx, target, "Clicking")
    deadline = time.monotonic() + ctx.timeout_s
    while len(ctx.tab.downloads) <= before:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise PostconditionFailedError(
                f'Clicking "{target.fingerprint.name}" did not start a download within {ctx.timeout_s:.0f} s.'
            )
        ctx.tab.activity.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ctx.tab.activity.wait(), timeout=min(remaining, 0.5))
    future = ctx.tab.downloads[before]
    saved = await asyncio.wait_for(asyncio.shield(future), timeout=max(1.0, deadline - time.monotonic()))
    return OpResult(
        download=saved, value=saved.filename, value_masked=saved.filename, counters=await counters_of(target.frame)
    )


# -- page-level actions ---------------------------------------------------------------------------------
def check_url(run: RunBrowser, url: str) -> None:
    """Refuse a malformed URL or one outside the allowlist before the browser sees it."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidActionError(f"{url[:200]!r} is not an http(s) URL with a host; give a full portal URL.")
    if not run.allowlist.allows_url(url):
        run.emit(
            EgressBlocked(
                run_id=run.config.run_id,
                url=url.split("?", 1)[0][:300],
                host=parts.hostname,
                resource_type="document",
                navigation=True,
            )
        )
        raise EgressDeniedError(
            f"{parts.hostname} is outside this run's allowed hosts ({', '.join(run.allowlist.hosts())}); "
            "add it to the template's portal URLs if the run really needs it."
        )


async def do_navigate(ctx: OpContext, action: Navigate) -> OpResult:
    check_url(ctx.run, action.url)
    try:
        response = await ctx.tab.page.goto(action.url, wait_until=action.wait_until, timeout=ctx.timeout_s * 1000)
    except PlaywrightTimeoutError as exc:
        raise ActionTimeoutError(f"{action.url.split('?')[0]} did not load in {ctx.timeout_s:.0f} s.") from exc
    except PlaywrightError as exc:
        reason = exc.message.splitlines()[0] if exc.message else "unknown error"
        raise BrowserError(f"Opening {action.url.split('?')[0]} failed ({reason}).", retryable=True) from exc
    if response is not None and response.status >= 400:
        raise PostconditionFailedError(
            f"{action.url.split('?')[0]} answered HTTP {response.status}.", retryable=response.status >= 500
        )
    return OpResult(navigated=True)


async def do_dialog(ctx: OpContext, action: AcceptDialog | None) -> OpResult:
    tab = ctx.tab
    dialog = tab.pending_dialog
    if dialog is None:
        raise InvalidActionError(f"No dialog is open in tab {tab.tab_id}; observe the page again.")
    info = DialogInfo(kind=_dialog_kind(dialog.type), text=dialog.message[:500], native=True)
    prompt = reveal(action.prompt_text) if action is not None and action.prompt_text is not None else None
    await ctx.run.close_dialog(tab, dialog, accept=action is not None, automatic=False, prompt_text=prompt)
    pending = ctx.pending_clicks.pop(tab.tab_id, None)
    if pending is not None:
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(pending, timeout=ctx.timeout_s)
    return OpResult(dialog=info, value="accepted" if action is not None else "dismissed")


async def do_extract_table(
    ctx: OpContext,
    snapshot: PageSnapshot | None,
    table_id: str | None,
    max_rows: int,
    named: tuple[str | None, list[str] | None] = (None, None),
) -> OpResult:
    """Read a table of ``snapshot`` (``table_id``, else its first), or without one the table with the caption and
    headers ``named`` (else the first) in the main frame."""
    frame = ctx.tab.page.main_frame
    caption, headers = named
    if snapshot is not None and snapshot.tables:
        table = next((t for t in snapshot.tables if t.table_id == table_id), None) if table_id else snapshot.tables[0]
        if table is None:
            known = ", ".join(t.table_id for t in snapshot.tables)
            raise InvalidActionError(f"Snapshot {snapshot.snapshot_id} has no table {table_id!r} (it has {known}).")
        caption, headers = table.caption, table.headers
        info = snapshot.frame(table.frame_id)
        frame = (find_frame(ctx.tab.page, info.path) if info else None) or frame
    data = await invoke(frame, "extractTable", caption, headers, max_rows)
    if not data:
        raise PostconditionFailedError("The table is no longer on the page; observe the page again.")
    return OpResult(table=ExtractedTable(**data))

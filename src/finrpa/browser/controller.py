"""The controller: executes typed actions for one run, safely and verifiably.

For each action it (1) rejects it if the snapshot it was chosen from is stale, (2) re-resolves the target
by fingerprint to exactly one visible, enabled, unoccluded element, (3) takes a masked screenshot, (4)
acts, (5) checks the postcondition, (6) takes the after screenshot and hands an :class:`ActionRecord` to
the recorder. A failed check is a failure, never a warning.

The before screenshot is the previous action's after screenshot, shared rather than taken again, when the
page provably did not change in between (checked before resolution, which may scroll the target into
view); see :meth:`Controller._unchanged_since`.

With ``background_evidence`` an action returns once its effect is verified: its after-shot is finished and its
record written while the caller prepares the next action. The page stays as the after-shot must show it: the next
action reads the page (the before-shot check, resolution without scrolling) while the PNG is taken, and waits for
it before anything that could change the page (scrolling a target into view, a before-shot's masks, acting).
Records are written in action order; :meth:`Controller.settled` returns once every record is written, and whoever
reads the recorder calls it first.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from finrpa.browser.actions import (
    AcceptDialog,
    Action,
    ActionResult,
    Check,
    Click,
    DismissDialog,
    Download,
    Expectation,
    Extract,
    ExtractedTable,
    Fill,
    Navigate,
    Press,
    Scroll,
    Select,
    SwitchTab,
    Target,
    Uncheck,
    Upload,
    WaitFor,
)
from finrpa.browser.errors import (
    ActionTimeoutError,
    BrowserError,
    InvalidActionError,
    PostconditionFailedError,
    StaleSnapshotError,
    TargetRefusedError,
)
from finrpa.browser.frames import find_frame, frame_tree
from finrpa.browser.observe import ObserveOptions, build_snapshot, read_table_page
from finrpa.browser.operations import (
    OpContext,
    OpResult,
    do_check,
    do_click,
    do_dialog,
    do_download,
    do_extract_table,
    do_fill,
    do_navigate,
    do_press,
    do_select,
    do_upload,
)
from finrpa.browser.records import (
    ActionIntent,
    ActionRecord,
    ActionRecorder,
    Outcome,
    Screenshot,
    TargetSummary,
    redact_action,
)
from finrpa.browser.resolve import FrameState, ResolvedTarget, refuse, resolve_target
from finrpa.browser.runtime import RunBrowser, Tab
from finrpa.browser.screenshots import Capture, capture, capture_with_state
from finrpa.browser.script import invoke
from finrpa.browser.snapshot import ElementInfo, Fingerprint, PageSnapshot
from finrpa.browser.verify import Baseline, counters_of, wait_for_expectation, wait_for_frames_change
from finrpa.kit.secret_text import SecretText
from finrpa.kit.tasks import retrieved

_GRACE_S = 15.0  # backstop over an action's own timeout (screenshots, recording)
_SHOT_TIMEOUT_S = 15.0  # an after-shot (masks, PNG) taken in the background
_SHOT_POLL_S = 0.1  # how often a running after-shot looks for a dialog that blocks the page
_READ_TIMEOUT_S = 10.0


class ElementReading(BaseModel):
    """An element's current state, read without acting (value masked when sensitive)."""

    value: str | None
    checked: bool = False
    sensitive: bool = False


@dataclass
class _Seen:
    """A snapshot and the per-frame (document, epoch) the controller still accepts for it."""

    snapshot: PageSnapshot
    frames: dict[str, tuple[str, int]]


@dataclass
class _Step:
    index: int
    action: Action
    tab: Tab
    url_before: str
    started_at: datetime
    started: float
    target: TargetSummary | None = None
    before: Screenshot | None = None
    after: Screenshot | None = None
    # An earlier action's after-shot (maybe still being taken) that shows the page before / after this action.
    shared_before: _Shot | None = None
    shared_after: _Shot | None = None
    after_shot: asyncio.Future[Capture | None] | None = None  # this action's own after-shot, being taken
    url_after: str | None = None
    finished: float | None = None  # when the after-shot was in (perf_counter)
    value_masked: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Shot:
    """An action's after-shot (being taken or taken) and that action's index."""

    capture: asyncio.Future[Capture | None]
    index: int

    def shared(self) -> Screenshot | None:
        """The PNG, marked as this action's, once taken; None when it could not be taken."""
        done = self.capture.done() and not self.capture.cancelled() and self.capture.exception() is None
        taken = self.capture.result() if done else None
        return taken.shot.model_copy(update={"shared_from": self.index}) if taken is not None else None


class Controller:
    """Executes actions for one run (one RunBrowser); not shared between runs."""

    def __init__(
        self,
        run: RunBrowser,
        *,
        recorder: ActionRecorder | None = None,
        screenshots: bool = True,
        mask_text_numbers: bool = True,
        observe_options: ObserveOptions | None = None,
        keep_snapshots: int = 16,
        background_evidence: bool = False,
    ) -> None:
        self.run = run
        self.recorder = recorder
        self.screenshots = screenshots
        self.background_evidence = background_evidence
        self.mask_text_numbers = mask_text_numbers
        self.observe_options = observe_options or ObserveOptions()
        self._keep = keep_snapshots
        self._seen: OrderedDict[str, _Seen] = OrderedDict()
        self._indexes = itertools.count(1)
        self._pending_clicks: dict[str, asyncio.Future[None]] = {}
        # The last after-shot and the page state it provably shows.
        self._last_shot: tuple[tuple[object, ...], _Shot] | None = None
        # The last after-shot while it is taken: its masks are up (what it shows is known) / its PNG is in.
        self._painted: asyncio.Future[None] | None = None
        self._shooting: asyncio.Future[Capture | None] | None = None
        self._recording: asyncio.Future[None] | None = None  # the last action's record, being written

    # -- observing --------------------------------------------------------------------------------------
    async def observe(self, tab_id: str | None = None) -> PageSnapshot:
        """A fresh snapshot of the tab (the active one by default); actions may name it for 60+ s."""
        tab = await self._tab(tab_id)
        timeout_s = self.observe_options.timeout_s
        try:
            snapshot = await asyncio.wait_for(build_snapshot(tab, self.observe_options), timeout_s)
        except TimeoutError as exc:
            raise ActionTimeoutError(
                f"Tab {tab.tab_id} did not answer within {timeout_s:.0f} s (a busy or frozen page); try again."
            ) from exc
        self._remember(snapshot)
        return snapshot

    def _remember(self, snapshot: PageSnapshot) -> None:
        """Accept actions naming ``snapshot`` while its frames stay as it saw them."""
        self._seen[snapshot.snapshot_id] = _Seen(snapshot, {f.path: (f.document, f.epoch) for f in snapshot.frames})
        while len(self._seen) > self._keep:
            self._seen.popitem(last=False)

    async def read(self, target: Target, tab_id: str | None = None) -> ElementReading:
        """Read an element's current value (masked when sensitive) and checked state, without acting."""
        tab = await self._tab(tab_id)
        if target.fingerprint is None:
            raise InvalidActionError("Reading an element needs its fingerprint.")
        try:
            resolving = resolve_target(tab, target.fingerprint, before_scrolling=self._scroll_hook())
            resolved = await asyncio.wait_for(resolving, _READ_TIMEOUT_S)
            state = await asyncio.wait_for(
                resolved.handle.evaluate("el => window.__finrpa_pm.readState(el, null)"), _READ_TIMEOUT_S
            )
        except PlaywrightError as exc:
            raise refuse("detached", target.fingerprint) from exc
        except TimeoutError as exc:
            raise ActionTimeoutError("Reading the element took too long; the page may be frozen.") from exc
        return ElementReading(value=state["value"], checked=bool(state["checked"]), sensitive=bool(state["sensitive"]))

    async def wait_for_page_change(self, snapshot: PageSnapshot, timeout_s: float) -> bool:
        """Wait, without acting or recording anything, until the tab of ``snapshot`` changed after it was taken (a
        DOM change or navigation in any of its frames, a frame added or gone, a dialog, download or new tab) or
        ``timeout_s`` passed; True when it changed. Polling for something not on the page yet (results still
        loading) observes again as soon as the page moves instead of after a fixed pause."""
        try:
            tab = self.run.tab(snapshot.tab_id)
        except InvalidActionError:
            return True  # the tab closed since: that is a change too (observing again says how)
        seen = {f.path: (f.document, f.changes) if f.reachable else None for f in snapshot.frames}
        try:
            return await wait_for_frames_change(tab, seen, timeout_s)
        except PlaywrightError:
            return True  # the tab closed or crashed meanwhile

    async def accept_own_changes(self, snapshot: PageSnapshot) -> None:
        """Declare that the page changed since ``snapshot`` only through this controller's own verified
        actions (as the widget helpers do after opening and closing a popup), so the snapshot stays usable.
        Nothing is accepted if the page navigated; targets are still re-resolved by fingerprint."""
        seen = self._seen.get(snapshot.snapshot_id)
        if seen is None:
            return
        tab = self.run.tab(snapshot.tab_id)
        frames = list(seen.frames.items())
        readings = await asyncio.gather(*(_counters_at(tab, path) for path, _ in frames))
        for (path, (document, _)), counters in zip(frames, readings, strict=True):
            if counters is None or str(counters["doc"]) != document:
                continue
            if path == "main" and f"{counters['doc']}.{counters['nav']}" != snapshot.navigation_id:
                return
            seen.frames[path] = (document, int(counters["epoch"]))

    # -- convenience builders ------------------------------------------------------------------------------
    async def navigate(self, url: str, **options: Any) -> ActionResult:
        return await self.execute(Navigate(url=url, **options))

    async def click(self, snapshot: PageSnapshot, ref: str, **options: Any) -> ActionResult:
        return await self.execute(Click(snapshot_id=snapshot.snapshot_id, target=_target_of(snapshot, ref), **options))

    async def fill(self, snapshot: PageSnapshot, ref: str, value: str | SecretText, **options: Any) -> ActionResult:
        return await self.execute(
            Fill(snapshot_id=snapshot.snapshot_id, target=_target_of(snapshot, ref), value=value, **options)
        )

    async def select(self, snapshot: PageSnapshot, ref: str, option: str, **options: Any) -> ActionResult:
        return await self.execute(
            Select(snapshot_id=snapshot.snapshot_id, target=_target_of(snapshot, ref), option=option, **options)
        )

    # -- executing ---------------------------------------------------------------------------------------------
    async def execute(self, action: Action) -> ActionResult:
        """Run ``action``; return only when its postcondition held, else raise a BrowserError."""
        seen = self._seen_for(action)
        tab = await self._tab(action.tab_id or (seen.snapshot.tab_id if seen else None))
        step = _Step(next(self._indexes), action, tab, tab.page.url, datetime.now(UTC), time.perf_counter())
        if self.recorder is not None:
            await self.recorder.intent(
                ActionIntent(
                    run_id=self.run.config.run_id,
                    action_index=step.index,
                    kind=action.kind,
                    action=redact_action(action),
                    at=step.started_at,
                )
            )
        try:
            result = await asyncio.wait_for(self._run(step, seen), action.timeout_ms / 1000 + _GRACE_S)
        except TimeoutError as exc:
            error = ActionTimeoutError(f"The {action.kind} action did not finish in time; observe the page again.")
            await self._record(step, "timeout", error)
            raise error from exc
        except BrowserError as exc:
            await self._record(step, _outcome_of(exc), exc)
            raise
        recording = asyncio.ensure_future(self._finish(step, self._recording))
        recording.add_done_callback(retrieved)  # raised again by settled(), not left to the loop's log
        self._recording = recording
        if not self.background_evidence:
            await self.settled()
        return result

    @property
    def writing(self) -> bool:
        """True while an action's after-shot or record is still being finished in the background."""
        return self._recording is not None and not self._recording.done()

    async def settled(self) -> None:
        """Return once every action's after-shot is taken and its record written (see the module); raises what
        writing a record raised (the evidence store failing). A caller cancelled meanwhile leaves the writing
        going on, for the next call to wait for."""
        recording = self._recording
        if recording is None:
            return
        try:
            await asyncio.shield(recording)
        finally:
            if recording.done() and self._recording is recording:
                self._recording = None

    async def discard(self) -> None:
        """Stop the after-shot and record still in progress (the run's browser closes before its step ended:
        the step is not committed, so neither is its record)."""
        pending = [p for p in (self._shooting, self._recording) if p is not None and not p.done()]
        for future in pending:
            future.cancel()
        if pending:
            await asyncio.wait(pending)
        self._shooting = self._recording = self._painted = None

    async def _run(self, step: _Step, seen: _Seen | None) -> ActionResult:
        action = step.action
        if step.tab.pending_dialog is not None and not isinstance(action, AcceptDialog | DismissDialog | SwitchTab):
            raise InvalidActionError(
                f"A {step.tab.pending_dialog.type} dialog is open in tab {step.tab.tab_id} and blocks the page; "
                "accept or dismiss it first."
            )
        shots = self.screenshots and not isinstance(action, AcceptDialog | DismissDialog | WaitFor | Extract)
        if self._painted is not None:  # the previous after-shot's masks are up: what it shows is known
            await asyncio.wait([self._painted])
            self._painted = None
        if shots and self._last_shot is not None:  # the page as this action finds it, before resolution scrolls
            step.shared_before = await self._unchanged_since(step.tab, self._last_shot)
        target = await self._prepare(step, seen)
        await self._shot_taken()  # from here on the page may change
        if shots and step.shared_before is not None:
            step.before = step.shared_before.shared()
        if shots and step.before is None:
            step.shared_before = None
            step.before = await capture(step.tab, mask_text_numbers=self.mask_text_numbers)
        # Only this action's own after-shot may be reused later.
        last_shot, self._last_shot = self._last_shot, None
        ctx = OpContext(self.run, step.tab, target, action.timeout_ms / 1000, self._pending_clicks)
        outcome = await self._dispatch(ctx, step, seen)
        step.value_masked = outcome.value_masked
        if seen is not None and target is not None and outcome.counters and not outcome.navigated:
            self._carry_forward(seen, target.fingerprint.frame, outcome.counters)
        if self.screenshots and step.tab.pending_dialog is None and not step.tab.page.is_closed():
            if isinstance(action, WaitFor | Extract) and last_shot is not None:  # reads only: maybe unchanged
                step.shared_after = await self._unchanged_since(step.tab, last_shot, outcome.counters)
                if step.shared_after is not None:
                    self._last_shot = last_shot
            if step.shared_after is None:
                self._start_after(step)
        step.url_after = step.tab.page.url if not step.tab.page.is_closed() else step.url_before
        if step.after_shot is None:
            step.finished = time.perf_counter()
        return ActionResult(
            action_index=step.index,
            kind=action.kind,
            duration_ms=_ms_since(step.started),
            url_before=step.url_before,
            url_after=step.tab.page.url,
            value=outcome.value,
            navigated=outcome.navigated,
            dialog=outcome.dialog,
            download=outcome.download,
            table=outcome.table,
            text=outcome.text,
            snapshot=outcome.snapshot,
            tab_id=self.run.active_tab_id or step.tab.tab_id,
            new_tab_id=outcome.new_tab_id,
        )

    async def _unchanged_since(
        self, tab: Tab, last: tuple[tuple[object, ...], _Shot], now: dict[str, Any] | None = None
    ) -> _Shot | None:
        """The previous action's after-shot when the page provably did not change since: the same frames, each
        with the same document, navigation, DOM change count, URL and scroll positions as when that PNG was taken
        (the pixels are the same). Else None: take a new screenshot. ``now``: the main frame's counters read just
        before by a read-only action, used when the tab has no child frames."""
        nodes = frame_tree(tab.page)
        if now is not None and len(nodes) == 1:
            states: dict[str, dict[str, Any] | None] = {"main": now}
        else:
            readings = await asyncio.gather(*(counters_of(node.frame) for node in nodes))
            states = {node.path: reading for node, reading in zip(nodes, readings, strict=True)}
        key = _shot_key(tab, states)
        return last[1] if key is not None and key == last[0] else None

    def _start_after(self, step: _Step) -> None:
        """Start taking the action's after-shot. As soon as its masks are up, the page state it shows is known and
        the shot becomes the one the next action may share; the PNG follows (awaited by :meth:`_shot_taken`)."""
        painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def on_painted(states: dict[str, dict[str, Any]] | None) -> None:
            key = _shot_key(step.tab, states)
            if key is not None:
                self._last_shot = (key, _Shot(shooting, step.index))
            if not painted.done():
                painted.set_result(None)

        def taken(_: asyncio.Future[Capture | None]) -> None:
            step.finished = time.perf_counter()
            if not painted.done():  # the masks never went up: nothing to share
                painted.set_result(None)

        shooting = asyncio.ensure_future(self._capture_after(step.tab, on_painted))
        shooting.add_done_callback(taken)
        step.after_shot = shooting
        self._painted, self._shooting = painted, shooting

    async def _shot_taken(self) -> None:
        """Wait until the last after-shot's PNG is in (or failed): the page may change from then on."""
        shooting = self._shooting
        if shooting is not None:
            await asyncio.wait([shooting])
            if self._shooting is shooting:
                self._shooting = None

    def _scroll_hook(self) -> Callable[[], Awaitable[None]] | None:
        """What resolution must await before it scrolls a target into view: the after-shot still being taken."""
        return self._shot_taken if self._shooting is not None and not self._shooting.done() else None

    async def _capture_after(
        self, tab: Tab, on_painted: Callable[[dict[str, dict[str, Any]] | None], None] | None = None
    ) -> Capture | None:
        """The after screenshot; its failure is recorded, never raised (the effect already happened). Given up
        when the page opens a native dialog meanwhile (its scripts stop answering until the dialog is closed) or
        after :data:`_SHOT_TIMEOUT_S` (a frozen page): the record is then written without it rather than holding
        up every later record."""
        capturing = asyncio.ensure_future(
            capture_with_state(tab, mask_text_numbers=self.mask_text_numbers, on_painted=on_painted)
        )
        deadline = time.monotonic() + _SHOT_TIMEOUT_S
        try:
            while not capturing.done():
                if tab.pending_dialog is not None or time.monotonic() >= deadline:
                    return None
                await asyncio.wait({capturing}, timeout=_SHOT_POLL_S)
            return capturing.result()
        except BrowserError:
            return None
        finally:
            if not capturing.done():
                capturing.cancel()
                capturing.add_done_callback(retrieved)

    async def _dispatch(self, ctx: OpContext, step: _Step, seen: _Seen | None) -> OpResult:
        action = step.action
        match action:
            case Navigate():
                return await do_navigate(ctx, action)
            case Click():
                return await do_click(ctx, action)
            case Fill():
                return await do_fill(ctx, action)
            case Select():
                return await do_select(ctx, action)
            case Check() | Uncheck():
                return await do_check(ctx, action)
            case Press():
                return await do_press(ctx, action)
            case Upload():
                return await do_upload(ctx, action)
            case Download():
                return await do_download(ctx, action)
            case AcceptDialog():
                return await do_dialog(ctx, action)
            case DismissDialog():
                return await do_dialog(ctx, None)
            case WaitFor():
                return await self._wait_for(ctx, action.condition)
            case Scroll():
                return await self._scroll(ctx, action)
            case SwitchTab():
                return await self._switch_tab(action)
            case Extract():
                return await self._extract(ctx, action, seen)

    # -- target preparation -----------------------------------------------------------------------------------
    def _seen_for(self, action: Action) -> _Seen | None:
        if action.snapshot_id is None:
            return None
        seen = self._seen.get(action.snapshot_id)
        if seen is None:
            raise InvalidActionError(f"Snapshot {action.snapshot_id} is unknown or too old; observe the page again.")
        return seen

    async def _prepare(self, step: _Step, seen: _Seen | None) -> ResolvedTarget | None:
        action = step.action
        if isinstance(action, Upload):
            _check_files(action)
        target: Target | None = getattr(action, "target", None)
        if target is None:
            if seen is not None and not isinstance(action, Navigate | SwitchTab | Extract):
                await self._ensure_fresh(seen, step.tab, "main", None)
            return None
        fingerprint, element = _expected(target, seen)
        step.target = _summary(target.ref, fingerprint, element, None)
        expect = _frame_state(seen, fingerprint.frame) if seen is not None else None
        # A target in a child frame: the main frame must not have changed since the snapshot either; its counters
        # are read while the target is resolved (both before acting).
        main: asyncio.Future[dict[str, Any] | None] | None = None
        if seen is not None and fingerprint.frame != "main":
            main = asyncio.ensure_future(counters_of(step.tab.page.main_frame))
        try:
            resolved = await resolve_target(step.tab, fingerprint, expect, before_scrolling=self._scroll_hook())
        except StaleSnapshotError as exc:
            assert seen is not None
            how = "navigated" if exc.message == "navigated" else "changed"
            raise StaleSnapshotError(
                f"The page {how} since snapshot {seen.snapshot.snapshot_id}; observe again."
            ) from exc
        except TargetRefusedError:
            if main is not None:
                assert seen is not None
                await self._ensure_fresh(seen, step.tab, "main", await main)
            raise
        finally:
            if main is not None and not main.done():
                main.add_done_callback(retrieved)
        if main is not None:
            assert seen is not None
            await self._ensure_fresh(seen, step.tab, "main", await main)
        if self.recorder is not None and element is None:
            step.target = _summary(target.ref, fingerprint, None, await resolved.bbox())
        return resolved

    async def _ensure_fresh(
        self, seen: _Seen, tab: Tab, frame_path: str, frame_counters: dict[str, Any] | None
    ) -> None:
        """Raise StaleSnapshotError if the main frame navigated or the main/target frame changed."""
        snapshot = seen.snapshot
        if tab.tab_id != snapshot.tab_id:
            raise InvalidActionError(f"Snapshot {snapshot.snapshot_id} is of tab {snapshot.tab_id}, not {tab.tab_id}.")
        paths = ["main"] if frame_path == "main" else ["main", frame_path]
        for path in paths:
            counters = frame_counters if path == frame_path and frame_counters else None
            if counters is None:
                counters = await _counters_at(tab, path)
            _check_counters(seen, path, counters)

    def _carry_forward(self, seen: _Seen, frame_path: str, counters: dict[str, Any]) -> None:
        """Mutations caused by our own verified action do not make the snapshot stale."""
        if frame_path in seen.frames and counters.get("doc") == seen.frames[frame_path][0]:
            seen.frames[frame_path] = (str(counters["doc"]), int(counters["epoch"]))

    # -- page-level actions -------------------------------------------------------------------------------
    async def _wait_for(self, ctx: OpContext, condition: Expectation) -> OpResult:
        frame = ctx.tab.page.main_frame
        base = Baseline.take(self.run, ctx.tab, frame, await counters_of(frame) or {})
        missing = await wait_for_expectation(self.run, ctx.tab, condition, base, ctx.timeout_s)
        if missing:
            raise ActionTimeoutError(f"Waited {ctx.timeout_s:.0f} s for {', '.join(missing)}; it did not happen.")
        return OpResult()

    async def _scroll(self, ctx: OpContext, action: Scroll) -> OpResult:
        if ctx.target is None:
            await ctx.tab.page.mouse.wheel(0, action.dy)
        return OpResult(counters=await counters_of(ctx.tab.page.main_frame))

    async def _switch_tab(self, action: SwitchTab) -> OpResult:
        tab = self.run.tab(action.to_tab)
        self.run.active_tab_id = tab.tab_id
        try:
            await tab.page.bring_to_front()
        except PlaywrightError as exc:
            raise InvalidActionError(f"Tab {action.to_tab} closed before it could be shown.") from exc
        return OpResult(value=tab.tab_id, value_masked=tab.tab_id)

    async def _extract(self, ctx: OpContext, action: Extract, seen: _Seen | None) -> OpResult:
        if action.what == "table" and action.observe_roles is not None:
            return await self._extract_table_page(ctx, action)
        if action.what == "table":
            return await do_extract_table(
                ctx, seen.snapshot if seen else None, action.table_id, action.max_rows, (action.caption, action.headers)
            )
        text = await invoke(ctx.tab.page.main_frame, "pageText", 100_000)
        return OpResult(text=str(text))

    async def _extract_table_page(self, ctx: OpContext, action: Extract) -> OpResult:
        """The table's rows and a snapshot of the page they are on, read together (one call per frame): a paged
        table's next page needs no separate observation to find its next-page link."""
        assert action.observe_roles is not None
        page = await read_table_page(
            ctx.tab, (action.caption, action.headers), action.max_rows, action.observe_roles, self.observe_options
        )
        self._remember(page.snapshot)
        if page.table is None:
            raise PostconditionFailedError("The table is not on the page; observe the page again.")
        in_main = page.frame is not None and page.frame.parent is None
        return OpResult(
            table=ExtractedTable(**page.table), snapshot=page.snapshot, counters=page.counters if in_main else None
        )

    async def _tab(self, tab_id: str | None) -> Tab:
        if tab_id is None and not self.run.tabs:
            return await self.run.new_tab()
        return self.run.tab(tab_id)

    # -- evidence -------------------------------------------------------------------------------------------
    async def _finish(self, step: _Step, previous: asyncio.Future[None] | None) -> None:
        """Record a successful action once its after-shot is in, after the actions before it."""
        if previous is not None:
            await previous
        if step.after_shot is not None:
            taken = await step.after_shot
            step.after = taken.shot if taken is not None else None
        elif step.shared_after is not None:
            step.after = step.shared_after.shared()
        await self._write(step, "ok", None)

    async def _record(self, step: _Step, outcome: Outcome, error: BrowserError | None) -> None:
        """Record a failed action (after the records of the actions before it, and so after their after-shots)."""
        await self.settled()
        if step.before is None and step.shared_before is not None:
            step.before = step.shared_before.shared()
        if self.recorder is None:
            return
        if error is not None and self.screenshots and step.before is None and step.tab.pending_dialog is None:
            failed = await self._capture_after(step.tab)
            step.before = failed.shot if failed is not None else None
        await self._write(step, outcome, error)

    async def _write(self, step: _Step, outcome: Outcome, error: BrowserError | None) -> None:
        if self.recorder is None:
            return
        closed = step.tab.page.is_closed()
        url_after = step.url_after or (step.tab.page.url if not closed else step.url_before)
        await self.recorder.record(
            ActionRecord(
                run_id=self.run.config.run_id,
                action_index=step.index,
                kind=step.action.kind,
                action=redact_action(step.action),
                target=step.target,
                value_masked=step.value_masked,
                screenshot_before=step.before,
                screenshot_after=step.after,
                url_before=step.url_before,
                url_after=url_after,
                started_at=step.started_at,
                duration_ms=((step.finished or time.perf_counter()) - step.started) * 1000,
                outcome=outcome,
                error_code=error.code if error else None,
                error_message=error.message if error else None,
            )
        )


async def _counters_at(tab: Tab, path: str) -> dict[str, Any] | None:
    frame = find_frame(tab.page, path)
    return await counters_of(frame) if frame is not None else None


def _shot_key(tab: Tab, states: Mapping[str, dict[str, Any] | None] | None) -> tuple[object, ...] | None:
    """Identity of what a tab shows (every frame's state, by path), for reusing a screenshot; None when unknown."""
    if not states or any(not counters for counters in states.values()):
        return None
    frames = tuple(
        (
            path,
            c.get("url"),
            c.get("doc"),
            c.get("nav"),
            c.get("changes"),
            tuple(c.get("scroll") or ()),
            c.get("scrolls"),
        )
        for path, c in sorted(states.items())
        if c is not None
    )
    return (tab.tab_id, frames)


def _target_of(snapshot: PageSnapshot, ref: str) -> Target:
    element = snapshot.element(ref)
    if element is None:
        raise InvalidActionError(_unknown_ref(snapshot, ref))
    return Target(ref=ref, fingerprint=element.fingerprint)


def _unknown_ref(snapshot: PageSnapshot, ref: str) -> str:
    last = snapshot.elements[-1].ref if snapshot.elements else None
    span = f"e1…{last}" if last else "none"
    return f"Snapshot {snapshot.snapshot_id} has no element {ref!r} (its refs are {span}); pick one it lists."


def _expected(target: Target, seen: _Seen | None) -> tuple[Fingerprint, ElementInfo | None]:
    if seen is None:
        if target.fingerprint is None:
            raise InvalidActionError("An action without a snapshot must carry the target's fingerprint.")
        return target.fingerprint, None
    if target.ref is None:
        if target.fingerprint is None:  # pragma: no cover - Target validates this
            raise InvalidActionError("The target needs a ref or a fingerprint.")
        return target.fingerprint, None
    element = seen.snapshot.element(target.ref)
    if element is None:
        raise InvalidActionError(_unknown_ref(seen.snapshot, target.ref))
    if target.fingerprint is not None and target.fingerprint != element.fingerprint:
        raise refuse("fingerprint_mismatch", target.fingerprint)
    return element.fingerprint, element


def _summary(
    ref: str | None, fp: Fingerprint, element: ElementInfo | None, bbox: tuple[int, int, int, int] | None
) -> TargetSummary:
    return TargetSummary(
        ref=ref, role=fp.role, name=fp.name, fingerprint=fp, bbox=bbox or (element.bbox if element else None)
    )


def _frame_state(seen: _Seen, path: str) -> FrameState:
    accepted = seen.frames.get(path)
    if accepted is None:
        raise StaleSnapshotError(
            f"Snapshot {seen.snapshot.snapshot_id} has no frame {path!r} any more; observe the page again."
        )
    nav = int(seen.snapshot.navigation_id.rsplit(".", 1)[1]) if path == "main" else None
    return FrameState(document=accepted[0], epoch=accepted[1], nav=nav)


def _check_counters(seen: _Seen, path: str, counters: dict[str, Any] | None) -> None:
    snapshot = seen.snapshot
    if counters is None:
        raise StaleSnapshotError(f"The page of snapshot {snapshot.snapshot_id} is gone (it navigated); observe again.")
    if path == "main" and f"{counters['doc']}.{counters['nav']}" != snapshot.navigation_id:
        raise StaleSnapshotError(f"The page navigated since snapshot {snapshot.snapshot_id}; observe again.")
    accepted = seen.frames.get(path)
    if accepted is None or accepted != (str(counters["doc"]), int(counters["epoch"])):
        raise StaleSnapshotError(f"The page changed since snapshot {snapshot.snapshot_id}; observe again.")


def _check_files(action: Upload) -> None:
    for path in action.files:
        if not path.is_file():
            raise InvalidActionError(f"The file to upload {path.name!r} does not exist; check the run's inputs.")


def _outcome_of(exc: BrowserError) -> Outcome:
    if isinstance(exc, StaleSnapshotError):
        return "stale"
    if isinstance(exc, TargetRefusedError):
        return "refused"
    if isinstance(exc, InvalidActionError):
        return "invalid"
    if isinstance(exc, ActionTimeoutError):
        return "timeout"
    return "failed"


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)

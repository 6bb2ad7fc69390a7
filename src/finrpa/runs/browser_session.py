"""A run's browser, created when its first step needs it, and rebuilt from the checkpoint on resume.

On resume the session (cookies, localStorage) and the last URL come from the run's checkpoint, so a new worker
continues where the last commit left off; the page is checked, and only if the portal shows its login form again
does the run sign in again (the executor re-runs the run's login step).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from playwright.async_api import Error as PlaywrightError

from finrpa.agents.events import EventType
from finrpa.browser import (
    BrowserEvent,
    BrowserManager,
    Controller,
    EgressBlocked,
    ObserveOptions,
    RunBrowser,
    RunBrowserConfig,
)
from finrpa.browser.errors import BrowserError
from finrpa.browser.session_state import SessionState
from finrpa.kit.tasks import drop
from finrpa.runs.evidence import EvidenceRecorder
from finrpa.runs.repository import NewEvent
from finrpa.skills.portal_state import has_password_field

logger = logging.getLogger(__name__)
_TAB_REQUEST_WAIT_S = 1.0  # a bound on waiting for the warming-up session's first request (the browser is slow)


class BrowserSession:
    def __init__(
        self,
        manager: BrowserManager,
        config: RunBrowserConfig,
        recorder: EvidenceRecorder,
        *,
        screenshots: bool = True,
        resume_url: str | None = None,
    ) -> None:
        self.manager = manager
        self.config = config
        self.recorder = recorder
        self.screenshots = screenshots
        self.resume_url = resume_url
        self.session_lost = False
        self._run: RunBrowser | None = None
        self._controller: Controller | None = None
        self._opening: asyncio.Future[RunBrowser] | None = None  # started by warm_up, taken over by ensure
        self._tab_requested = asyncio.Event()  # set once the warming-up context has asked for its first tab
        # The last export: (actions recorded, URL) when it was taken, and the storage state JSON.
        self._exported: tuple[tuple[int, str | None], str] | None = None

    @property
    def started(self) -> bool:
        return self._run is not None

    def warm_up(self) -> None:
        """Start opening the run's context and first tab now, in the background: the browser spends a few hundred
        milliseconds on them (a renderer process starts) while the run's records are still being read and its
        first step prepared. The first :meth:`ensure` takes the result over; :meth:`close` closes it if no step
        ever did."""
        if self._run is None and self._opening is None:
            self._opening = asyncio.ensure_future(self._open(first_tab=True))

    async def tab_requested(self) -> None:
        """Return once the warming-up session has asked the browser for its first tab (or its opening ended, or at
        once when it is not warming up). The browser then starts the tab's renderer on its own: a caller about to
        do work that holds this process (the embedded database answers in it) lets the opening get that far
        first, rather than hold up the context's own requests until that work is done."""
        opening = self._opening
        if opening is None or opening.done() or self._tab_requested.is_set():
            return
        requested: asyncio.Future[Any] = asyncio.ensure_future(self._tab_requested.wait())
        waits: set[asyncio.Future[Any]] = {opening, requested}
        try:
            await asyncio.wait(waits, timeout=_TAB_REQUEST_WAIT_S, return_when=asyncio.FIRST_COMPLETED)
        finally:
            requested.cancel()

    async def _open(self, *, first_tab: bool) -> RunBrowser:
        run = await self.manager.new_run(self.config, event_sink=self._on_event)
        if first_tab:
            creating = asyncio.ensure_future(run.new_tab())
            try:
                await asyncio.sleep(0)  # the task's first step sends the browser the request for the tab
                self._tab_requested.set()
                await creating
            except BaseException:
                drop(creating)  # cancelled with the opening: the tab closes with the run's context
                await run.close()
                raise
        return run

    async def ensure(self) -> tuple[RunBrowser, Controller]:
        if self._run is None or self._controller is None:
            opening, self._opening = self._opening, None
            self._run = await (opening if opening is not None else self._open(first_tab=False))
            # Runs find elements by label and fingerprint, never by the DOM digest: observing skips serialising and
            # hashing the whole document (large on result tables) for every snapshot.
            self._controller = Controller(
                self._run,
                recorder=self.recorder,
                screenshots=self.screenshots,
                observe_options=ObserveOptions(dom_digest=False),
                # An action's after-shot and record finish while the next is prepared; settled() before reading
                # the recorder.
                background_evidence=True,
            )
            if self.resume_url:
                await self._controller.navigate(self.resume_url)
                self.session_lost = has_password_field(await self._controller.observe())
        return self._run, self._controller

    async def settled(self) -> None:
        """Return once every browser action so far is recorded (call before draining the recorder)."""
        if self._controller is not None:
            await self._controller.settled()

    def _on_event(self, event: BrowserEvent) -> None:
        if isinstance(event, EgressBlocked):
            payload = {
                "url": event.url,
                "host": event.host,
                "resource_type": event.resource_type,
                "subtask_id": self.recorder.subtask_id,
            }
            self.recorder.add_event(NewEvent(EventType.EGRESS_BLOCKED, payload))

    def current_url(self) -> str | None:
        """The active tab's URL, None before the first step."""
        if self._run is None or self._run.closed or not self._run.tabs:
            return None
        return self._run.active_tab.page.url

    async def checkpoint(self) -> tuple[str | None, str | None]:
        """(storage state as JSON, current URL) of a started session; (None, None) before the first step.

        The storage state is exported again only when the browser acted since the last export (a step that
        only decided, waited for an approval or computed keeps the session the last checkpoint sealed)."""
        if self._run is None or self._run.closed:
            return None, None
        # While the step's last records are still being written (the step acted; the records do not touch the
        # session), the export is asked for meanwhile; it is dropped should the mark show no change after all.
        writing = self._controller is not None and self._controller.writing
        exporting = asyncio.ensure_future(self._run.export_storage_state()) if writing else None
        try:
            await self.settled()  # the mark counts recorded actions
            url = self._run.active_tab.page.url if self._run.tabs else None
            mark = (self.recorder.action_count, url)
            if self._exported is not None and self._exported[0] == mark:
                return self._exported[1], url
            state = await (exporting or self._run.export_storage_state())
        finally:
            if exporting is not None:
                drop(exporting)  # no-op once awaited
        storage_json = json.dumps(state.model_dump(mode="json"))
        self._exported = (mark, storage_json)
        return storage_json, url

    async def close(self) -> None:
        opening, self._opening = self._opening, None
        if opening is not None:  # warmed up, never used: wait for it (a cancelled open could leave a context)
            try:
                await (await opening).close()
            except (PlaywrightError, BrowserError, OSError) as exc:  # nothing ran in it: only the log needs it
                logger.warning("The run's browser, opened ahead and never used, failed: %s", exc)
        if self._controller is not None:
            await self._controller.discard()
        if self._run is not None:
            await self._run.close()
        self._run = None
        self._controller = None
        self._exported = None


def restored_storage(raw: str | None) -> Any:
    """Playwright storage state from a checkpoint's JSON, or None."""
    if not raw:
        return None
    return SessionState.model_validate_json(raw).to_playwright()

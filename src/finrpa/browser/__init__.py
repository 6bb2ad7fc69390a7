"""Browser runtime: Chromium management, page snapshots, verified actions, masked screenshots, downloads.

Public API (import from ``finrpa.browser``)::

    manager = BrowserManager()                      # one Chromium per worker
    await manager.start()
    run = await manager.new_run(RunBrowserConfig(run_id=..., downloads_dir=..., portal_urls=[...]),
                                event_sink=callback)  # one isolated context per run (egress allowlist)
    ctl = Controller(run, recorder=recorder, screenshots=True)
    await ctl.navigate("https://portal/login")
    snap = await ctl.observe()                       # PageSnapshot: elements with refs + fingerprints
    print(render_snapshot(snap, token_budget=2000))  # compact text for an LLM
    user = snap.find(name="用户名")[0]
    await ctl.fill(snap, user.ref, "alice")          # or ctl.execute(Fill(...)) with any Action model
    await ctl.fill(snap, pw.ref, SecretText(pw))     # masked everywhere, revealed only when typed
    await ctl.click(snap, login.ref, expect=Expectation(url_contains="/home"))
    state = await run.export_storage_state()         # checkpoint the session; RunBrowserConfig restores it
    await run.close(); await manager.close()

Safety: an action naming a snapshot is refused with :class:`StaleSnapshotError` when the page navigated
or changed significantly since (mutations caused by the controller's own verified actions excepted);
element actions re-resolve the target by fingerprint and refuse with :class:`TargetRefusedError`
(``reason``: not_found, ambiguous, occluded, disabled, fingerprint_mismatch, detached); every write's
postcondition is checked (:class:`PostconditionFailedError`). Errors are documented in ``errors.py``.

"Significant" means nodes added or removed, or disabled/hidden/aria-hidden/aria-disabled/open/inert/type
attributes changed, in the main frame or the target's frame; style/class-only changes do not count (the
re-resolution catches what they do to the target). An action with a ``Target(fingerprint=...)`` and no
``snapshot_id`` (an action-cache replay) skips the staleness check but not the re-resolution.

More: ``Controller.read(target)`` reads a field without acting; ``Controller.wait_for_page_change(snap, s)``
waits (without acting) until the page moved on from a snapshot, for polls of content still loading;
``Extract(what="table", caption=..., headers=..., observe_roles=[...])`` reads a table page's rows and a
snapshot of its elements of those roles in one call (a paged table's next-page link);
``Controller.accept_own_changes(snap)`` keeps a snapshot usable after a helper's own verified popup work;
``widgets.pick_date`` / ``widgets.choose_option`` drive custom date pickers and dropdowns;
``dom_clean.clean_dom`` / ``dom_hash`` give the action cache a page signature; ``downloads.sniff_media_type``
types files by bytes.
"""

from finrpa.browser.actions import (
    AcceptDialog,
    Action,
    ActionResult,
    Check,
    Click,
    DismissDialog,
    Download,
    ElementExpectation,
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
from finrpa.browser.controller import Controller, ElementReading
from finrpa.browser.dom_clean import clean_dom, dom_hash
from finrpa.browser.downloads import DownloadedFile
from finrpa.browser.egress import EgressAllowlist
from finrpa.browser.errors import (
    ActionTimeoutError,
    BrowserError,
    BrowserUnavailableError,
    DownloadRejectedError,
    EgressDeniedError,
    InvalidActionError,
    PostconditionFailedError,
    RefusalReason,
    StaleSnapshotError,
    TargetRefusedError,
)
from finrpa.browser.events import BrowserEvent, EgressBlocked, EventSink
from finrpa.browser.observe import ObserveOptions
from finrpa.browser.records import ActionIntent, ActionRecord, ActionRecorder, Screenshot, TargetSummary
from finrpa.browser.render import estimate_tokens, render_snapshot
from finrpa.browser.runtime import BrowserManager, RunBrowser, RunBrowserConfig, Tab
from finrpa.browser.session_state import SessionState
from finrpa.browser.snapshot import ElementInfo, Fingerprint, PageSnapshot
from finrpa.kit.secret_text import SecretText

__all__ = [
    "AcceptDialog",
    "Action",
    "ActionIntent",
    "ActionRecord",
    "ActionRecorder",
    "ActionResult",
    "ActionTimeoutError",
    "BrowserError",
    "BrowserEvent",
    "BrowserManager",
    "BrowserUnavailableError",
    "Check",
    "Click",
    "Controller",
    "DismissDialog",
    "Download",
    "DownloadRejectedError",
    "DownloadedFile",
    "EgressAllowlist",
    "EgressBlocked",
    "EgressDeniedError",
    "ElementExpectation",
    "ElementInfo",
    "ElementReading",
    "EventSink",
    "Expectation",
    "Extract",
    "ExtractedTable",
    "Fill",
    "Fingerprint",
    "InvalidActionError",
    "Navigate",
    "ObserveOptions",
    "PageSnapshot",
    "PostconditionFailedError",
    "Press",
    "RefusalReason",
    "RunBrowser",
    "RunBrowserConfig",
    "Screenshot",
    "Scroll",
    "SecretText",
    "Select",
    "SessionState",
    "StaleSnapshotError",
    "SwitchTab",
    "Tab",
    "Target",
    "TargetRefusedError",
    "TargetSummary",
    "Uncheck",
    "Upload",
    "WaitFor",
    "clean_dom",
    "dom_hash",
    "estimate_tokens",
    "render_snapshot",
]

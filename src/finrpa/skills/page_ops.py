"""What skills do to a page, by the labels a person sees: find, fill, choose, click, read.

Every operation goes through the verified controller (stale snapshots refused, targets re-resolved by
fingerprint, postconditions checked, evidence recorded). A label that is not on the page yet is looked for
again until ``wait_s`` runs out (portals load slowly); an ambiguous label is refused at once.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path

from finrpa.browser import (
    Action,
    ActionResult,
    Check,
    Click,
    Controller,
    ElementInfo,
    Expectation,
    Extract,
    Fill,
    PageSnapshot,
    SecretText,
    Select,
    StaleSnapshotError,
    Target,
    TargetRefusedError,
    Uncheck,
    Upload,
    widgets,
)
from finrpa.skills.portal_state import raise_if_transient
from finrpa.skills.resolve import (
    CLICKABLE,
    FILLABLE,
    NAVIGABLE,
    AmbiguousFieldError,
    FieldNotFoundError,
    normalise,
    resolve_element,
    synonyms_of,
)

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TRUE = {"true", "1", "yes", "y", "on", "是", "checked"}
_POLL_S = 0.15
_MIN_POLL_GAP_S = 0.03  # a page that changes all the time (a ticking clock) is not observed more often than this
_ATTEMPTS = 3
_KEEPS_PAGE = frozenset({"fill", "select", "check", "uncheck", "upload"})


class PageOps:
    def __init__(self, controller: Controller, *, wait_s: float = 10.0) -> None:
        self.controller = controller
        self.wait_s = wait_s
        # The last snapshot, reused while only our own verified fills/selects changed the page (the controller
        # accepts actions naming it then); dropped after anything that may navigate or re-render.
        self._last: PageSnapshot | None = None

    async def observe(self) -> PageSnapshot:
        self._last = await self.controller.observe()
        return self._last

    async def locate(
        self, label: str, roles: frozenset[str] | None, *, wait_s: float | None = None
    ) -> tuple[PageSnapshot, ElementInfo]:
        """Observe until ``label`` resolves to one element; ambiguity is refused immediately."""
        if self._last is not None:
            try:
                return self._last, resolve_element(self._last, label, roles)
            except FieldNotFoundError:
                pass
        deadline = time.monotonic() + (self.wait_s if wait_s is None else wait_s)
        while True:
            snapshot = await self.observe()
            try:
                return snapshot, resolve_element(snapshot, label, roles)
            except FieldNotFoundError:
                raise_if_transient(snapshot)  # an error page will not grow the field: say so at once
                if time.monotonic() >= deadline:
                    raise
            await self.pause(snapshot, deadline)

    async def pause(self, snapshot: PageSnapshot, deadline: float) -> None:
        """Before observing again for something ``snapshot`` did not show yet: wait until the page changes (at
        most _POLL_S, never past ``deadline``), so content that arrives is seen at once rather than a fixed
        pause later."""
        started = time.monotonic()
        await self.controller.wait_for_page_change(snapshot, max(0.0, min(_POLL_S, deadline - started)))
        rest = _MIN_POLL_GAP_S - (time.monotonic() - started)
        if rest > 0:
            await asyncio.sleep(rest)

    async def current(self) -> PageSnapshot:
        """The last snapshot while it still describes the page, else a fresh one."""
        return self._last if self._last is not None else await self.observe()

    @property
    def url(self) -> str:
        return self.controller.run.active_tab.page.url

    async def present(self, label: str, roles: frozenset[str] | None = None) -> ElementInfo | None:
        """The element ``label`` means on the current page, or None (no waiting)."""
        try:
            return resolve_element(await self.current(), label, roles)
        except (FieldNotFoundError, AmbiguousFieldError):
            return None

    async def act_on(
        self,
        label: str,
        roles: frozenset[str] | None,
        build: Callable[[PageSnapshot, ElementInfo], Action],
        *,
        located: tuple[PageSnapshot, ElementInfo] | None = None,
    ) -> ActionResult:
        """Resolve ``label`` on a fresh snapshot and run the action built for it. If the page moves on
        between observing and acting (still loading, re-rendered), observe again: up to three times."""
        for attempt in range(_ATTEMPTS):
            snapshot, element = located if located is not None and attempt == 0 else await self.locate(label, roles)
            action = build(snapshot, element)
            try:
                result = await self.controller.execute(action)
                if action.kind not in _KEEPS_PAGE:
                    self._last = None
                return result
            except StaleSnapshotError:
                self._last = None
                if attempt == _ATTEMPTS - 1:
                    raise
            except TargetRefusedError as exc:
                self._last = None
                if exc.reason not in ("not_found", "detached") or attempt == _ATTEMPTS - 1:
                    raise
            await asyncio.sleep(_POLL_S)
        raise AssertionError("unreachable")

    async def click(
        self, label: str, *, roles: frozenset[str] = CLICKABLE, expect: Expectation | None = None
    ) -> ActionResult:
        return await self.act_on(
            label,
            roles,
            lambda snapshot, element: Click(snapshot_id=snapshot.snapshot_id, target=_target(element), expect=expect),
        )

    async def navigate_menu(self, labels: list[str]) -> None:
        """Follow a menu path by visible names (e.g. ["账户明细查询"]); a label already open is skipped."""
        for label in labels:
            await self.click(label, roles=NAVIGABLE)

    async def set_field(self, label: str, value: object, *, sensitive: bool = False) -> None:
        """Give the field ``label`` the value, whatever widget the portal uses, and verify it took."""
        roles = FILLABLE | {"button"}
        located = await self.locate(label, roles)
        _, element = located
        text = value.reveal() if isinstance(value, SecretText) else str(value)
        if element.role == "radio" and text.lower() not in _TRUE:
            await self._choose_radio(text)
            return
        # The widget helpers accept their own verified changes (a calendar or a list opened and closed), so the
        # snapshot stays usable for the next field; should one fail, the next operation observes afresh.
        if _DATE.match(text) and element.type not in ("checkbox", "radio", "file"):
            await self._with_widget(
                widgets.pick_date(self.controller, located[0], element.ref, date.fromisoformat(text))
            )
            return
        if _custom_dropdown(element):
            await self._with_widget(widgets.choose_option(self.controller, located[0], element.ref, text))
            return

        typed: str | SecretText = value if isinstance(value, SecretText) else text
        masked = sensitive or isinstance(value, SecretText)

        def build(snapshot: PageSnapshot, element: ElementInfo) -> Action:
            sid, target = snapshot.snapshot_id, _target(element)
            if element.tag == "select":
                return Select(snapshot_id=sid, target=target, option=text)
            if element.type == "file":
                return Upload(snapshot_id=sid, target=target, files=[Path(text)])
            if element.role in ("checkbox", "radio"):
                action = Check if text.lower() in _TRUE else Uncheck
                return action(snapshot_id=sid, target=target)
            return Fill(snapshot_id=sid, target=target, value=typed, sensitive=masked)

        await self.act_on(label, roles, build, located=located)

    async def _with_widget(self, helper: Awaitable[object]) -> None:
        try:
            await helper
        except BaseException:
            self._last = None
            raise

    async def _choose_radio(self, option: str) -> None:
        await self.act_on(
            option,
            frozenset({"radio"}),
            lambda snapshot, element: Check(snapshot_id=snapshot.snapshot_id, target=_target(element)),
        )

    async def read_value(self, label: str) -> str | None:
        """The value shown next to ``label`` on a result page (a key/value table row or "label: value"). The last
        snapshot is read first while it still describes the page (a submit's result page was just observed); a
        fresh one when that shows no such value."""
        if self._last is not None:
            value = await self._read_value_on(self._last, label)
            if value is not None:
                return value
        return await self._read_value_on(await self.observe(), label)

    async def _read_value_on(self, snapshot: PageSnapshot, label: str) -> str | None:
        wanted = {normalise(variant) for variant in synonyms_of(label)}
        for table in snapshot.tables:
            extracted = await self.controller.execute(
                Extract(snapshot_id=snapshot.snapshot_id, what="table", table_id=table.table_id)
            )
            if extracted.table is None:
                continue
            for row in extracted.table.rows:
                for index, cell in enumerate(row[:-1]):
                    if normalise(cell) in wanted and row[index + 1].strip():
                        return row[index + 1].strip()
        text = await self.controller.execute(Extract(snapshot_id=snapshot.snapshot_id, what="text"))
        for variant in synonyms_of(label):
            match = re.search(re.escape(variant) + r"\s*[:：]?\s*([A-Za-z0-9][\w\-/.]*)", text.text or "")
            if match:
                return match.group(1)
        return None

    async def text_visible(self, text: str) -> bool:
        snapshot = await self.observe()
        return any(variant in snapshot.text for variant in synonyms_of(text))


def _custom_dropdown(element: ElementInfo) -> bool:
    """A listbox built from divs (not a <select>, not a text box): open it, then choose the option."""
    if element.tag in ("select", "input", "textarea"):
        return False
    return element.role in ("combobox", "listbox") or (element.role == "button" and element.expanded is not None)


def _target(element: ElementInfo) -> Target:
    return Target(ref=element.ref, fingerprint=element.fingerprint)

"""Recognise what state a portal is in: a transient error page, a login form (from a snapshot), and what
its page says after a step did not lead where it should (read on demand)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass

from finrpa.browser import BrowserError, PageSnapshot, SecretText, Tab
from finrpa.browser.page_messages import MessageKind, read_page_messages
from finrpa.kit.secret_text import MASK
from finrpa.skills.base import SkillError

# Pages that say "try again later": the step may succeed if retried.
TRANSIENT_PAGE_TEXTS = (
    "系统繁忙",
    "请稍后再试",
    "服务暂时不可用",
    "系统维护中",
    "网络异常，请重试",
    "The system is busy",
    "try again later",
    "Service Unavailable",
    "Internal Server Error",
    "Bad Gateway",
)


class PortalBusyError(SkillError):
    code = "portal_busy"
    retryable = True


def transient_error(snapshot: PageSnapshot) -> str | None:
    """The phrase that marks this page as a transient error page, if it is one."""
    haystack = f"{snapshot.title}\n{snapshot.text[:2000]}"
    return next((phrase for phrase in TRANSIENT_PAGE_TEXTS if phrase in haystack), None)


def raise_if_transient(snapshot: PageSnapshot) -> None:
    phrase = transient_error(snapshot)
    if phrase is not None:
        raise PortalBusyError(f"The portal answered with a temporary error page ({phrase!r}) at {snapshot.url}.")


def has_password_field(snapshot: PageSnapshot) -> bool:
    return any(e.type == "password" and e.visible for e in snapshot.elements)


def alert_text(snapshot: PageSnapshot) -> str:
    """Text of the alerts (role=alert or status) a snapshot lists, for error reports. Snapshots list only what
    can be acted on, so most alerts are not there: :func:`read_portal_reply` reads them all, on demand."""
    alerts = [e.name for e in snapshot.elements if e.role in ("alert", "status") and e.name]
    return "; ".join(alerts)


@dataclass(frozen=True)
class PortalReply:
    """What the page says: its alerts (errors) and status lines, masked; ``unreadable`` says why nothing
    could be read."""

    alerts: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    unreadable: str | None = None

    def describe(self) -> str:
        """The page's words for an error report ("" when it said nothing)."""
        if self.alerts:
            return "; ".join(self.alerts)
        if self.statuses:
            return "the page shows: " + "; ".join(self.statuses)
        return f"its messages could not be read ({self.unreadable})" if self.unreadable else ""


async def read_portal_reply(
    tab: Tab, *, hide: Iterable[str | SecretText] = (), wait_s: float = 0.0, poll_s: float = 0.25
) -> PortalReply:
    """The portal's visible messages on ``tab``, with every value in ``hide`` (secrets, sensitive fields)
    masked. Waits up to ``wait_s`` for an alert to show: a single-page portal answers a submit with a toast
    after its request returns."""
    deadline = time.monotonic() + wait_s
    hidden = list(hide)
    while True:
        try:
            messages = await read_page_messages(tab)
        except BrowserError as exc:
            return PortalReply(unreadable=exc.message)
        alerts = tuple(mask_values(m.text, hidden) for m in messages if m.kind is MessageKind.ALERT)
        if alerts or time.monotonic() >= deadline:
            statuses = tuple(mask_values(m.text, hidden) for m in messages if m.kind is MessageKind.STATUS)
            return PortalReply(alerts, statuses)
        await asyncio.sleep(poll_s)


def mask_values(text: str, values: Iterable[str | SecretText]) -> str:
    """``text`` with each of ``values`` (what was typed into secret or sensitive fields) replaced by the
    mask; longer values first, so a value containing another is masked whole."""
    plain = {value.reveal() if isinstance(value, SecretText) else value for value in values}
    for value in sorted((v for v in plain if v.strip()), key=len, reverse=True):
        text = text.replace(value, MASK)
    return text

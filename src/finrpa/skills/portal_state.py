"""Recognise what state a portal is in from a snapshot: a transient error page, a login form."""

from __future__ import annotations

from finrpa.browser import PageSnapshot
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
    """Text of visible alerts/error messages (role=alert or status), for error reports."""
    alerts = [e.name for e in snapshot.elements if e.role in ("alert", "status") and e.name]
    return "; ".join(alerts)

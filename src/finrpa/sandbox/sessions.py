"""Server-side login sessions, one cookie per portal (path-scoped like separate sites), with idle expiry."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from finrpa.sandbox.directory import Portal

COOKIE_NAMES: dict[Portal, str] = {
    "bank": "BANKSESSIONID",
    "insurance": "INS_SID",
    "securities": "SEC_JSESSIONID",
}


@dataclass
class Session:
    sid: str
    portal: Portal
    last_seen: float
    user: str | None = None
    pending_user: str | None = None  # passed the password, waits for the TOTP step
    captcha: str | None = None
    notice: str | None = None  # a one-time message for the next page
    form_tokens: set[str] = field(default_factory=set)
    results: dict[str, str] = field(default_factory=dict)  # spent form token -> the reference it produced

    def issue_token(self) -> str:
        """A one-time token a write form carries so a repeated submission is recognised."""
        token = secrets.token_urlsafe(12)
        self.form_tokens.add(token)
        return token

    def spend_token(self, token: str) -> bool:
        """True the first time `token` is spent, False for an unknown or already used token."""
        if token in self.form_tokens:
            self.form_tokens.discard(token)
            return True
        return False

    def remember_result(self, token: str, reference: str) -> None:
        self.results[token] = reference

    def result_of(self, token: str) -> str | None:
        """The reference an already submitted form produced (a repeated submission shows it again)."""
        return self.results.get(token)

    def take_notice(self) -> str | None:
        notice, self.notice = self.notice, None
        return notice


class SessionStore:
    """Sessions by id; an authenticated session idle for longer than the timeout loses its login."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def get_or_create(self, portal: Portal, sid: str | None) -> Session:
        with self._lock:
            session = self._sessions.get(sid or "")
            if session is None or session.portal != portal:
                session = Session(secrets.token_urlsafe(18), portal, self._clock())
                self._sessions[session.sid] = session
            return session

    def touch(self, session: Session, timeout_s: float) -> bool:
        """Record activity; return False (and log the user out) when the session had been idle too long."""
        now = self._clock()
        expired = timeout_s > 0 and session.user is not None and now - session.last_seen > timeout_s
        session.last_seen = now
        if expired:
            session.user = session.pending_user = None
            session.form_tokens.clear()
        return not expired

    def clear(self) -> None:
        with self._lock:
            self._sessions.clear()

"""Errors of the browser runtime.

Every error derives from :class:`BrowserError` (a :class:`~finrpa.exceptions.FinRPAError`), so the API and
the CLI map them like any other FinRPA error. ``retryable`` says whether re-observing and trying again may
help.

Tree::

    BrowserError
    ├── BrowserUnavailableError   Chromium is missing or would not start (not retryable)
    ├── InvalidActionError        the action itself is wrong: unknown snapshot/ref/tab, invalid URL,
    │                             missing upload file (not retryable: fix the action)
    ├── EgressDeniedError         the URL's host is outside the run's allowlist (not retryable)
    ├── StaleSnapshotError        the page navigated or changed since the snapshot (retryable: re-observe)
    ├── TargetRefusedError        the target did not resolve to exactly one visible, enabled, unoccluded
    │                             element with the expected fingerprint; ``reason`` says why
    ├── PostconditionFailedError  the action ran but its effect could not be verified
    ├── ActionTimeoutError        a wait ran out of time (retryable)
    └── DownloadRejectedError     a download is too large, empty or of a refused type
"""

from __future__ import annotations

from typing import Literal

from finrpa.exceptions import FinRPAError

RefusalReason = Literal[
    "not_found", "ambiguous", "occluded", "disabled", "not_visible", "fingerprint_mismatch", "detached"
]


class BrowserError(FinRPAError):
    """Base of the browser runtime's errors."""

    http_status = 502
    code = "browser_error"


class BrowserUnavailableError(BrowserError):
    http_status = 503
    code = "browser_unavailable"


class InvalidActionError(BrowserError):
    http_status = 422
    code = "invalid_action"


class EgressDeniedError(BrowserError):
    http_status = 403
    code = "egress_denied"


class StaleSnapshotError(BrowserError):
    http_status = 409
    retryable = True
    code = "stale_snapshot"


class TargetRefusedError(BrowserError):
    """The controller refused to act; ``reason`` is one of :data:`RefusalReason`."""

    http_status = 409
    retryable = True
    code = "target_refused"

    def __init__(self, message: str, *, reason: RefusalReason, candidates: int = 0) -> None:
        super().__init__(message, code=f"target_{reason}")
        self.reason: RefusalReason = reason
        self.candidates = candidates


class PostconditionFailedError(BrowserError):
    http_status = 409
    retryable = True
    code = "postcondition_failed"


class ActionTimeoutError(BrowserError):
    http_status = 504
    retryable = True
    code = "action_timeout"


class DownloadRejectedError(BrowserError):
    http_status = 422
    code = "download_rejected"

"""The one error tree of FinRPA.

Every error FinRPA raises on purpose derives from :class:`FinRPAError`. Each carries

* ``http_status`` — how the API maps it (the API does that mapping in one place);
* ``retryable`` — whether trying the same thing again may help (a timeout may, a rejected password never);
* ``code`` — a stable machine-readable identifier used in problem+json responses and events.

Tree::

    FinRPAError
    ├── ConfigurationError        settings are missing or unsafe (refuse to start)
    ├── DatabaseUnavailableError  the configured database cannot be reached
    ├── LockTimeoutError          a statement waited too long for another session's lock (retryable)
    ├── ValidationFailedError     input does not satisfy a schema (400/422)
    ├── NotFoundError             no such object *visible to the caller* (404, also for other tenants)
    ├── PermissionDeniedError     the caller may not do this (403)
    ├── ConflictError             state does not allow this now (409)
    └── ExternalServiceError      a portal, LLM or other dependency failed (502, usually retryable)
"""

from __future__ import annotations


class FinRPAError(Exception):
    """Base of every deliberate FinRPA error; the message is a sentence a user can act on."""

    http_status: int = 500
    retryable: bool = False
    code: str = "finrpa_error"

    def __init__(self, message: str, *, retryable: bool | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if retryable is not None:
            self.retryable = retryable
        if code is not None:
            self.code = code


class ConfigurationError(FinRPAError):
    http_status = 500
    code = "configuration_error"


class DatabaseUnavailableError(FinRPAError):
    http_status = 503
    retryable = True
    code = "database_unavailable"


class LockTimeoutError(FinRPAError):
    """A statement gave up waiting for a lock (PostgreSQL ``lock_timeout``); its transaction was rolled back."""

    http_status = 503
    retryable = True
    code = "lock_timeout"


class ValidationFailedError(FinRPAError):
    http_status = 422
    code = "validation_failed"


class NotFoundError(FinRPAError):
    http_status = 404
    code = "not_found"


class PermissionDeniedError(FinRPAError):
    http_status = 403
    code = "permission_denied"


class ConflictError(FinRPAError):
    http_status = 409
    code = "conflict"


class ExternalServiceError(FinRPAError):
    http_status = 502
    retryable = True
    code = "external_service_error"

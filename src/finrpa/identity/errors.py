"""Errors of identity and authentication.

Tree (all derive from finrpa.exceptions.FinRPAError)::

    AuthenticationError (401)        credentials or token missing, wrong, expired or revoked
    ├── TokenReuseError              a used refresh token came back: the whole login was revoked
    └── AccountLockedError           too many failed passwords: locked until a time
    LoginRateLimitedError (429)      too many attempts in the window; retry later
    MakerCheckerViolationError (409) operator and approver on the same department membership
    WeakPasswordError (422)          the password does not meet the policy
"""

from __future__ import annotations

from finrpa.exceptions import ConflictError, FinRPAError, ValidationFailedError


class AuthenticationError(FinRPAError):
    http_status = 401
    code = "authentication_failed"


class TokenReuseError(AuthenticationError):
    code = "refresh_token_reused"


class AccountLockedError(AuthenticationError):
    code = "account_locked"


class LoginRateLimitedError(FinRPAError):
    http_status = 429
    retryable = True
    code = "login_rate_limited"


class MakerCheckerViolationError(ConflictError):
    code = "maker_checker_violation"


class WeakPasswordError(ValidationFailedError):
    code = "weak_password"

"""Authentication: password login, rotating refresh tokens, logout, and bearer checks (JWT or API key).

These are entry points, not ordinary services: each opens its own transactions, because a rejected
attempt must still leave its trace (a failed password counted, an account locked, a login family revoked
after refresh-token reuse) even though the caller gets an error. Tenant scope: the organisation is not
known before the credentials are checked, so look-ups run in a recorded ``system_context``; everything
after runs in the organisation's own context.
"""

from __future__ import annotations

import asyncio
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.identity.errors import (
    AccountLockedError,
    AuthenticationError,
    LoginRateLimitedError,
    TokenReuseError,
)
from finrpa.identity.models import ApiKey, AuthSession, LoginAttempt, RefreshToken, User
from finrpa.identity.passwords import hash_password, needs_rehash, verify_password
from finrpa.identity.permissions import Action, Principal
from finrpa.identity.repository import IdentityRepository
from finrpa.identity.service import DirectoryService
from finrpa.identity.tokens import (
    API_KEY_PREFIX,
    decode_access_token,
    digest,
    issue_access_token,
    new_refresh_token,
)
from finrpa.tenancy.context import system_context

BAD_CREDENTIALS = "Wrong organisation, username or password."
API_KEY_TOUCH_INTERVAL = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class TokenPair:
    access_token: str
    refresh_token: str
    expires_in: int
    session_id: str
    token_type: str = "Bearer"  # noqa: S105 - the OAuth token type, not a secret


@dataclass(frozen=True, slots=True)
class Authenticated:
    """The outcome of checking a bearer credential: who, and through which login or key."""

    principal: Principal
    session_id: str | None = None
    api_key_id: str | None = None


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes; FinRPA stores UTC everywhere."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=utcnow().tzinfo)


class AuthService:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], settings: Settings) -> None:
        self.sessions = sessions
        self.settings = settings

    async def login(self, org_slug: str, username: str, password: str, *, source: str = "") -> TokenPair:
        """Check a password; count failures, lock after too many, and rate-limit failures per user."""
        with system_context("login: find organisation"):
            async with self.sessions() as session:
                org = await IdentityRepository(session).organization_by_slug(org_slug)
        if org is None or not org.is_active:
            await asyncio.to_thread(verify_password, None, password)
            raise AuthenticationError(BAD_CREDENTIALS)
        with system_context("login", org_id=org.id):
            async with self.sessions() as session, session.begin():
                outcome = await self._check_password(session, org.id, username, password, source)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def _check_password(
        self, session: AsyncSession, org_id: str, username: str, password: str, source: str
    ) -> TokenPair | Exception:
        repo = IdentityRepository(session)
        now = utcnow()
        window_start = now - timedelta(seconds=self.settings.login_rate_limit_window_s)
        if await repo.count_failed_attempts(org_id, username, window_start) >= self.settings.login_rate_limit_attempts:
            return LoginRateLimitedError(
                "Too many sign-in attempts for this user; wait a few minutes and try again.", retryable=True
            )
        user = await repo.user_by_username(org_id, username)
        attempt = LoginAttempt(org_id=org_id, username=username[:64], source=source[:64], succeeded=False)
        session.add(attempt)
        locked_until = _aware(user.locked_until) if user else None
        if user is not None and locked_until is not None and locked_until > now:
            return AccountLockedError(
                f"This account is locked after too many failed sign-ins until {locked_until:%Y-%m-%d %H:%M} "
                "UTC; ask an administrator to unlock it or wait."
            )
        valid = await asyncio.to_thread(verify_password, user.password_hash if user else None, password)
        if user is None or not valid or not user.is_active:
            if user is not None and user.is_active:
                self._count_failure(user, now)
            return AuthenticationError(BAD_CREDENTIALS)
        attempt.succeeded = True
        await self._record_success(user, password, now)
        return await self._open_session(session, user, source, now)

    def _count_failure(self, user: User, now: datetime) -> None:
        user.failed_login_count += 1
        if user.failed_login_count >= self.settings.login_max_failures:
            user.locked_until = now + timedelta(seconds=self.settings.login_lockout_s)
            user.failed_login_count = 0

    async def _record_success(self, user: User, password: str, now: datetime) -> None:
        user.failed_login_count = 0
        user.locked_until = None
        user.last_login_at = now
        if user.password_hash and needs_rehash(user.password_hash):
            user.password_hash = await asyncio.to_thread(hash_password, password)

    async def _open_session(self, session: AsyncSession, user: User, source: str, now: datetime) -> TokenPair:
        max_age = timedelta(seconds=self.settings.auth_session_max_s)
        login = AuthSession(org_id=user.org_id, user_id=user.id, expires_at=now + max_age, source=source[:64])
        session.add(login)
        await session.flush()
        return await self._issue_pair(session, login, now)

    async def _issue_pair(self, session: AsyncSession, login: AuthSession, now: datetime) -> TokenPair:
        refresh = new_refresh_token()
        refresh_ttl = timedelta(seconds=self.settings.refresh_token_ttl_s)
        session.add(
            RefreshToken(
                org_id=login.org_id,
                session_id=login.id,
                token_hash=digest(self.settings, "refresh-token", refresh),
                expires_at=min(now + refresh_ttl, _aware(login.expires_at) or now),
            )
        )
        await session.flush()
        access, _ = issue_access_token(
            self.settings, user_id=login.user_id, org_id=login.org_id, session_id=login.id, now=now
        )
        return TokenPair(access, refresh, self.settings.access_token_ttl_s, login.id)

    async def refresh(self, refresh_token: str) -> TokenPair:
        """Exchange a refresh token for a new pair; a token presented twice revokes its whole login."""
        token_hash = digest(self.settings, "refresh-token", refresh_token)
        with system_context("token refresh: find token"):
            async with self.sessions() as session:
                token = await IdentityRepository(session).refresh_token_by_hash(token_hash)
        if token is None:
            raise AuthenticationError("This refresh token is not valid; sign in again.")
        with system_context("token refresh", org_id=token.org_id):
            async with self.sessions() as session, session.begin():
                outcome = await self._rotate(session, token.id, token.session_id)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def _rotate(self, session: AsyncSession, token_id: str, session_id: str) -> TokenPair | Exception:
        repo = IdentityRepository(session)
        now = utcnow()
        login = await repo.auth_session(session_id)
        token = await session.get(RefreshToken, token_id)
        if login is None or token is None or login.revoked_at is not None:
            return AuthenticationError("This sign-in has ended; sign in again.")
        if not await repo.claim_refresh_token(token_id, now):
            login.revoked_at = now
            login.revoked_reason = "refresh_token_reuse"
            return TokenReuseError(
                "This refresh token was already used, which suggests it was stolen; every token of this "
                "sign-in has been revoked. Sign in again."
            )
        if (_aware(token.expires_at) or now) <= now or (_aware(login.expires_at) or now) <= now:
            return AuthenticationError("This sign-in has expired; sign in again.")
        user = await repo.user(login.user_id)
        if user is None or not user.is_active:
            return AuthenticationError("This account is disabled; ask an administrator.")
        return await self._issue_pair(session, login, now)

    async def logout(self, session_id: str, org_id: str, *, reason: str = "logout") -> None:
        """End one sign-in: its refresh tokens and access tokens stop working at once."""
        with system_context("logout", org_id=org_id):
            async with self.sessions() as session, session.begin():
                login = await IdentityRepository(session).auth_session(session_id)
                if login is not None and login.revoked_at is None:
                    login.revoked_at = utcnow()
                    login.revoked_reason = reason[:64]

    async def authenticate(self, bearer: str) -> Authenticated:
        """Check an ``Authorization: Bearer`` credential: an API key (``fk_…``) or an access JWT."""
        if bearer.startswith(API_KEY_PREFIX):
            return await self._authenticate_api_key(bearer)
        claims = decode_access_token(self.settings, bearer)
        with system_context("authenticate access token", org_id=claims.org_id):
            async with self.sessions() as session:
                repo = IdentityRepository(session)
                login = await repo.auth_session(claims.session_id)
                if login is None or login.revoked_at is not None or login.user_id != claims.user_id:
                    raise AuthenticationError("This sign-in has ended; sign in again.")
                user = await repo.user(claims.user_id)
                if user is None or not user.is_active:
                    raise AuthenticationError("This account is disabled; ask an administrator.")
                principal = await DirectoryService(session, self.settings).load_principal(user)
        return Authenticated(principal=principal, session_id=login.id)

    async def _authenticate_api_key(self, key: str) -> Authenticated:
        prefix = key[: len(API_KEY_PREFIX) + 12]
        with system_context("authenticate API key: find key"):
            async with self.sessions() as session:
                found = await IdentityRepository(session).api_key_by_prefix(prefix)
        expected = digest(self.settings, "api-key", key)
        if found is None or not hmac.compare_digest(found.key_hash, expected):
            raise AuthenticationError("This API key is not valid.")
        now = utcnow()
        if found.revoked_at is not None or (_aware(found.expires_at) or now + timedelta(1)) <= now:
            raise AuthenticationError("This API key has been revoked or has expired; create a new one.")
        with system_context("authenticate API key", org_id=found.org_id):
            async with self.sessions() as session, session.begin():
                user = await IdentityRepository(session).user(found.user_id)
                if user is None or not user.is_active:
                    raise AuthenticationError("The account behind this API key is disabled.")
                scopes = frozenset(Action(scope) for scope in found.scopes)
                principal = await DirectoryService(session, self.settings).load_principal(user, scopes=scopes)
                await self._touch_api_key(session, found.id, now)
        return Authenticated(principal=principal, api_key_id=found.id)

    async def _touch_api_key(self, session: AsyncSession, key_id: str, now: datetime) -> None:
        key = await session.get(ApiKey, key_id)
        last = _aware(key.last_used_at) if key else None
        if key is not None and (last is None or now - last > API_KEY_TOUCH_INTERVAL):
            key.last_used_at = now

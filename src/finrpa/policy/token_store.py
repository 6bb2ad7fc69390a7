"""Replay protection for capability tokens: every use of a token id (jti) is counted, at most ``max_uses``.

:class:`TokenUseStore` is the port. :class:`InMemoryTokenUseStore` serves one process (tests, embedded
library use); :class:`DatabaseTokenUseStore` counts in ``policy_token_uses`` so every worker sees every use.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.db.base import utcnow
from finrpa.db.engine import unit_of_work
from finrpa.policy.errors import TokenReplayed
from finrpa.policy.repository import TokenUseRepository
from finrpa.tenancy import system_context


class TokenUseStore(Protocol):
    async def consume(self, jti: str, *, org_id: str, max_uses: int, expires_at: datetime) -> None:
        """Count one use; raise TokenReplayed when the token was already used ``max_uses`` times."""


def _replayed(jti: str, max_uses: int) -> TokenReplayed:
    return TokenReplayed(
        f"Capability token {jti[:8]}… was already used {max_uses} time(s), all it allows; "
        "request a new token for this step."
    )


class InMemoryTokenUseStore:
    def __init__(self) -> None:
        self._uses: dict[str, tuple[int, datetime]] = {}
        self._lock = asyncio.Lock()

    async def consume(self, jti: str, *, org_id: str, max_uses: int, expires_at: datetime) -> None:
        async with self._lock:
            self._forget_expired()
            uses, _ = self._uses.get(jti, (0, expires_at))
            if uses >= max_uses:
                raise _replayed(jti, max_uses)
            self._uses[jti] = (uses + 1, expires_at)

    def _forget_expired(self) -> None:
        now = utcnow()
        for jti in [jti for jti, (_, expires_at) in self._uses.items() if expires_at < now]:
            del self._uses[jti]


class DatabaseTokenUseStore:
    """Counts uses in their own short transaction (the use counts even if the caller's work rolls back)."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def consume(self, jti: str, *, org_id: str, max_uses: int, expires_at: datetime) -> None:
        with system_context("capability token replay check", org_id=org_id):
            async with unit_of_work(self._sessions) as session:
                counted = await TokenUseRepository(session).consume(org_id, jti, max_uses, expires_at)
        if not counted:
            raise _replayed(jti, max_uses)

"""Service API keys: ``fk_<prefix>_<secret>``, shown once, stored as a keyed digest, scoped and revocable."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.exceptions import NotFoundError, ValidationFailedError
from finrpa.identity.models import ApiKey, User
from finrpa.identity.permissions import Action, Principal, Resource, decide_permission
from finrpa.identity.repository import IdentityRepository
from finrpa.identity.tokens import digest, new_api_key


@dataclass(frozen=True, slots=True)
class IssuedApiKey:
    record: ApiKey
    key: str  # the only time the full key exists outside its holder


class ApiKeyService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.repo = IdentityRepository(session)

    async def create(
        self,
        actor: Principal,
        user: User,
        *,
        name: str,
        scopes: Sequence[Action],
        expires_at: datetime | None = None,
    ) -> IssuedApiKey:
        """A key acting as ``user``, limited to ``scopes`` on top of the user's own rights."""
        decide_permission(actor, Action.ADMIN, Resource(user.org_id, kind="organisation")).require()
        if not scopes:
            raise ValidationFailedError("An API key needs at least one scope, e.g. read or operate.")
        prefix, key = new_api_key()
        record = ApiKey(
            org_id=user.org_id,
            user_id=user.id,
            name=name,
            prefix=prefix,
            key_hash=digest(self.settings, "api-key", key),
            scopes=sorted({scope.value for scope in scopes}),
            expires_at=expires_at,
        )
        self.session.add(record)
        await self.session.flush()
        return IssuedApiKey(record=record, key=key)

    async def revoke(self, actor: Principal, prefix: str) -> ApiKey:
        record = await self.repo.api_key_by_prefix(prefix)
        if record is None:
            raise NotFoundError(f"No API key {prefix!r} in this organisation.")
        decide_permission(actor, Action.ADMIN, Resource(record.org_id, kind="organisation")).require()
        record.revoked_at = record.revoked_at or utcnow()
        await self.session.flush()
        return record

    async def list(self, actor: Principal, org_id: str) -> Sequence[ApiKey]:
        decide_permission(actor, Action.ADMIN, Resource(org_id, kind="organisation")).require()
        return await self.repo.api_keys(org_id)

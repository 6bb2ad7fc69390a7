"""The vault as a run's SecretResolver: each read is permission-checked for the run's owner, recorded by the
vault as a credential read, and written to the audit trail — all in one transaction."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.audit.events import AuditEntry
from finrpa.audit.service import AuditService
from finrpa.browser import SecretText
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.identity.permissions import Principal
from finrpa.identity.repository import IdentityRepository
from finrpa.identity.service import DirectoryService
from finrpa.runs.repository import RunRepository
from finrpa.skills.context import SecretResolver
from finrpa.vault.service import VaultService


class VaultSecretResolver:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        settings: Settings,
        audit: AuditService,
        *,
        org_id: str,
        run_id: str,
    ) -> None:
        self.sessions = sessions
        self.settings = settings
        self.audit = audit
        self.org_id = org_id
        self.run_id = run_id

    async def resolve(self, reference: str, *, purpose: str) -> SecretText:
        async with unit_of_work(self.sessions) as session:
            actor = await self._owner(session)
            value = await VaultService(session, self.settings).resolve_secret(
                reference, purpose=purpose, actor=actor, run_id=self.run_id
            )
            await self.audit.append(
                session,
                AuditEntry(
                    org_id=self.org_id,
                    action_type="CREDENTIAL_READ",
                    executor="agent",
                    task_id=self.run_id,
                    user_id=None if actor.user_id == "system" else actor.user_id,
                    target_element=reference,
                    details={"purpose": purpose},
                ),
            )
            return value

    async def _owner(self, session: AsyncSession) -> Principal:
        """The run's creator when it is a user of the organisation; otherwise the platform (CLI, schedules)."""
        run = await RunRepository(session).get(self.run_id)
        user = await IdentityRepository(session).user(run.created_by) if run.created_by else None
        if user is None:
            return Principal.platform(self.org_id, f"run {self.run_id}")
        return await DirectoryService(session, self.settings).load_principal(user)


def vault_secrets(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, audit: AuditService
) -> Callable[[str, str], SecretResolver]:
    """The factory RunRunner takes: (org_id, run_id) → resolver."""

    def factory(org_id: str, run_id: str) -> SecretResolver:
        return VaultSecretResolver(sessions, settings, audit, org_id=org_id, run_id=run_id)

    return factory

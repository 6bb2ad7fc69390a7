"""Channel secrets from the credential vault (``secret://<name>``, every name outside ``secret://env/``).

Each read is permission-checked by the vault for the platform acting for the channel's organisation,
recorded by the vault as a credential read and written to the audit trail as ``CREDENTIAL_READ`` — in one
transaction of its own, so a delivery's secret read is on the record even when the send then fails.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.audit.events import AuditEntry, EventType
from finrpa.audit.service import AuditService
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import NotFoundError, PermissionDeniedError, ValidationFailedError
from finrpa.identity.permissions import Principal
from finrpa.notify.errors import SecretUnavailableError
from finrpa.notify.secret_refs import (
    ENV_PREFIX,
    ChainedSecretResolver,
    EnvironmentSecretResolver,
    SecretResolver,
    is_secret_reference,
)
from finrpa.tenancy import system_context
from finrpa.vault.service import VaultService

PURPOSE = "send a notification"
_ACTOR = "notify dispatcher"


class VaultChannelSecrets:
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], settings: Settings, audit: AuditService | None
    ) -> None:
        self.sessions = sessions
        self.settings = settings
        self.audit = audit

    def handles(self, reference: str) -> bool:
        return is_secret_reference(reference) and not reference.startswith(ENV_PREFIX)

    async def resolve(self, org_id: str, reference: str) -> str:
        actor = Principal.platform(org_id, _ACTOR)
        with system_context(f"{_ACTOR}: read a channel secret", org_id=org_id):
            try:
                async with unit_of_work(self.sessions) as session:
                    vault = VaultService(session, self.settings)
                    value = await vault.resolve_secret(reference, purpose=PURPOSE, actor=actor)
                    await self._audit(session, org_id, reference)
            except (NotFoundError, PermissionDeniedError, ValidationFailedError) as exc:
                raise SecretUnavailableError(
                    f"{reference} cannot be read from the vault: {exc.message} Store the secret in the "
                    "organisation's vault, or fix the channel's reference."
                ) from exc
        return value.reveal()

    async def _audit(self, session: AsyncSession, org_id: str, reference: str) -> None:
        if self.audit is None:
            return
        entry = AuditEntry(
            org_id=org_id,
            action_type=EventType.CREDENTIAL_READ.value,
            executor="system:notify",
            target_element=reference,
            details={"purpose": PURPOSE},
        )
        await self.audit.append(session, entry)


def deployment_secret_resolver(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, audit: AuditService | None = None
) -> SecretResolver:
    """``secret://env/FINRPA_NOTIFY_SECRET_*`` from the environment, every other reference from the vault."""
    vault = VaultChannelSecrets(sessions, settings, audit or AuditService.from_settings(settings))
    return ChainedSecretResolver([EnvironmentSecretResolver(), vault])

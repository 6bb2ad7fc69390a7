"""The credential vault: write-only secrets, permission-checked reads logged in ``credential_reads``.

* ``put_secret`` / ``delete_secret``: ``admin`` on the secret's department (dept admin, org admin).
* ``list_secrets``: names and metadata only; never a value.
* ``resolve_secret(ref, purpose=…, actor=…)``: ``operate`` on the secret's department (the operators of
  that department, or an org admin), then one ``credential_reads`` row, then a :class:`SecretText`.
* ``totp_code``: the same for a TOTP seed, returning the current one-time code.
* ``rewrap_data_keys``: after a master-key change, re-wraps every organisation's data key.

Services flush, never commit: the read-log row commits with the caller's unit of work, so a credential
read and the run step that used it succeed or fail together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import pyotp
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.exceptions import ConfigurationError, NotFoundError, ValidationFailedError
from finrpa.identity.permissions import Action, Principal, Resource, decide_permission
from finrpa.kit.secret_text import SecretText
from finrpa.tenancy.context import system_context
from finrpa.vault.crypto import (
    decrypt_secret,
    derive_kek,
    encrypt_secret,
    kek_id,
    new_data_key,
    unwrap_data_key,
    wrap_data_key,
)
from finrpa.vault.models import CredentialRead, SecretKind, VaultDataKey, VaultSecret
from finrpa.vault.references import secret_name


@dataclass(frozen=True, slots=True)
class SecretInfo:
    """What may be shown about a secret: everything except its value."""

    name: str
    kind: SecretKind
    dept_id: str | None
    description: str
    version: int
    created_by: str
    updated_at: datetime

    @classmethod
    def of(cls, secret: VaultSecret) -> SecretInfo:
        return cls(
            name=secret.name,
            kind=SecretKind(secret.kind),
            dept_id=secret.dept_id,
            description=secret.description,
            version=secret.version,
            created_by=secret.created_by,
            updated_at=secret.updated_at,
        )


class VaultService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings

    async def put_secret(
        self,
        actor: Principal,
        org_id: str,
        name: str,
        value: str,
        *,
        kind: SecretKind = SecretKind.PASSWORD,
        dept_id: str | None = None,
        description: str = "",
    ) -> SecretInfo:
        """Store (or replace) a secret. The value cannot be read back through this service's API."""
        name = secret_name(name)
        value = _normalise_value(kind, value)
        decide_permission(actor, Action.ADMIN, Resource(org_id, dept_id=dept_id, kind="secret", id=name)).require()
        key_row, data_key = await self._data_key(org_id)
        secret = await self._find(org_id, name)
        if secret is None:
            secret = VaultSecret(org_id=org_id, name=name, version=0, created_by=actor.username or actor.user_id)
            self.session.add(secret)
        secret.kind, secret.dept_id, secret.description = kind.value, dept_id, description
        secret.ciphertext = encrypt_secret(data_key, value, org_id, name)
        secret.data_key_id, secret.version, secret.updated_at = key_row.id, secret.version + 1, utcnow()
        await self.session.flush()
        return SecretInfo.of(secret)

    async def list_secrets(self, actor: Principal, org_id: str) -> list[SecretInfo]:
        query = select(VaultSecret).where(VaultSecret.org_id == org_id).order_by(VaultSecret.name)
        secrets = (await self.session.scalars(query)).all()
        return [SecretInfo.of(s) for s in secrets if decide_permission(actor, Action.READ, _resource(s)).allowed]

    async def delete_secret(self, actor: Principal, org_id: str, ref: str) -> None:
        secret = await self._require(org_id, ref)
        decide_permission(actor, Action.ADMIN, _resource(secret)).require()
        await self.session.delete(secret)
        await self.session.flush()

    async def resolve_secret(
        self, ref: str, *, purpose: str, actor: Principal, run_id: str | None = None
    ) -> SecretText:
        """The secret's value, for ``actor``, recorded as a credential read. Raises if not permitted."""
        if not purpose.strip():
            raise ValidationFailedError("Say why the credential is read (purpose), e.g. 'log in to portal X'.")
        secret = await self._require(actor.org_id, ref)
        decision = decide_permission(actor, Action.OPERATE, _resource(secret))
        decision.require()
        _, data_key = await self._data_key(secret.org_id, create=False)
        value = decrypt_secret(data_key, secret.ciphertext, secret.org_id, secret.name)
        self.session.add(
            CredentialRead(
                org_id=secret.org_id,
                secret_id=secret.id,
                secret_name=secret.name,
                actor_user_id=actor.user_id,
                actor_api_key_id=actor.api_key_id,
                purpose=purpose[:200],
                run_id=run_id,
                rule=decision.rule.value,
            )
        )
        await self.session.flush()
        return SecretText(value)

    async def totp_code(self, ref: str, *, purpose: str, actor: Principal, run_id: str | None = None) -> SecretText:
        """The current one-time code of a stored TOTP seed (the read is recorded like any other)."""
        secret = await self._require(actor.org_id, ref)
        if secret.kind != SecretKind.TOTP_SEED:
            raise ValidationFailedError(f"secret://{secret.name} is a {secret.kind}, not a TOTP seed.")
        seed = await self.resolve_secret(ref, purpose=purpose, actor=actor, run_id=run_id)
        return SecretText(pyotp.TOTP(seed.reveal()).now())

    async def reads(self, actor: Principal, org_id: str, *, run_id: str | None = None) -> Sequence[CredentialRead]:
        """The credential-read log (auditors and admins of the organisation)."""
        decision = decide_permission(actor, Action.AUDIT, Resource(org_id, kind="credential read log"))
        decision.require()
        query = select(CredentialRead).where(CredentialRead.org_id == org_id).order_by(CredentialRead.created_at)
        if run_id is not None:
            query = query.where(CredentialRead.run_id == run_id)
        return (await self.session.scalars(query)).all()

    async def _find(self, org_id: str, name: str) -> VaultSecret | None:
        query = select(VaultSecret).where(VaultSecret.org_id == org_id, VaultSecret.name == name)
        return await self.session.scalar(query)

    async def _require(self, org_id: str, ref: str) -> VaultSecret:
        name = secret_name(ref)
        secret = await self._find(org_id, name)
        if secret is None:
            raise NotFoundError(f"No secret secret://{name} visible here; `finrpa secret list` shows the names.")
        return secret

    async def _data_key(self, org_id: str, *, create: bool = True) -> tuple[VaultDataKey, bytes]:
        """The organisation's data key, unwrapped (created on first use).

        Runs in a system context bound to the organisation: data keys are infrastructure, not something a
        user's department visibility should hide.
        """
        kek = derive_kek(self.settings.key("master_key"))
        with system_context("vault: data key", org_id=org_id):
            row = await self.session.scalar(select(VaultDataKey).where(VaultDataKey.org_id == org_id))
            if row is None:
                if not create:
                    raise NotFoundError("This organisation has no vault data key yet; store a secret first.")
                data_key = new_data_key()
                row = VaultDataKey(org_id=org_id, wrapped_key=wrap_data_key(kek, data_key, org_id), kek_id=kek_id(kek))
                self.session.add(row)
                await self.session.flush()
                return row, data_key
        if row.kek_id != kek_id(kek):
            raise ConfigurationError(
                "This organisation's vault key was wrapped with a different master key. Restore the previous "
                "FINRPA_MASTER_KEY, or run `finrpa secret rewrap --old-key-stdin` with it."
            )
        return row, unwrap_data_key(kek, row.wrapped_key, org_id)


async def rewrap_data_keys(session: AsyncSession, *, old_master_key: bytes, new_master_key: bytes) -> int:
    """Re-wrap every organisation's data key from the old master key to the new one; returns how many.

    Secrets themselves are untouched (they are encrypted with the data keys, which do not change).
    Idempotent: keys already wrapped with the new master key are skipped.
    """
    old_kek, new_kek = derive_kek(old_master_key), derive_kek(new_master_key)
    count = 0
    with system_context("vault: master key rotation"):
        for row in (await session.scalars(select(VaultDataKey))).all():
            if row.kek_id == kek_id(new_kek):
                continue
            data_key = unwrap_data_key(old_kek, row.wrapped_key, row.org_id)
            row.wrapped_key = wrap_data_key(new_kek, data_key, row.org_id)
            row.kek_id, row.rewrapped_at = kek_id(new_kek), utcnow()
            count += 1
        await session.flush()
    return count


def _resource(secret: VaultSecret) -> Resource:
    return Resource(secret.org_id, dept_id=secret.dept_id, bl_id=secret.bl_id, kind="secret", id=secret.name)


def _normalise_value(kind: SecretKind, value: str) -> str:
    if not value:
        raise ValidationFailedError("A secret cannot be empty.")
    if kind is not SecretKind.TOTP_SEED:
        return value
    seed = value.replace(" ", "").upper()
    try:
        pyotp.TOTP(seed).now()
    except (ValueError, TypeError) as exc:
        raise ValidationFailedError("A TOTP seed must be the base32 text shown when 2FA was set up.") from exc
    return seed

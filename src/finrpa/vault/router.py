"""HTTP routes of the credential vault (``/credentials``): write-only.

A secret's value goes in through ``POST`` and never comes out of the API: listings show names and metadata.
Storing and deleting need ``admin`` on the secret's department (dept admins, org admins); the list shows the
secrets the caller may read. Runs refer to a secret as ``secret://<name>``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Response
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from finrpa.audit.events import AuditEntry
from finrpa.exceptions import ValidationFailedError
from finrpa.http.caller import CurrentUser, DbSession, State
from finrpa.http.idempotency import Idempotency
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.identity.models import Department
from finrpa.vault.models import SecretKind
from finrpa.vault.references import secret_ref
from finrpa.vault.service import SecretInfo, VaultService

router = APIRouter(prefix="/credentials", tags=["credentials"], responses=PROBLEM_RESPONSES)

SecretName = Annotated[str, Path(min_length=1, max_length=200, description="The secret's name (as in secret://name).")]


class CredentialCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, description="Letters, digits, '.', '_', '-', '/'.")
    value: SecretStr = Field(description="Write-only: never returned, logged or audited.")
    kind: SecretKind = SecretKind.PASSWORD
    dept_id: str | None = Field(None, max_length=32, description="Department whose operators may use it.")
    description: str = Field("", max_length=500)


class Credential(BaseModel):
    name: str
    reference: str = Field(description="How templates refer to it: secret://<name>.")
    kind: SecretKind
    dept_id: str | None
    description: str
    version: int
    created_by: str
    updated_at: datetime


@router.post("", status_code=201, summary="Store (or replace) a credential; the value cannot be read back")
async def put_credential(
    body: CredentialCreate, caller: CurrentUser, session: DbSession, state: State, idempotency: Idempotency,
    response: Response,
) -> Credential:
    replayed = await idempotency.replay(session, body)
    if replayed is not None:
        return replayed  # type: ignore[return-value]
    if body.dept_id is not None and await session.get(Department, body.dept_id) is None:
        raise ValidationFailedError(f"There is no department {body.dept_id!r} in your organisation.")
    principal = caller.principal
    info = await VaultService(session, state.settings).put_secret(
        principal,
        principal.org_id,
        body.name,
        body.value.get_secret_value(),
        kind=body.kind,
        dept_id=body.dept_id,
        description=body.description,
    )
    await state.audit.append(
        session,
        AuditEntry(
            org_id=principal.org_id,
            action_type="CREDENTIAL_STORED",
            executor=f"human:{principal.user_id}",
            user_id=principal.user_id,
            dept_id=info.dept_id,
            target_element=secret_ref(info.name),
            details={"kind": info.kind.value, "version": info.version},
        ),
    )
    credential = _view(info)
    location = f"/api/v1/credentials/{info.name}"
    await idempotency.remember(session, body, 201, credential.model_dump(mode="json"), location)
    response.headers["Location"] = location
    return credential


@router.get("", summary="Credentials you may see: names and metadata only")
async def list_credentials(caller: CurrentUser, session: DbSession, state: State) -> list[Credential]:
    principal = caller.principal
    secrets = await VaultService(session, state.settings).list_secrets(principal, principal.org_id)
    return [_view(info) for info in secrets]


@router.delete("/{name:path}", status_code=204, summary="Delete a credential")
async def delete_credential(name: SecretName, caller: CurrentUser, session: DbSession, state: State) -> Response:
    principal = caller.principal
    vault = VaultService(session, state.settings)
    await vault.delete_secret(principal, principal.org_id, name)
    await state.audit.append(
        session,
        AuditEntry(
            org_id=principal.org_id,
            action_type="CREDENTIAL_DELETED",
            executor=f"human:{principal.user_id}",
            user_id=principal.user_id,
            target_element=secret_ref(name),
        ),
    )
    return Response(status_code=204)


def _view(info: SecretInfo) -> Credential:
    return Credential(
        name=info.name,
        reference=secret_ref(info.name),
        kind=info.kind,
        dept_id=info.dept_id,
        description=info.description,
        version=info.version,
        created_by=info.created_by,
        updated_at=info.updated_at,
    )

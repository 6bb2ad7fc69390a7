"""``Idempotency-Key`` on POSTs that create things: the same key and body give the same response.

``IdempotentCreate`` (a dependency) reads the header; a route calls ``await idem.replay(session, body)``
first — which returns the stored response for a key already used with the same body, raises 409 for the
same key with another body, and otherwise returns None — and then ``await idem.remember(session, …)`` with
the response it produced, in the same transaction as the creation. So the resource and its stored response
commit together: a retry after a lost response never creates a second resource. Two concurrent requests with
one key cannot both commit (unique constraint); the loser gets a 409 that says to retry.

Keys are scoped to the organisation, the caller (user or API key) and the route, and kept for 24 hours.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import utcnow
from finrpa.exceptions import ConflictError, ValidationFailedError
from finrpa.http.caller import CurrentUser
from finrpa.http.models import IdempotencyRecord

KEY_TTL = timedelta(hours=24)
MAX_KEY_LENGTH = 200
REPLAYED_HEADER = "Idempotent-Replayed"


class IdempotencyKeyReusedError(ConflictError):
    code = "idempotency_key_reused"


@dataclass(frozen=True)
class IdempotentCreate:
    """The Idempotency-Key of this request (None when the client sent none), with its scope."""

    key: str | None
    org_id: str
    caller: str
    route: str

    async def replay(self, session: AsyncSession, body: BaseModel) -> JSONResponse | None:
        if self.key is None:
            return None
        record = await session.scalar(
            select(IdempotencyRecord).where(
                IdempotencyRecord.org_id == self.org_id,
                IdempotencyRecord.caller == self.caller,
                IdempotencyRecord.route == self.route,
                IdempotencyRecord.key == self.key,
                IdempotencyRecord.expires_at > utcnow(),
            )
        )
        if record is None:
            return None
        if record.request_hash != request_hash(body):
            raise IdempotencyKeyReusedError(
                "This Idempotency-Key was already used with a different request body; use a new key for a "
                "new request, or send exactly the same body to get the first response again."
            )
        headers = {REPLAYED_HEADER: "true"}
        if record.location:
            headers["Location"] = record.location
        return JSONResponse(record.response_body, status_code=record.status_code, headers=headers)

    async def remember(
        self, session: AsyncSession, body: BaseModel, status_code: int, response: Any, location: str | None = None
    ) -> None:
        if self.key is None:
            return
        await self._forget_expired(session)
        session.add(
            IdempotencyRecord(
                org_id=self.org_id,
                caller=self.caller,
                route=self.route,
                key=self.key,
                request_hash=request_hash(body),
                status_code=status_code,
                response_body=response,
                location=location,
                expires_at=utcnow() + KEY_TTL,
            )
        )
        await session.flush()

    async def _forget_expired(self, session: AsyncSession) -> None:
        query = select(IdempotencyRecord).where(
            IdempotencyRecord.org_id == self.org_id,
            IdempotencyRecord.caller == self.caller,
            IdempotencyRecord.route == self.route,
            IdempotencyRecord.key == self.key,
        )
        for stale in (await session.scalars(query)).all():
            await session.delete(stale)
        await session.flush()


def request_hash(body: BaseModel) -> str:
    canonical = json.dumps(body.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


async def idempotent_create(
    request: Request,
    caller: CurrentUser,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            description="Send a unique value (e.g. a UUID) to make retries safe: the same key and body return the "
            "first response instead of creating a second object; the same key with another body is a 409.",
        ),
    ] = None,
) -> IdempotentCreate:
    if idempotency_key is not None and not (0 < len(idempotency_key.strip()) <= MAX_KEY_LENGTH):
        raise ValidationFailedError(f"The Idempotency-Key must be 1–{MAX_KEY_LENGTH} characters.")
    route = getattr(request.scope.get("route"), "path", request.url.path)
    principal = caller.principal
    return IdempotentCreate(
        key=idempotency_key.strip() if idempotency_key else None,
        org_id=principal.org_id,
        caller=caller.api_key_id or principal.user_id,
        route=f"{request.method} {route}"[:200],
    )


Idempotency = Annotated[IdempotentCreate, Depends(idempotent_create)]

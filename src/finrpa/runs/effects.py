"""The effect ledger: every portal-changing step is keyed (org + operation + business id) so that it happens
at most once, whatever crashes and retries happen around it.

States: ``started`` is written and committed BEFORE the portal is touched; ``succeeded`` (with the external
reference, e.g. the payment number) after the skill verified the result; ``uncertain`` when the step failed
after it may have reached the portal. A retry or a resumed run that finds ``started``/``uncertain`` must
reconcile with the portal first (the skill's ``reconcile``); if that cannot decide, a person decides.
A commit from a worker whose fencing token is stale is refused.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import utcnow
from finrpa.exceptions import ConflictError
from finrpa.runs.journal import fence
from finrpa.runs.models import Effect


class EffectState(StrEnum):
    PROPOSED = "proposed"
    AUTHORIZED = "authorized"
    STARTED = "started"
    SUCCEEDED = "succeeded"
    UNCERTAIN = "uncertain"
    NOT_DONE = "not_done"  # reconciled: the portal has no trace of it, safe to try again


class EffectArgsMismatchError(ConflictError):
    code = "effect_args_mismatch"


@dataclass(frozen=True)
class EffectKey:
    org_id: str
    operation: str
    business_id: str

    @property
    def value(self) -> str:
        return f"{self.org_id}:{self.operation}:{self.business_id}"


def args_hash(params: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


async def find(session: AsyncSession, key: EffectKey) -> Effect | None:
    statement = select(Effect).where(Effect.idempotency_key == key.value).with_for_update()
    return (await session.execute(statement)).scalar_one_or_none()


async def begin(
    session: AsyncSession, key: EffectKey, *, run_id: str, subtask_id: str, params_hash: str, fencing_token: int
) -> tuple[Effect, bool]:
    """Record that the effect is about to start (commit before acting). Returns the ledger row and whether it
    is new. An existing row is returned as it was: the caller acts on its ``state`` (succeeded → skip,
    started/uncertain → reconcile first, not_done → act)."""
    await fence(session, run_id, fencing_token)
    effect = await find(session, key)
    if effect is not None:
        if effect.args_hash != params_hash:
            raise EffectArgsMismatchError(
                f"Business id {key.business_id!r} was already used for a {key.operation} with other details; "
                "use a new business id, or fix the parameters to match the first submission."
            )
        previous = effect.state
        if previous in (EffectState.NOT_DONE, EffectState.PROPOSED, EffectState.AUTHORIZED):
            effect.state = EffectState.STARTED
            effect.run_id, effect.subtask_id, effect.fencing_token = run_id, subtask_id, fencing_token
            effect.updated_at = utcnow()
        await session.flush()
        return effect, previous in (EffectState.NOT_DONE, EffectState.PROPOSED, EffectState.AUTHORIZED)
    effect = Effect(
        org_id=key.org_id,
        idempotency_key=key.value,
        run_id=run_id,
        subtask_id=subtask_id,
        operation=key.operation,
        business_id=key.business_id,
        args_hash=params_hash,
        state=EffectState.STARTED,
        fencing_token=fencing_token,
        detail="",
    )
    session.add(effect)
    await session.flush()
    return effect, True


async def settle(
    session: AsyncSession,
    key: EffectKey,
    state: EffectState,
    *,
    run_id: str,
    fencing_token: int,
    external_ref: str | None = None,
    detail: str = "",
) -> Effect:
    """Move the effect to its outcome (in the caller's transaction, with the fence checked)."""
    await fence(session, run_id, fencing_token)
    effect = await find(session, key)
    if effect is None:
        raise ConflictError(f"No ledger row for {key.value}; an effect must begin before it settles.")
    if effect.state == EffectState.SUCCEEDED and state != EffectState.SUCCEEDED:
        raise ConflictError(f"{key.value} already succeeded; it cannot become {state.value}.")
    effect.state = state
    if external_ref is not None:
        effect.external_ref = external_ref
    effect.detail = detail[:2000]
    effect.fencing_token = fencing_token
    effect.updated_at = utcnow()
    await session.flush()
    return effect

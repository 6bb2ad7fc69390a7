"""HTTP routes of the organisation's Cedar policies (``/policies``, SPEC §C9; org admins): list the shipped
default set and the organisation's own policies, add one (validated against the schema and the policies in
force; an invalid text is a 422 with the validator's message) and disable one. Adding and disabling each
write an audit row in the same unit of work.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Response
from pydantic import BaseModel, ConfigDict, Field

from finrpa.audit.events import AuditEntry
from finrpa.exceptions import ConflictError, NotFoundError
from finrpa.http.caller import CurrentUser, DbSession, State, require
from finrpa.http.idempotency import Idempotency
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.identity.auth import Authenticated
from finrpa.identity.permissions import Action, Resource
from finrpa.policy.errors import PolicyValidationError
from finrpa.policy.models import OrgPolicy
from finrpa.policy.policyset import PolicyInfo, PolicySource, check_policy_text
from finrpa.policy.schema import default_policies_text, default_schema
from finrpa.policy.service import PolicyService

router = APIRouter(prefix="/policies", tags=["admin"], responses=PROBLEM_RESPONSES)

MAX_POLICY_CHARS = 100_000
PolicyId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="The stored policy's id.")]


class PolicyRule(BaseModel):
    """One Cedar policy of a text: its @id (the reason code decisions report), what it does and why."""

    policy_id: str
    effect: Literal["permit", "forbid", "require_approval"]
    reason: str


class ShippedPolicies(BaseModel):
    cedar_text: str
    rules: list[PolicyRule]


class OrgPolicyView(BaseModel):
    id: str
    name: str
    cedar_text: str
    sha256: str
    enabled: bool
    rules: list[PolicyRule]
    problem: str | None = Field(None, description="Why the stored text no longer validates (schema changed).")
    created_by: str
    created_at: datetime
    disabled_at: datetime | None
    disabled_by: str | None


class PolicyList(BaseModel):
    defaults: ShippedPolicies = Field(description="The default set every organisation starts from (read-only).")
    items: list[OrgPolicyView] = Field(description="The organisation's own policies, oldest first.")


class PolicyCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    cedar_text: str = Field(
        min_length=1,
        max_length=MAX_POLICY_CHARS,
        description="Cedar policies, each with a unique @id and a @reason; a forbid may carry "
        '@effect("require_approval"). `finrpa policy schema` prints the schema they are validated against.',
    )


@router.get("", summary="The default policies and the organisation's own (org admins)")
async def list_policies(caller: CurrentUser, session: DbSession) -> PolicyList:
    _require_admin(caller)
    policies = await PolicyService(session).list_policies(caller.principal.org_id)
    return PolicyList(defaults=_shipped(), items=[_view(policy) for policy in policies])


@router.post("", status_code=201, summary="Add a policy (validated before it is accepted; org admins)")
async def add_policy(
    body: PolicyCreate,
    caller: CurrentUser,
    session: DbSession,
    state: State,
    idempotency: Idempotency,
    response: Response,
) -> OrgPolicyView:
    _require_admin(caller)
    replayed = await idempotency.replay(session, body)
    if replayed is not None:
        return replayed  # type: ignore[return-value]
    principal = caller.principal
    policy = await PolicyService(session).add_policy(
        principal.org_id, body.name.strip(), body.cedar_text, created_by=principal.user_id
    )
    await session.flush()
    await state.audit.append(session, _entry(policy, "POLICY_ADDED", principal.user_id))
    view = _view(policy)
    location = f"/api/v1/policies/{policy.id}"
    await idempotency.remember(session, body, 201, view.model_dump(mode="json"), location)
    response.headers["Location"] = location
    return view


@router.post("/{policy_id}/disable", summary="Disable a policy: decisions stop using it at once (org admins)")
async def disable_policy(policy_id: PolicyId, caller: CurrentUser, session: DbSession, state: State) -> OrgPolicyView:
    principal = caller.principal
    service = PolicyService(session)
    current = next((p for p in await service.list_policies(principal.org_id) if p.id == policy_id), None)
    if current is None:  # looked up first: another organisation's policy is a 404 for everybody
        raise NotFoundError("No such policy in your organisation; list the policies first.")
    _require_admin(caller)
    if not current.enabled:
        raise ConflictError(f"Policy {current.name!r} is already disabled; add it again to use it.")
    policy = await service.disable_policy(principal.org_id, policy_id, disabled_by=principal.user_id)
    await session.flush()
    await state.audit.append(session, _entry(policy, "POLICY_DISABLED", principal.user_id))
    return _view(policy)


# -- helpers ----------------------------------------------------------------------------------------------


def _require_admin(caller: Authenticated) -> None:
    require(caller, Action.ADMIN, Resource(caller.principal.org_id, kind="the organisation's policies"))


def _rules(infos: list[PolicyInfo]) -> list[PolicyRule]:
    return [
        PolicyRule(
            policy_id=info.policy_id,
            effect="require_approval" if info.requires_approval else info.effect,
            reason=info.reason,
        )
        for info in infos
    ]


@lru_cache(maxsize=1)
def _shipped() -> ShippedPolicies:
    text = default_policies_text()
    infos = check_policy_text(PolicySource("default policies", text), default_schema())
    return ShippedPolicies(cedar_text=text, rules=_rules(infos))


def _view(policy: OrgPolicy) -> OrgPolicyView:
    rules, problem = [], None
    try:
        rules = _rules(check_policy_text(PolicySource(f"policy {policy.name!r}", policy.cedar_text), default_schema()))
    except PolicyValidationError as exc:  # accepted under an older schema
        problem = exc.message
    return OrgPolicyView(
        id=policy.id,
        name=policy.name,
        cedar_text=policy.cedar_text,
        sha256=policy.sha256,
        enabled=policy.enabled,
        rules=rules,
        problem=problem,
        created_by=policy.created_by,
        created_at=policy.created_at,
        disabled_at=policy.disabled_at,
        disabled_by=policy.disabled_by,
    )


def _entry(policy: OrgPolicy, action_type: str, user_id: str) -> AuditEntry:
    return AuditEntry(
        org_id=policy.org_id,
        action_type=action_type,
        executor=f"human:{user_id}",
        user_id=user_id,
        target_element=f"policy {policy.name}",
        details={"policy_id": policy.id, "policy_ids": list(policy.policy_ids), "sha256": policy.sha256},
    )

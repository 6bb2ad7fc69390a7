"""The policy service: organisations' own policies (checked before they are accepted) and recorded decisions.

Use :meth:`PolicyService.decide` for every operation that touches a portal: it decides and appends the decision
to ``policy_decisions`` *before* it returns, so the decision is part of the unit of work that commits before
the effect happens. Services never commit; the caller's unit of work does.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import utcnow
from finrpa.exceptions import NotFoundError
from finrpa.policy.engine import PolicyEngine
from finrpa.policy.models import OrgPolicy, PolicyDecisionRecord
from finrpa.policy.policyset import PolicySource, check_policy_text, compile_policies
from finrpa.policy.repository import DecisionLogRepository, OrgPolicyRepository
from finrpa.policy.schema import PolicySchema, default_policies_text, default_schema
from finrpa.policy.schemas import PolicyContext, PolicyDecision, PolicyRequest

_ENGINE_CACHE_SIZE = 256
_engines: OrderedDict[tuple[str, tuple[PolicySource, ...]], PolicyEngine] = OrderedDict()


def engine_for_sources(sources: tuple[PolicySource, ...], schema: PolicySchema) -> PolicyEngine:
    """A compiled engine per distinct set of policy texts, shared across requests (LRU)."""
    key = (schema.digest, sources)
    engine = _engines.get(key)
    if engine is None:
        engine = PolicyEngine(compile_policies(list(sources), schema), schema)
        _engines[key] = engine
        if len(_engines) > _ENGINE_CACHE_SIZE:
            _engines.popitem(last=False)
    else:
        _engines.move_to_end(key)
    return engine


class PolicyService:
    def __init__(self, session: AsyncSession, *, schema: PolicySchema | None = None) -> None:
        self._session = session
        self._schema = schema or default_schema()
        self._policies = OrgPolicyRepository(session)
        self._log = DecisionLogRepository(session)

    async def add_policy(self, org_id: str, name: str, cedar_text: str, *, created_by: str) -> OrgPolicy:
        """Store an organisation's policy text after it validated against the schema and the policies in
        force (unique @id). Raises PolicyValidationError with the validator's message otherwise."""
        candidate = PolicySource(f"policy {name!r}", cedar_text)
        infos = check_policy_text(candidate, self._schema)
        current = await self._sources(org_id)
        compile_policies([*current, candidate], self._schema)
        policy = OrgPolicy(
            org_id=org_id,
            name=name,
            cedar_text=cedar_text,
            policy_ids=[info.policy_id for info in infos],
            sha256=hashlib.sha256(cedar_text.encode()).hexdigest(),
            enabled=True,
            created_by=created_by,
        )
        return self._policies.add(policy)

    async def disable_policy(self, org_id: str, policy_row_id: str, *, disabled_by: str) -> OrgPolicy:
        policy = await self._policies.get(org_id, policy_row_id)
        if policy is None:
            raise NotFoundError(f"No policy {policy_row_id} exists in this organisation; list the policies first.")
        policy.enabled = False
        policy.disabled_at = utcnow()
        policy.disabled_by = disabled_by
        return policy

    async def list_policies(self, org_id: str) -> Sequence[OrgPolicy]:
        return await self._policies.all(org_id)

    async def engine(self, org_id: str) -> PolicyEngine:
        """The engine for the organisation's policies in force: the defaults plus its enabled policies."""
        return engine_for_sources(tuple(await self._sources(org_id)), self._schema)

    async def decide(
        self, request: PolicyRequest, *, run_id: str | None = None, node_id: str | None = None
    ) -> PolicyDecision:
        """Decide ``request`` and append the decision to the log before returning it."""
        engine = await self.engine(request.principal.org_id)
        decision = engine.decide(request)
        await self._log.append(_record(request, decision, run_id, node_id))
        return decision

    async def decisions_for_run(self, org_id: str, run_id: str) -> Sequence[PolicyDecisionRecord]:
        return await self._log.for_run(org_id, run_id)

    async def _sources(self, org_id: str) -> list[PolicySource]:
        stored = await self._policies.enabled(org_id)
        defaults = PolicySource("default policies", default_policies_text())
        return [defaults, *(PolicySource(f"policy {policy.name!r}", policy.cedar_text) for policy in stored)]


def _record(
    request: PolicyRequest, decision: PolicyDecision, run_id: str | None, node_id: str | None
) -> PolicyDecisionRecord:
    return PolicyDecisionRecord(
        org_id=request.principal.org_id,
        run_id=run_id or request.principal.run_id,
        node_id=node_id,
        principal_type=request.principal.kind,
        principal_id=request.principal.id,
        action=request.action,
        resource_type=request.resource.kind,
        resource_id=request.resource.id,
        decision=decision.decision.value,
        reason_codes=decision.reason_codes,
        context=_logged_context(request.context),
        policy_version=decision.policy_version,
    )


def _logged_context(context: PolicyContext) -> dict[str, object]:
    """What the log keeps of the context: facts the decision used, never argument values themselves."""
    return {
        "amount_cny": str(context.amount_cny),
        "record_count": context.record_count,
        "risk_level": context.risk_level,
        "effect": context.effect,
        "in_manifest": context.in_manifest,
        "host": context.host,
        "data_classes": sorted(context.data_classes),
        "at": context.at.isoformat(),
    }

"""Policy decisions with Cedar: allow, deny or require_approval, with the deciding policies' reason codes.

The engine fails closed: an unknown operation, an entity the schema rejects, or an error while a policy is
evaluated is a deny (``deny.unknown_action`` / ``deny.policy_error``), never an allow.
"""

from __future__ import annotations

import math
from typing import Any
from zoneinfo import ZoneInfo

import cedarpy

from finrpa.policy.policyset import CompiledPolicies, PolicySource, compile_policies
from finrpa.policy.schema import PolicySchema, default_policies_text, default_schema
from finrpa.policy.schemas import (
    RISK_RANKS,
    Decision,
    PolicyContext,
    PolicyDecision,
    PolicyPrincipal,
    PolicyRequest,
    PolicyResource,
)

DEFAULT_TIMEZONE = "Asia/Shanghai"
NOT_PERMITTED = "deny.not_permitted"
UNKNOWN_ACTION = "deny.unknown_action"
POLICY_ERROR = "deny.policy_error"
Entity = dict[str, Any]


class PolicyEngine:
    """Decides requests against one compiled policy set. Cheap to share; build one per policy version."""

    def __init__(self, compiled: CompiledPolicies, schema: PolicySchema, *, timezone: str = DEFAULT_TIMEZONE) -> None:
        self.compiled = compiled
        self.schema = schema
        self._zone = ZoneInfo(timezone)

    @classmethod
    def with_defaults(
        cls, extra: list[PolicySource] | None = None, *, schema: PolicySchema | None = None
    ) -> PolicyEngine:
        """The shipped default policies, plus ``extra`` (an organisation's own)."""
        schema = schema or default_schema()
        sources = [PolicySource("default policies", default_policies_text()), *(extra or [])]
        return cls(compile_policies(sources, schema), schema)

    @property
    def version(self) -> str:
        return self.compiled.version

    def decide(self, request: PolicyRequest) -> PolicyDecision:
        if request.action not in self.schema.catalog:
            return self._decision(
                Decision.DENY,
                [UNKNOWN_ACTION],
                [f"{request.action!r} is not a known operation; register it in the action catalogue first."],
            )
        cedar_request = self._cedar_request(request)
        entities = build_entities(request.principal, request.resource)
        first = self._ask(cedar_request, self.compiled.combined, entities)
        if first.diagnostics.errors:
            return self._policy_error(first)
        if first.decision is cedarpy.Decision.Allow:
            return self._explained(Decision.ALLOW, first.diagnostics.reasons)
        forbidding = first.diagnostics.reasons
        approval_rules = self.compiled.approval_rules(forbidding)
        if not forbidding or len(approval_rules) < len(forbidding):
            return self._denied([policy_id for policy_id in forbidding if policy_id not in approval_rules])
        hard = self._ask(cedar_request, self.compiled.hard, entities)
        if hard.diagnostics.errors:
            return self._policy_error(hard)
        if hard.decision is not cedarpy.Decision.Allow:
            return self._denied(hard.diagnostics.reasons)
        return self._explained(Decision.REQUIRE_APPROVAL, approval_rules)

    def _ask(self, request: dict[str, Any], policies: cedarpy.PolicySet, entities: list[Entity]) -> cedarpy.AuthzResult:
        return cedarpy.is_authorized(request, policies, entities, schema=self.schema.handle)

    def _cedar_request(self, request: PolicyRequest) -> dict[str, Any]:
        return {
            "principal": {"type": request.principal.kind, "id": request.principal.id},
            "action": {"type": "Action", "id": request.action},
            "resource": {"type": request.resource.kind, "id": request.resource.id},
            "context": self.cedar_context(request.context),
        }

    def cedar_context(self, context: PolicyContext) -> dict[str, Any]:
        local = context.at.astimezone(self._zone)
        return {
            "amount_cny": math.ceil(context.amount_cny),
            "record_count": context.record_count,
            "risk_level": context.risk_level,
            "risk_rank": RISK_RANKS[context.risk_level],
            "effect": context.effect,
            "in_manifest": context.in_manifest,
            "host": context.host,
            "data_classes": sorted(context.data_classes),
            "hour": local.hour,
            "weekday": local.isoweekday(),
        }

    def _denied(self, policy_ids: list[str]) -> PolicyDecision:
        if not policy_ids:
            return self._decision(
                Decision.DENY, [NOT_PERMITTED], ["No policy permits this operation for this principal."]
            )
        return self._explained(Decision.DENY, policy_ids)

    def _explained(self, decision: Decision, policy_ids: list[str]) -> PolicyDecision:
        ids = sorted(policy_id for policy_id in policy_ids if policy_id in self.compiled.info)
        return self._decision(decision, ids, [self.compiled.info[policy_id].reason for policy_id in ids])

    def _policy_error(self, result: cedarpy.AuthzResult) -> PolicyDecision:
        return self._decision(
            Decision.DENY,
            [POLICY_ERROR],
            ["A policy could not be evaluated for this request, so it is denied; fix the policy or the request."],
            errors=list(result.diagnostics.errors),
        )

    def _decision(
        self, decision: Decision, codes: list[str], reasons: list[str], *, errors: list[str] | None = None
    ) -> PolicyDecision:
        return PolicyDecision(
            decision=decision, reason_codes=codes, reasons=reasons, policy_version=self.version, errors=errors or []
        )


def build_entities(principal: PolicyPrincipal, resource: PolicyResource) -> list[Entity]:
    """The Cedar entities of one request: the principal (and the user an agent acts for) and the resource."""
    entities = [_principal_entity(principal)]
    if principal.kind == "Agent" and principal.acting_for:
        user = PolicyPrincipal(
            kind="User",
            id=principal.acting_for,
            org_id=principal.org_id,
            roles=principal.roles,
            departments=principal.departments,
            business_lines=principal.business_lines,
        )
        entities.append(_principal_entity(user))
    entities.append(_resource_entity(resource, principal.org_id))
    return entities


def _principal_entity(principal: PolicyPrincipal) -> Entity:
    attrs: dict[str, Any] = {
        "org_id": principal.org_id,
        "roles": sorted(principal.roles),
        "departments": sorted(principal.departments),
        "business_lines": sorted(principal.business_lines),
    }
    parents = [
        *({"type": "Role", "id": role} for role in sorted(principal.roles)),
        *({"type": "Department", "id": dept} for dept in sorted(principal.departments)),
        *({"type": "BusinessLine", "id": line} for line in sorted(principal.business_lines)),
    ]
    if principal.kind == "Agent":
        attrs["run_id"] = principal.run_id or ""
        if principal.acting_for:
            parents.append({"type": "User", "id": principal.acting_for})
    return {"uid": {"type": principal.kind, "id": principal.id}, "attrs": attrs, "parents": parents}


def _resource_entity(resource: PolicyResource, org_id: str) -> Entity:
    parents = []
    if resource.department:
        parents.append({"type": "Department", "id": resource.department})
    if resource.business_line:
        parents.append({"type": "BusinessLine", "id": resource.business_line})
    attrs: dict[str, Any] = {"org_id": org_id, "host": resource.host} if resource.kind == "Portal" else {}
    return {"uid": {"type": resource.kind, "id": resource.id}, "attrs": attrs, "parents": parents}

"""Policy in the run path (SPEC C9): one :class:`RunPolicy` per executing run.

It holds the run's creator (the run's nodes act as Agents for them), the organisation's compiled policies, one
capability manifest per plan node, and the run's capability tokens. A node's manifest is compiled from what the
node asks for (its operation, the run's portal hosts, the amount and record count in its arguments) intersected
with the creator's rights and the policies; it is compiled again only when a replan changes what the node asks
for. The amounts of the plan the run was prepared with are a ceiling no recompilation lifts: a replanned node
that asks to move more money than the user's run did gets a manifest that refuses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from finrpa.identity.permissions import Principal
from finrpa.policy.actions import ActionGroup
from finrpa.policy.engine import PolicyEngine
from finrpa.policy.errors import AttenuationWidening, TokenBindingMismatch
from finrpa.policy.manifest import (
    ArgumentBounds,
    CallArguments,
    CapabilityManifest,
    NodeRequest,
    compile_manifest,
    effect_of,
    runtime_request,
)
from finrpa.policy.rights import policy_principal, rights_for_run
from finrpa.policy.schemas import EffectName, PolicyRequest, PolicyResource, RiskLevelName
from finrpa.policy.tokens import CapabilityTokens, VerifiedCapability

EXECUTOR_AUDIENCE = "executor"
AGENT_AUDIENCE = "agent:llm"  # the LLM loop acting for a node, with an attenuated token of the node's
_EFFECT_RANK: dict[str, int] = {"read": 0, "write": 1, "irreversible": 2}


@dataclass(frozen=True)
class NodeCall:
    """What one plan node does, as policies see it (the run layer derives it from the node's skill call)."""

    node_id: str
    operation: str
    effect: EffectName = "read"
    amount_cny: Decimal | None = None
    record_count: int | None = None

    @property
    def arguments(self) -> CallArguments:
        return CallArguments(amount_cny=self.amount_cny, record_count=self.record_count)


def plan_ceiling(nodes: list[NodeCall]) -> ArgumentBounds:
    """The bounds of the plan a run was prepared with: its largest amount and record count (0 if none)."""
    return ArgumentBounds(
        max_amount_cny=max((node.amount_cny or Decimal(0) for node in nodes), default=Decimal(0)),
        max_records=max((node.record_count or 0 for node in nodes), default=0),
    )


class RunPolicy:
    """Manifests, decisions requests and tokens for one run (see the module docstring)."""

    def __init__(
        self,
        *,
        user: Principal,
        run_id: str,
        department_id: str | None,
        business_line_id: str | None,
        hosts: frozenset[str],
        engine: PolicyEngine,
        tokens: CapabilityTokens,
        ceiling: ArgumentBounds,
    ) -> None:
        self.user = user
        self.run_id = run_id
        self.department_id = department_id
        self.business_line_id = business_line_id
        self.hosts = hosts
        self.engine = engine
        self.tokens = tokens
        self.ceiling = ceiling
        self.manifests: dict[str, CapabilityManifest] = {}
        self._requests: dict[str, NodeRequest] = {}

    @property
    def org_id(self) -> str:
        return self.user.org_id

    def effect(self, operation: str, declared: EffectName) -> EffectName:
        """The stronger of the step's declared effect and the operation's catalogue groups."""
        catalogued = effect_of(self.engine.schema.catalog.get(operation))
        return declared if _EFFECT_RANK[declared] >= _EFFECT_RANK[catalogued] else catalogued

    def is_export(self, operation: str) -> bool:
        spec = self.engine.schema.catalog.get(operation)
        return spec is not None and ActionGroup.EXPORT in spec.groups

    def node_request(self, node: NodeCall) -> NodeRequest:
        return NodeRequest(
            run_id=self.run_id,
            node_id=node.node_id,
            operations=frozenset({node.operation}),
            hosts=self.hosts,
            bounds=ArgumentBounds(max_amount_cny=node.amount_cny or Decimal(0), max_records=node.record_count or 0),
            department=self.department_id,
            business_line=self.business_line_id,
        )

    def compile(self, node: NodeCall) -> CapabilityManifest:
        """Compile the node's manifest: its request ∩ the creator's rights (capped by the ceiling) ∩ policy."""
        request = self.node_request(node)
        rights = rights_for_run(
            self.user,
            department_id=self.department_id,
            business_line_id=self.business_line_id,
            run_id=self.run_id,
            node_id=node.node_id,
            hosts=self.hosts,
            bounds=self.ceiling,
            catalog=self.engine.schema.catalog,
        )
        manifest = compile_manifest(request, rights, self.engine)
        self.manifests[node.node_id] = manifest
        self._requests[node.node_id] = request
        return manifest

    def manifest_for(self, node: NodeCall) -> tuple[CapabilityManifest, bool]:
        """The node's manifest, and whether it was (re)compiled now because the node asks for something else."""
        known = self.manifests.get(node.node_id)
        if known is not None and self._requests.get(node.node_id) == self.node_request(node):
            return known, False
        return self.compile(node), True

    def request(
        self, manifest: CapabilityManifest, node: NodeCall, host: str, *, risk_level: RiskLevelName
    ) -> PolicyRequest:
        """The policy question for the node's operation now, on ``host``, at ``risk_level``."""
        principal = policy_principal(self.user, self.department_id, run_id=self.run_id, node_id=node.node_id)
        resource = PolicyResource(
            id=host or node.node_id, host=host, department=self.department_id, business_line=self.business_line_id
        )
        return runtime_request(
            manifest, principal, node.operation, resource, node.arguments, risk_level=risk_level, effect=node.effect
        )

    def issue_token(self, node_id: str) -> str:
        """A one-use token for the node's current manifest, for the executor to spend right before the effect."""
        return self.tokens.issue(self.manifests[node_id], audience=EXECUTOR_AUDIENCE, max_uses=1)

    async def spend_token(self, token: str, node_id: str) -> VerifiedCapability:
        """Verify the token (signature, expiry, audience, run, node, one use) and that it carries the node's
        current manifest; a token for a manifest since recompiled is refused."""
        verified = await self.tokens.verify(token, audience=EXECUTOR_AUDIENCE, run_id=self.run_id, node_id=node_id)
        current = self.manifests.get(node_id)
        if current is None or verified.claims.mh != current.digest():
            raise TokenBindingMismatch(
                f"This capability token carries an older manifest of node {node_id}; the node was recompiled, "
                "so a new token is needed."
            )
        return verified

    def agent_token(self, node: NodeCall, host: str) -> str:
        """A token for the LLM loop acting for ``node``: attenuated from a one-use token of the node's current
        manifest to exactly this operation, on this host, up to this amount and record count (never a copy)."""
        parent = self.issue_token(node.node_id)
        manifest = self.manifests[node.node_id]
        child = manifest.attenuate(
            operations=frozenset({node.operation}),
            hosts=frozenset({host}) if host else frozenset(),
            bounds=ArgumentBounds(max_amount_cny=node.amount_cny, max_records=node.record_count),
        )
        return self.tokens.attenuate(parent, child, audience=AGENT_AUDIENCE, max_uses=1)

    async def spend_agent_token(self, token: str, node: NodeCall, host: str) -> VerifiedCapability:
        """Right before the LLM loop's effect: verify the attenuated token (signature, expiry, audience, run, node,
        one use), that it derives from a parent token, that its manifest holds no more than the node's current
        one, and that it covers this operation, host and arguments (raises TokenRejected / CapabilityDenied)."""
        verified = await self.tokens.verify(token, audience=AGENT_AUDIENCE, run_id=self.run_id, node_id=node.node_id)
        current = self.manifests.get(node.node_id)
        if verified.claims.parent is None or verified.claims.depth < 1:
            raise TokenBindingMismatch("The LLM loop must act with a token attenuated from its node's, not a root one.")
        if current is None:
            raise TokenBindingMismatch(f"Node {node.node_id} has no manifest in this run; a new token is needed.")
        widening = verified.manifest.widening_over(current)
        if widening:
            raise AttenuationWidening(
                f"This token holds more than node {node.node_id} now may: {'; '.join(widening)}; a new token is needed."
            )
        verified.manifest.check(node.operation, host or None, node.arguments)
        return verified

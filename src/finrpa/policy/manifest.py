"""Plan compilation: a node's requested capabilities, intersected with the user's rights and the policy.

A plan from the LLM is an untrusted request. :func:`compile_manifest` is the trusted compiler: for each node it
keeps only the operations the user may perform, on hosts the task may touch, with data classes and argument
bounds no wider than the user's, and asks the policy engine about every (operation, host) pair — a policy deny
drops the pair, a require_approval keeps it marked. The result, a :class:`CapabilityManifest`, is what skills
and the browser controller check before acting (``manifest.check(operation, host, args)``). A replan whose
node asks for anything the manifest does not cover (``manifest.covers(request)`` is False) must recompile.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from finrpa.policy.actions import ActionGroup, ActionSpec
from finrpa.policy.engine import PolicyEngine
from finrpa.policy.errors import CapabilityDenied
from finrpa.policy.schemas import (
    Decision,
    EffectName,
    PolicyContext,
    PolicyPrincipal,
    PolicyRequest,
    PolicyResource,
    RiskLevelName,
)

NOT_IN_RIGHTS = "deny.not_in_user_rights"
HOST_NOT_ALLOWED = "deny.host_not_allowed"


class ArgumentBounds(BaseModel):
    """Upper bounds on an operation's arguments; None means unbounded."""

    model_config = ConfigDict(frozen=True)

    max_amount_cny: Decimal | None = None
    max_records: int | None = Field(default=None, ge=0)

    def intersect(self, other: ArgumentBounds) -> ArgumentBounds:
        return ArgumentBounds(
            max_amount_cny=_lowest(self.max_amount_cny, other.max_amount_cny),
            max_records=_lowest(self.max_records, other.max_records),
        )

    def widens(self, parent: ArgumentBounds) -> list[str]:
        """What makes these bounds wider than ``parent``'s (empty when they are within)."""
        found = []
        if _wider(self.max_amount_cny, parent.max_amount_cny):
            found.append(f"max_amount_cny {self.max_amount_cny} exceeds {parent.max_amount_cny}")
        if _wider(self.max_records, parent.max_records):
            found.append(f"max_records {self.max_records} exceeds {parent.max_records}")
        return found


N = TypeVar("N", int, Decimal)


def _lowest(first: N | None, second: N | None) -> N | None:
    if first is None:
        return second
    return first if second is None else min(first, second)


def _wider(child: N | None, parent: N | None) -> bool:
    return parent is not None and (child is None or child > parent)


class CallArguments(BaseModel):
    """The arguments of one concrete operation, as far as the manifest bounds them."""

    model_config = ConfigDict(frozen=True)

    amount_cny: Decimal | None = None
    record_count: int | None = None
    data_classes: frozenset[str] = frozenset()


class NodeRequest(BaseModel):
    """What one plan node asks for (untrusted: it comes from a planner, possibly an LLM)."""

    model_config = ConfigDict(frozen=True)

    run_id: str = Field(min_length=1)
    node_id: str = Field(min_length=1)
    operations: frozenset[str]
    hosts: frozenset[str] = frozenset()
    data_classes: frozenset[str] = frozenset()
    bounds: ArgumentBounds = Field(default_factory=ArgumentBounds)
    department: str | None = None
    business_line: str | None = None


class PrincipalRights(BaseModel):
    """What the user behind the run may do (from the identity permission chain and the task)."""

    model_config = ConfigDict(frozen=True)

    principal: PolicyPrincipal
    operations: frozenset[str]
    hosts: frozenset[str]
    data_classes: frozenset[str] | None = None  # None: any data class
    bounds: ArgumentBounds = Field(default_factory=ArgumentBounds)


class DroppedRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    operation: str | None
    host: str | None
    reason_code: str
    reason: str


class CapabilityManifest(BaseModel):
    """The capabilities one node holds: operations with the hosts each may touch, data classes and bounds."""

    model_config = ConfigDict(frozen=True)

    org_id: str
    run_id: str
    node_id: str
    principal_id: str
    grants: dict[str, frozenset[str]]
    approval_operations: frozenset[str] = frozenset()
    data_classes: frozenset[str] = frozenset()
    bounds: ArgumentBounds = Field(default_factory=ArgumentBounds)
    dropped: tuple[DroppedRequest, ...] = ()
    policy_version: str = ""

    def rights(self) -> dict[str, object]:
        """The rights alone, in canonical form (what :meth:`digest` hashes and tokens carry)."""
        return {
            "org_id": self.org_id,
            "run_id": self.run_id,
            "node_id": self.node_id,
            "principal_id": self.principal_id,
            "grants": {operation: sorted(hosts) for operation, hosts in sorted(self.grants.items())},
            "approval_operations": sorted(self.approval_operations),
            "data_classes": sorted(self.data_classes),
            "bounds": self.bounds.model_dump(mode="json"),
        }

    def digest(self) -> str:
        canonical = json.dumps(self.rights(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def permits(self, operation: str, host: str | None, args: CallArguments | None = None) -> bool:
        try:
            self.check(operation, host, args)
        except CapabilityDenied:
            return False
        return True

    def check(self, operation: str, host: str | None, args: CallArguments | None = None) -> None:
        """Raise CapabilityDenied unless the operation, its host and its arguments are inside the manifest."""
        hosts = self.grants.get(operation)
        if hosts is None:
            raise CapabilityDenied(
                f"Operation {operation!r} is not in the capability manifest of node {self.node_id}; "
                "replan so that the compiler grants it, or ask an administrator for the right."
            )
        if not _host_allowed(host, hosts):
            allowed = ", ".join(sorted(hosts)) or "none (it was granted without a host)"
            raise CapabilityDenied(
                f"Operation {operation!r} may not touch host {host or '(none given)'!r} in node {self.node_id}; "
                f"allowed hosts: {allowed}."
            )
        if args is not None:
            self._check_arguments(operation, args)

    def _check_arguments(self, operation: str, args: CallArguments) -> None:
        limits = self.bounds
        if _wider(args.amount_cny, limits.max_amount_cny) and args.amount_cny is not None:
            raise CapabilityDenied(
                f"{operation!r} moves {args.amount_cny} CNY, more than this node's limit of "
                f"{limits.max_amount_cny} CNY; a new plan with a higher bound needs a new manifest."
            )
        if _wider(args.record_count, limits.max_records) and args.record_count is not None:
            raise CapabilityDenied(
                f"{operation!r} touches {args.record_count} records, more than this node's limit of "
                f"{limits.max_records}."
            )
        extra = args.data_classes - self.data_classes
        if extra:
            raise CapabilityDenied(
                f"{operation!r} touches data classes {', '.join(sorted(extra))} that node {self.node_id} may not."
            )

    def covers(self, request: NodeRequest) -> bool:
        """Whether a (re)planned node's request is inside this manifest; if not, recompile."""
        for operation in request.operations:
            hosts = self.grants.get(operation)
            if hosts is None or any(not _host_allowed(host, hosts) for host in request.hosts):
                return False
        within_bounds = not request.bounds.widens(self.bounds)
        return within_bounds and request.data_classes <= self.data_classes

    def widening_over(self, parent: CapabilityManifest) -> list[str]:
        """Everything this manifest holds that ``parent`` does not (empty: a proper attenuation)."""
        found = [f"{name} differs" for name in ("org_id", "run_id") if getattr(self, name) != getattr(parent, name)]
        for operation, hosts in self.grants.items():
            parent_hosts = parent.grants.get(operation)
            if parent_hosts is None:
                found.append(f"operation {operation!r} is not held by the parent")
            elif any(not _host_allowed(host, parent_hosts) for host in hosts):
                found.append(f"operation {operation!r} reaches hosts the parent may not")
        lost_approval = (parent.approval_operations & set(self.grants)) - self.approval_operations
        found += [f"operation {operation!r} would lose its approval requirement" for operation in sorted(lost_approval)]
        extra_classes = sorted(self.data_classes - parent.data_classes)
        found += [f"data class {name!r} is not held by the parent" for name in extra_classes]
        return found + self.bounds.widens(parent.bounds)

    def attenuate(
        self,
        *,
        node_id: str | None = None,
        operations: frozenset[str] | None = None,
        hosts: frozenset[str] | None = None,
        data_classes: frozenset[str] | None = None,
        bounds: ArgumentBounds | None = None,
    ) -> CapabilityManifest:
        """A narrower manifest for a child agent: the intersection with what is asked, never more."""
        grants = {
            operation: frozenset(host for host in granted if hosts is None or host in hosts)
            for operation, granted in self.grants.items()
            if operations is None or operation in operations
        }
        return self.model_copy(
            update={
                "node_id": node_id or self.node_id,
                "grants": grants,
                "approval_operations": self.approval_operations & set(grants),
                "data_classes": self.data_classes if data_classes is None else self.data_classes & data_classes,
                "bounds": self.bounds if bounds is None else self.bounds.intersect(bounds),
                "dropped": (),
            }
        )


def _host_allowed(host: str | None, allowed: frozenset[str]) -> bool:
    """A granted host set allows those hosts; an empty one allows only host-less use (complete, fail …)."""
    return host_matches(host, allowed) if host else not allowed


def normalize_host(host: str) -> str:
    return host.strip().lower().rstrip(".")


def host_matches(host: str, allowed: frozenset[str]) -> bool:
    """Exact host (case-insensitive), or a ``*.example.com`` pattern matching any subdomain."""
    host = normalize_host(host)
    for pattern in allowed:
        pattern = normalize_host(pattern)
        if host == pattern or (pattern.startswith("*.") and host.endswith(pattern[1:])):
            return True
    return False


def effect_of(spec: ActionSpec | None) -> EffectName:
    if spec is None:
        return "irreversible"
    if ActionGroup.IRREVERSIBLE in spec.groups:
        return "irreversible"
    return "write" if ActionGroup.WRITE in spec.groups or ActionGroup.DELETE in spec.groups else "read"


@dataclass
class _Compilation:
    """One run of the compiler: the inputs, and the grants and refusals found so far."""

    request: NodeRequest
    rights: PrincipalRights
    policies: PolicyEngine
    hosts: frozenset[str]
    data_classes: frozenset[str]
    bounds: ArgumentBounds
    grants: dict[str, frozenset[str]] = field(default_factory=dict)
    approval: set[str] = field(default_factory=set)
    dropped: list[DroppedRequest] = field(default_factory=list)

    def add_operation(self, operation: str) -> None:
        if operation not in self.rights.operations:
            self.refuse(operation, None, NOT_IN_RIGHTS, f"The user may not perform {operation!r} in this department.")
            return
        granted: set[str] = set()
        for host in sorted(self.hosts) or [""]:
            decision = self.policies.decide(self._policy_request(operation, host))
            if decision.decision is Decision.DENY:
                self.refuse(operation, host or None, ",".join(decision.reason_codes), " ".join(decision.reasons))
                continue
            if decision.decision is Decision.REQUIRE_APPROVAL:
                self.approval.add(operation)
            granted.add(host)
        if granted:
            self.grants[operation] = frozenset(host for host in granted if host)

    def refuse(self, operation: str | None, host: str | None, code: str, reason: str) -> None:
        self.dropped.append(DroppedRequest(operation=operation, host=host, reason_code=code, reason=reason))

    def _policy_request(self, operation: str, host: str) -> PolicyRequest:
        request = self.request
        resource = PolicyResource(
            id=host or request.node_id, host=host, department=request.department, business_line=request.business_line
        )
        context = PolicyContext(
            amount_cny=self.bounds.max_amount_cny or Decimal(0),
            record_count=self.bounds.max_records or 0,
            effect=effect_of(self.policies.schema.catalog.get(operation)),
            in_manifest=True,
            host=host,
            data_classes=self.data_classes,
        )
        return PolicyRequest(principal=self.rights.principal, action=operation, resource=resource, context=context)


def compile_manifest(request: NodeRequest, rights: PrincipalRights, policies: PolicyEngine) -> CapabilityManifest:
    """The trusted compiler: ``request`` ∩ ``rights`` ∩ ``policies`` (see the module docstring)."""
    hosts = frozenset(host for host in request.hosts if host_matches(host, rights.hosts))
    allowed_classes = request.data_classes if rights.data_classes is None else rights.data_classes
    work = _Compilation(
        request=request,
        rights=rights,
        policies=policies,
        hosts=hosts,
        data_classes=request.data_classes & allowed_classes,
        bounds=request.bounds.intersect(rights.bounds),
    )
    for host in sorted(request.hosts - hosts):
        work.refuse(None, host, HOST_NOT_ALLOWED, f"The task may not touch host {host!r}.")
    for operation in sorted(request.operations):
        work.add_operation(operation)
    return CapabilityManifest(
        org_id=rights.principal.org_id,
        run_id=request.run_id,
        node_id=request.node_id,
        principal_id=rights.principal.id,
        grants=work.grants,
        approval_operations=frozenset(work.approval & set(work.grants)),
        data_classes=work.data_classes,
        bounds=work.bounds,
        dropped=tuple(work.dropped),
        policy_version=policies.version,
    )


def runtime_request(
    manifest: CapabilityManifest,
    principal: PolicyPrincipal,
    operation: str,
    resource: PolicyResource,
    args: CallArguments | None = None,
    *,
    risk_level: RiskLevelName = "low",
    effect: EffectName = "read",
) -> PolicyRequest:
    """The policy request for one concrete operation at run time, with ``in_manifest`` computed from the
    manifest (so ``deny.outside_manifest`` fires for anything the compiler did not grant)."""
    args = args or CallArguments()
    return PolicyRequest(
        principal=principal,
        action=operation,
        resource=resource,
        context=PolicyContext(
            amount_cny=args.amount_cny or Decimal(0),
            record_count=args.record_count or 0,
            risk_level=risk_level,
            effect=effect,
            in_manifest=manifest.permits(operation, resource.host or None, args),
            host=resource.host,
            data_classes=args.data_classes,
        ),
    )

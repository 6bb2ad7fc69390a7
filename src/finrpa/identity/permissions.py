"""The permission chain of SPEC §C8, as one pure function every service calls.

``decide_permission(principal, action, resource)`` walks the chain in order and returns the first
rule that decides, with a sentence saying why:

0. an API key may only do what its scopes list; nobody acts in another organisation (except super admin);
1. platform super_admin, or org_admin of the resource's organisation → everything;
2. the resource's department is one of the user's departments → the rights of the user's roles there;
3. the resource's business line is one of the user's lines → read only;
4. CROSS_DEPT_READ → read; CROSS_DEPT_APPROVE → read and approve (never where the user is the operator:
   maker-checker holds across grants too);
5. otherwise deny.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from finrpa.exceptions import PermissionDeniedError
from finrpa.identity.models import GrantKind, Role
from finrpa.tenancy.context import TenantContext


class Action(StrEnum):
    READ = "read"
    OPERATE = "operate"  # start and steer runs
    APPROVE = "approve"  # approve or reject a risky step
    AUDIT = "audit"  # search, verify and export the audit trail
    ADMIN = "admin"  # manage members, credentials, policies


ROLE_RIGHTS: Mapping[Role, frozenset[Action]] = {
    Role.DEPT_ADMIN: frozenset({Action.READ, Action.ADMIN}),
    Role.OPERATOR: frozenset({Action.READ, Action.OPERATE}),
    Role.APPROVER: frozenset({Action.READ, Action.APPROVE}),
    Role.AUDITOR: frozenset({Action.READ, Action.AUDIT}),
    Role.VIEWER: frozenset({Action.READ}),
}

GRANT_RIGHTS: Mapping[GrantKind, frozenset[Action]] = {
    GrantKind.CROSS_DEPT_READ: frozenset({Action.READ}),
    GrantKind.CROSS_DEPT_APPROVE: frozenset({Action.READ, Action.APPROVE}),
}


class Rule(StrEnum):
    API_KEY_SCOPE = "api_key_scope"
    OTHER_ORGANISATION = "other_organisation"
    ADMIN = "admin"
    DEPARTMENT_ROLE = "department_role"
    BUSINESS_LINE = "business_line"
    CROSS_DEPT_GRANT = "cross_dept_grant"
    MAKER_CHECKER = "maker_checker"
    DEFAULT_DENY = "default_deny"


@dataclass(frozen=True, slots=True)
class CrossDeptGrant:
    kind: GrantKind
    department_id: str | None  # None: every department of the organisation

    def covers(self, department_id: str | None) -> bool:
        return self.department_id is None or self.department_id == department_id


@dataclass(frozen=True)
class Principal:
    """Who acts: a user (or the user behind an API key) with everything the chain needs, loaded once."""

    user_id: str
    org_id: str
    username: str = ""
    is_super_admin: bool = False
    is_org_admin: bool = False
    department_roles: Mapping[str, frozenset[Role]] = field(default_factory=dict)
    business_line_ids: frozenset[str] = frozenset()
    grants: frozenset[CrossDeptGrant] = frozenset()
    scopes: frozenset[Action] | None = None  # set for API keys: the only actions they may take
    api_key_id: str | None = None

    @classmethod
    def platform(cls, org_id: str, reason: str) -> Principal:
        """The platform itself (CLI, workers) acting on one organisation; allowed everything by rule 1."""
        return cls(user_id="system", org_id=org_id, username=f"system ({reason})", is_super_admin=True)

    def roles_in(self, department_id: str | None) -> frozenset[Role]:
        return self.department_roles.get(department_id or "", frozenset())

    def tenant_context(self) -> TenantContext:
        """The rows this principal may see: its departments, its grants' departments and its lines."""
        departments = set(self.department_roles)
        departments.update(g.department_id for g in self.grants if g.department_id is not None)
        every_department = any(g.department_id is None for g in self.grants)
        org_wide = self.is_super_admin or self.is_org_admin or every_department
        return TenantContext(
            org_id=self.org_id,
            user_id=self.user_id,
            visible_department_ids=frozenset(departments),
            visible_business_line_ids=self.business_line_ids,
            org_wide=org_wide,
            reason=f"user {self.username or self.user_id}",
        )


@dataclass(frozen=True, slots=True)
class Resource:
    """What is acted on: its organisation and, where it has them, its department and business line."""

    org_id: str
    dept_id: str | None = None
    bl_id: str | None = None
    kind: str = "resource"
    id: str | None = None

    def describe(self) -> str:
        return f"{self.kind} {self.id}" if self.id else self.kind


@dataclass(frozen=True, slots=True)
class PermissionDecision:
    allowed: bool
    rule: Rule
    reason: str

    def require(self) -> None:
        """Raise PermissionDeniedError with the decision's reason unless it allows."""
        if not self.allowed:
            raise PermissionDeniedError(self.reason, code=f"permission_denied.{self.rule.value}")


_Verdict = PermissionDecision | None


def decide_permission(principal: Principal, action: Action, resource: Resource) -> PermissionDecision:
    """Walk the permission chain and return the first rule that decides (default deny)."""
    for step in (_scope_gate, _admin_rule, _department_rule, _business_line_rule, _grant_rule):
        decision = step(principal, action, resource)
        if decision is not None:
            return decision
    return PermissionDecision(
        False,
        Rule.DEFAULT_DENY,
        f"{_who(principal)} may not {action.value} {resource.describe()}: no role in its department, "
        "no business-line visibility and no cross-department grant covers it. Ask an administrator "
        "for a role in that department.",
    )


def _who(principal: Principal) -> str:
    return f"User {principal.username or principal.user_id}"


def _scope_gate(principal: Principal, action: Action, resource: Resource) -> _Verdict:
    if principal.scopes is not None and action not in principal.scopes:
        scopes = ", ".join(sorted(s.value for s in principal.scopes)) or "none"
        return PermissionDecision(
            False,
            Rule.API_KEY_SCOPE,
            f"This API key may not {action.value} (its scopes: {scopes}); create a key with that scope.",
        )
    if resource.org_id != principal.org_id and not principal.is_super_admin:
        return PermissionDecision(
            False, Rule.OTHER_ORGANISATION, f"{resource.describe()} belongs to another organisation."
        )
    return None


def _admin_rule(principal: Principal, action: Action, resource: Resource) -> _Verdict:
    if principal.is_super_admin:
        return PermissionDecision(True, Rule.ADMIN, f"{_who(principal)} is a platform super admin.")
    if principal.is_org_admin:
        return PermissionDecision(True, Rule.ADMIN, f"{_who(principal)} is an admin of this organisation.")
    return None


def _department_rule(principal: Principal, action: Action, resource: Resource) -> _Verdict:
    roles = principal.roles_in(resource.dept_id)
    granting = sorted(role.value for role in roles if action in ROLE_RIGHTS[role])
    if resource.dept_id is None or not granting:
        return None
    return PermissionDecision(
        True,
        Rule.DEPARTMENT_ROLE,
        f"{_who(principal)} is {' and '.join(granting)} in department {resource.dept_id}, which may {action.value}.",
    )


def _business_line_rule(principal: Principal, action: Action, resource: Resource) -> _Verdict:
    if action is not Action.READ or resource.bl_id is None:
        return None
    if resource.bl_id not in principal.business_line_ids:
        return None
    return PermissionDecision(
        True,
        Rule.BUSINESS_LINE,
        f"{_who(principal)} belongs to business line {resource.bl_id}, which gives read access.",
    )


def _grant_rule(principal: Principal, action: Action, resource: Resource) -> _Verdict:
    grants = [g for g in principal.grants if g.covers(resource.dept_id) and action in GRANT_RIGHTS[g.kind]]
    if not grants:
        return None
    if action is Action.APPROVE and Role.OPERATOR in principal.roles_in(resource.dept_id):
        return PermissionDecision(
            False,
            Rule.MAKER_CHECKER,
            f"{_who(principal)} is an operator in department {resource.dept_id} and so may not approve "
            "there, whatever cross-department grant they hold (maker-checker).",
        )
    return PermissionDecision(
        True,
        Rule.CROSS_DEPT_GRANT,
        f"{_who(principal)} holds {grants[0].kind.value}, which allows {action.value} here.",
    )

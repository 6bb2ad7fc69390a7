"""The permission chain of §C8, table-driven: each of its five rules, the business-line rule, and the gates."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from finrpa.exceptions import PermissionDeniedError
from finrpa.identity.models import GrantKind, Role
from finrpa.identity.permissions import (
    Action,
    CrossDeptGrant,
    Principal,
    Resource,
    Rule,
    decide_permission,
)

ORG, OTHER_ORG = "org-1", "org-2"
OPS, RISK, TREASURY = "dept-ops", "dept-risk", "dept-treasury"
CORPORATE, RETAIL = "bl-corporate", "bl-retail"


def person(**kwargs: object) -> Principal:
    return Principal(user_id="u1", org_id=ORG, username="u1", **kwargs)  # type: ignore[arg-type]


OPERATOR_IN_OPS = person(department_roles={OPS: frozenset({Role.OPERATOR})})
APPROVER_IN_OPS = person(department_roles={OPS: frozenset({Role.APPROVER})})
AUDITOR_IN_OPS = person(department_roles={OPS: frozenset({Role.AUDITOR})})
VIEWER_IN_OPS = person(department_roles={OPS: frozenset({Role.VIEWER})})
DEPT_ADMIN_OF_OPS = person(department_roles={OPS: frozenset({Role.DEPT_ADMIN})})
OPERATOR_IN_OPS_ON_CORPORATE = person(
    department_roles={OPS: frozenset({Role.OPERATOR})}, business_line_ids=frozenset({CORPORATE})
)
CROSS_READER = person(grants=frozenset({CrossDeptGrant(GrantKind.CROSS_DEPT_READ, None)}))
CROSS_APPROVER_FOR_RISK = person(grants=frozenset({CrossDeptGrant(GrantKind.CROSS_DEPT_APPROVE, RISK)}))
OPERATOR_WITH_APPROVE_GRANT = person(
    department_roles={OPS: frozenset({Role.OPERATOR})},
    grants=frozenset({CrossDeptGrant(GrantKind.CROSS_DEPT_APPROVE, None)}),
)
ORG_ADMIN = person(is_org_admin=True)
SUPER_ADMIN = Principal(user_id="root", org_id=OTHER_ORG, username="root", is_super_admin=True)
READ_ONLY_KEY = person(department_roles={OPS: frozenset({Role.OPERATOR})}, scopes=frozenset({Action.READ}))


@dataclass(frozen=True)
class Case:
    name: str
    principal: Principal
    action: Action
    resource: Resource
    allowed: bool
    rule: Rule


def res(dept: str | None = None, bl: str | None = None, org: str = ORG) -> Resource:
    return Resource(org, dept_id=dept, bl_id=bl, kind="run", id="r1")


CASES = [
    # (1) super admin / org admin → everything
    Case("super admin, any org", SUPER_ADMIN, Action.ADMIN, res(OPS), True, Rule.ADMIN),
    Case("org admin approves anywhere", ORG_ADMIN, Action.APPROVE, res(TREASURY), True, Rule.ADMIN),
    Case("org admin on org-level resource", ORG_ADMIN, Action.ADMIN, res(), True, Rule.ADMIN),
    Case("org admin of another org", ORG_ADMIN, Action.READ, res(OPS, org=OTHER_ORG), False, Rule.OTHER_ORGANISATION),
    # (2) the resource's department is the user's → that role's rights
    Case("operator operates in own dept", OPERATOR_IN_OPS, Action.OPERATE, res(OPS), True, Rule.DEPARTMENT_ROLE),
    Case("operator reads in own dept", OPERATOR_IN_OPS, Action.READ, res(OPS), True, Rule.DEPARTMENT_ROLE),
    Case("operator cannot approve", OPERATOR_IN_OPS, Action.APPROVE, res(OPS), False, Rule.DEFAULT_DENY),
    Case("approver approves in own dept", APPROVER_IN_OPS, Action.APPROVE, res(OPS), True, Rule.DEPARTMENT_ROLE),
    Case("approver cannot operate", APPROVER_IN_OPS, Action.OPERATE, res(OPS), False, Rule.DEFAULT_DENY),
    Case("auditor audits own dept", AUDITOR_IN_OPS, Action.AUDIT, res(OPS), True, Rule.DEPARTMENT_ROLE),
    Case("viewer only reads", VIEWER_IN_OPS, Action.OPERATE, res(OPS), False, Rule.DEFAULT_DENY),
    Case("dept admin administers own dept", DEPT_ADMIN_OF_OPS, Action.ADMIN, res(OPS), True, Rule.DEPARTMENT_ROLE),
    Case("dept admin not other dept", DEPT_ADMIN_OF_OPS, Action.ADMIN, res(RISK), False, Rule.DEFAULT_DENY),
    Case("dept admin not org level", DEPT_ADMIN_OF_OPS, Action.ADMIN, res(), False, Rule.DEFAULT_DENY),
    Case("operator elsewhere denied", OPERATOR_IN_OPS, Action.OPERATE, res(RISK), False, Rule.DEFAULT_DENY),
    # (3) business line → read only; the dept role only where the resource is in that dept
    Case(
        "line member reads other dept",
        OPERATOR_IN_OPS_ON_CORPORATE,
        Action.READ,
        res(RISK, CORPORATE),
        True,
        Rule.BUSINESS_LINE,
    ),
    Case(
        "line gives no operate elsewhere",
        OPERATOR_IN_OPS_ON_CORPORATE,
        Action.OPERATE,
        res(RISK, CORPORATE),
        False,
        Rule.DEFAULT_DENY,
    ),
    Case(
        "line + own dept keeps dept role",
        OPERATOR_IN_OPS_ON_CORPORATE,
        Action.OPERATE,
        res(OPS, CORPORATE),
        True,
        Rule.DEPARTMENT_ROLE,
    ),
    Case(
        "other line not visible", OPERATOR_IN_OPS_ON_CORPORATE, Action.READ, res(RISK, RETAIL), False, Rule.DEFAULT_DENY
    ),
    # (4) cross-department grants
    Case("cross read reads any dept", CROSS_READER, Action.READ, res(TREASURY), True, Rule.CROSS_DEPT_GRANT),
    Case("cross read cannot approve", CROSS_READER, Action.APPROVE, res(TREASURY), False, Rule.DEFAULT_DENY),
    Case(
        "cross approve in granted dept", CROSS_APPROVER_FOR_RISK, Action.APPROVE, res(RISK), True, Rule.CROSS_DEPT_GRANT
    ),
    Case(
        "cross approve reads granted dept", CROSS_APPROVER_FOR_RISK, Action.READ, res(RISK), True, Rule.CROSS_DEPT_GRANT
    ),
    Case("cross approve not other dept", CROSS_APPROVER_FOR_RISK, Action.APPROVE, res(OPS), False, Rule.DEFAULT_DENY),
    Case("cross approve never operates", CROSS_APPROVER_FOR_RISK, Action.OPERATE, res(RISK), False, Rule.DEFAULT_DENY),
    Case(
        "grant cannot beat maker-checker",
        OPERATOR_WITH_APPROVE_GRANT,
        Action.APPROVE,
        res(OPS),
        False,
        Rule.MAKER_CHECKER,
    ),
    Case(
        "grant approves where not operator",
        OPERATOR_WITH_APPROVE_GRANT,
        Action.APPROVE,
        res(RISK),
        True,
        Rule.CROSS_DEPT_GRANT,
    ),
    # (5) default deny, and the gates before the chain
    Case("nobody", person(), Action.READ, res(OPS), False, Rule.DEFAULT_DENY),
    Case("no dept on resource", OPERATOR_IN_OPS, Action.READ, res(), False, Rule.DEFAULT_DENY),
    Case("other organisation", OPERATOR_IN_OPS, Action.READ, res(OPS, org=OTHER_ORG), False, Rule.OTHER_ORGANISATION),
    Case("key scope allows read", READ_ONLY_KEY, Action.READ, res(OPS), True, Rule.DEPARTMENT_ROLE),
    Case("key scope forbids operate", READ_ONLY_KEY, Action.OPERATE, res(OPS), False, Rule.API_KEY_SCOPE),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_permission_chain(case: Case) -> None:
    decision = decide_permission(case.principal, case.action, case.resource)
    assert (decision.allowed, decision.rule) == (case.allowed, case.rule)
    assert decision.reason.endswith(".") and len(decision.reason) > 20


def test_every_rule_of_the_chain_is_covered_by_the_table() -> None:
    assert {case.rule for case in CASES} == set(Rule)


def test_a_denial_raises_with_its_reason() -> None:
    decision = decide_permission(OPERATOR_IN_OPS, Action.APPROVE, res(OPS))
    with pytest.raises(PermissionDeniedError, match="may not approve") as denied:
        decision.require()
    assert denied.value.code == "permission_denied.default_deny"


def test_tenant_context_shows_departments_of_roles_and_grants_and_lines() -> None:
    principal = person(
        department_roles={OPS: frozenset({Role.OPERATOR})},
        business_line_ids=frozenset({CORPORATE}),
        grants=frozenset({CrossDeptGrant(GrantKind.CROSS_DEPT_APPROVE, RISK)}),
    )
    ctx = principal.tenant_context()
    assert (ctx.org_id, ctx.org_wide, ctx.is_system) == (ORG, False, False)
    assert ctx.visible_department_ids == {OPS, RISK}
    assert ctx.visible_business_line_ids == {CORPORATE}
    assert CROSS_READER.tenant_context().org_wide and ORG_ADMIN.tenant_context().org_wide

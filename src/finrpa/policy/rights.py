"""From the identity permission chain (SPEC C8) to what the plan compiler and the policy engine need.

The run layer calls :func:`rights_for_run` once per node: the chain decides whether the user behind the run may
operate (every operation of the catalogue), only read (operations in the read group), or nothing in the
department the node works for; the task contributes its hosts and data classes.
"""

from __future__ import annotations

from finrpa.identity.permissions import Action, Principal, Resource, decide_permission
from finrpa.policy.actions import ActionCatalog, ActionGroup
from finrpa.policy.manifest import ArgumentBounds, PrincipalRights
from finrpa.policy.schemas import PolicyPrincipal


def policy_principal(
    user: Principal, department_id: str | None, *, run_id: str | None = None, node_id: str | None = None
) -> PolicyPrincipal:
    """The user as a Cedar principal — or, with ``run_id``, the agent acting for them in that run and node."""
    roles = {role.value for role in user.roles_in(department_id)}
    if user.is_org_admin or user.is_super_admin:
        roles.add("org_admin")
    common = {
        "org_id": user.org_id,
        "roles": frozenset(roles),
        "departments": frozenset(user.department_roles),
        "business_lines": user.business_line_ids,
    }
    if run_id is None:
        return PolicyPrincipal(kind="User", id=user.user_id, **common)
    agent_id = f"{run_id}/{node_id}" if node_id else run_id
    return PolicyPrincipal(kind="Agent", id=agent_id, acting_for=user.user_id, run_id=run_id, **common)


def rights_for_run(
    user: Principal,
    *,
    department_id: str | None,
    business_line_id: str | None,
    run_id: str,
    node_id: str,
    hosts: frozenset[str],
    data_classes: frozenset[str] | None = None,
    bounds: ArgumentBounds | None = None,
    catalog: ActionCatalog | None = None,
) -> PrincipalRights:
    catalog = catalog or ActionCatalog.default()
    resource = Resource(org_id=user.org_id, dept_id=department_id, bl_id=business_line_id, kind="run", id=run_id)
    if decide_permission(user, Action.OPERATE, resource).allowed:
        operations = frozenset(spec.name for spec in catalog)
    elif decide_permission(user, Action.READ, resource).allowed:
        operations = frozenset(spec.name for spec in catalog if spec.groups <= {ActionGroup.READ, ActionGroup.EXPORT}
                               and ActionGroup.READ in spec.groups)  # fmt: skip
    else:
        operations = frozenset()
    return PrincipalRights(
        principal=policy_principal(user, department_id, run_id=run_id, node_id=node_id),
        operations=operations,
        hosts=hosts,
        data_classes=data_classes,
        bounds=bounds or ArgumentBounds(),
    )

"""The identity permission chain decides which operations a node may even ask the policy about."""

from __future__ import annotations

from finrpa.identity.models import Role
from finrpa.identity.permissions import Principal
from finrpa.policy.engine import PolicyEngine
from finrpa.policy.manifest import NodeRequest, compile_manifest
from finrpa.policy.rights import policy_principal, rights_for_run

OPERATOR = Principal(user_id="u-op", org_id="org-a", department_roles={"ops": frozenset({Role.OPERATOR})})
VIEWER = Principal(user_id="u-view", org_id="org-a", department_roles={"ops": frozenset({Role.VIEWER})})
HOSTS = frozenset({"bank.example"})


def rights(user: Principal, department: str = "ops") -> frozenset[str]:
    return rights_for_run(
        user, department_id=department, business_line_id=None, run_id="run-1", node_id="n1", hosts=HOSTS
    ).operations


def test_an_operator_may_ask_for_every_operation_a_viewer_only_for_reads() -> None:
    assert {"payment.submit", "FormFillSkill", "navigate"} <= rights(OPERATOR)
    assert "navigate" in rights(VIEWER) and "FileDownloadSkill" in rights(VIEWER)
    assert not {"payment.submit", "fill", "records.export"} & rights(VIEWER)


def test_nobody_gets_rights_in_a_department_they_do_not_belong_to() -> None:
    assert rights(OPERATOR, department="treasury") == frozenset()


def test_the_agent_principal_carries_the_users_roles_and_acts_for_them() -> None:
    agent = policy_principal(OPERATOR, "ops", run_id="run-1", node_id="n1")
    assert (agent.kind, agent.id, agent.acting_for, agent.roles) == ("Agent", "run-1/n1", "u-op", {"operator"})


def test_a_viewers_node_cannot_be_compiled_into_a_payment() -> None:
    user_rights = rights_for_run(
        VIEWER, department_id="ops", business_line_id=None, run_id="run-1", node_id="n1", hosts=HOSTS
    )
    request = NodeRequest(run_id="run-1", node_id="n1", operations=frozenset({"navigate", "payment.submit"}),
                          hosts=HOSTS)  # fmt: skip
    manifest = compile_manifest(request, user_rights, PolicyEngine.with_defaults())
    assert set(manifest.grants) == {"navigate"}

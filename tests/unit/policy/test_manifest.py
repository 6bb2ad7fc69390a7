"""The trusted plan compiler: a node gets what it asked for only where the user's rights and the policy agree."""

from __future__ import annotations

from decimal import Decimal

import pytest

from finrpa.policy.engine import PolicyEngine
from finrpa.policy.errors import CapabilityDenied
from finrpa.policy.manifest import (
    ArgumentBounds,
    CallArguments,
    CapabilityManifest,
    NodeRequest,
    PrincipalRights,
    compile_manifest,
    runtime_request,
)
from finrpa.policy.schemas import Decision, PolicyPrincipal, PolicyResource

AGENT = PolicyPrincipal(
    kind="Agent", id="run-1/pay", org_id="org-a", acting_for="u-op", run_id="run-1", roles=frozenset({"operator"})
)
RIGHTS = PrincipalRights(
    principal=AGENT,
    operations=frozenset({"navigate", "fill", "click", "payment.submit", "record.delete", "records.export"}),
    hosts=frozenset({"bank.example", "*.bank.example"}),
    data_classes=frozenset({"payment", "own_statement"}),
    bounds=ArgumentBounds(max_amount_cny=Decimal(2_000_000)),
)
REQUEST = NodeRequest(
    run_id="run-1",
    node_id="pay",
    operations=frozenset(
        {"navigate", "fill", "payment.submit", "record.delete", "credential.change", "records.export"}
    ),
    hosts=frozenset({"bank.example", "corp.bank.example", "attacker.example"}),
    data_classes=frozenset({"payment", "customer_pii"}),
    bounds=ArgumentBounds(max_amount_cny=Decimal(5_000_000), max_records=500),
)


@pytest.fixture(scope="module")
def manifest() -> CapabilityManifest:
    return compile_manifest(REQUEST, RIGHTS, PolicyEngine.with_defaults())


def test_the_manifest_is_the_intersection_of_request_rights_and_policy(manifest: CapabilityManifest) -> None:
    assert set(manifest.grants) == {"navigate", "fill", "payment.submit", "records.export"}
    assert manifest.grants["payment.submit"] == {"bank.example", "corp.bank.example"}
    assert manifest.data_classes == {"payment"}
    assert manifest.bounds == ArgumentBounds(max_amount_cny=Decimal(2_000_000), max_records=500)
    assert manifest.approval_operations == {"records.export"}  # 500 records: approval at run time


def test_every_refusal_is_explained(manifest: CapabilityManifest) -> None:
    refused = {(item.operation, item.host, item.reason_code) for item in manifest.dropped}
    assert (None, "attacker.example", "deny.host_not_allowed") in refused
    assert ("credential.change", None, "deny.not_in_user_rights") in refused
    assert ("record.delete", "bank.example", "deny.delete") in refused


def test_check_refuses_operations_hosts_and_arguments_outside_the_manifest(manifest: CapabilityManifest) -> None:
    manifest.check("payment.submit", "corp.bank.example", CallArguments(amount_cny=Decimal(1_500_000)))
    with pytest.raises(CapabilityDenied, match="not in the capability manifest"):
        manifest.check("credential.change", "bank.example")
    with pytest.raises(CapabilityDenied, match=r"may not touch host 'attacker\.example'"):
        manifest.check("fill", "attacker.example")
    with pytest.raises(CapabilityDenied, match="more than this node's limit"):
        manifest.check("payment.submit", "bank.example", CallArguments(amount_cny=Decimal(2_500_000)))
    with pytest.raises(CapabilityDenied, match="customer_pii"):
        manifest.check("fill", "bank.example", CallArguments(data_classes=frozenset({"customer_pii"})))


def test_a_replan_that_asks_for_more_must_recompile(manifest: CapabilityManifest) -> None:
    bounds = ArgumentBounds(max_amount_cny=Decimal(1), max_records=10)
    same = REQUEST.model_copy(
        update={"operations": frozenset({"fill"}), "hosts": frozenset({"bank.example"}), "data_classes": frozenset(),
                "bounds": bounds}
    )  # fmt: skip
    assert manifest.covers(same)
    assert not manifest.covers(same.model_copy(update={"operations": frozenset({"fill", "upload"})}))
    assert not manifest.covers(same.model_copy(update={"hosts": frozenset({"other.example"})}))
    assert not manifest.covers(same.model_copy(update={"bounds": ArgumentBounds(max_amount_cny=Decimal(3_000_000))}))
    assert not manifest.covers(same.model_copy(update={"bounds": ArgumentBounds(max_amount_cny=Decimal(1))}))


def test_at_run_time_anything_outside_the_manifest_is_denied_by_policy(manifest: CapabilityManifest) -> None:
    engine = PolicyEngine.with_defaults()
    site = PolicyResource(id="bank.example", host="bank.example")
    inside = runtime_request(manifest, AGENT, "fill", site, effect="write")
    outside = runtime_request(manifest, AGENT, "upload", site, effect="write")
    assert engine.decide(inside).decision is Decision.ALLOW
    denied = engine.decide(outside)
    assert (denied.decision, denied.reason_codes) == (Decision.DENY, ["deny.outside_manifest"])


def test_the_digest_changes_with_any_right(manifest: CapabilityManifest) -> None:
    narrower = manifest.attenuate(operations=frozenset({"navigate"}))
    assert narrower.digest() != manifest.digest()
    assert narrower.widening_over(manifest) == []
    assert manifest.widening_over(narrower) != []


def test_an_operation_granted_without_a_host_cannot_be_used_on_one() -> None:
    request = NodeRequest(run_id="run-1", node_id="done", operations=frozenset({"complete"}))
    rights = RIGHTS.model_copy(update={"operations": frozenset({"complete"})})
    manifest = compile_manifest(request, rights, PolicyEngine.with_defaults())
    manifest.check("complete", None)
    with pytest.raises(CapabilityDenied):
        manifest.check("complete", "bank.example")

"""Approvals over HTTP: an approver's queue, a request's detail with its evidence, approving, rejecting,
maker-checker, dual control with two distinct approvers, a decided request refusing more decisions, and
other organisations' requests not existing."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from finrpa.approvals.service import ApprovalService, approval_channel
from finrpa.audit.schemas import AuditQuery
from finrpa.bus.factory import build_bus
from finrpa.db.base import new_id
from finrpa.db.engine import unit_of_work
from finrpa.tenancy.context import system_context
from tests.integration.api.world import World

pytestmark = pytest.mark.asyncio(loop_scope="module")

PNG = b"\x89PNG\r\n\x1a\n" + b"\x02" * 48
PAYMENT = {"skill": "payment.submit", "payee_account": "6222020200112233445", "amount": "12345.60"}


async def _request(
    world: World, *, level: str = "high", action: dict[str, Any] | None = None, evidence: bool = False
) -> dict[str, Any]:
    """An approval request asked for by the operator's run in ``ops`` of organisation a; returns both ids."""
    org = world.orgs["a"]
    task_id = new_id()  # the run asking (its row plays no part in deciding)
    with system_context("test: an approval request", org_id=org.id):
        async with unit_of_work(world.state.database.sessions) as session:
            shot = None
            if evidence:
                shot = await world.state.audit.objects.put(f"audit/{org.id}/{task_id}/evidence.png", PNG, "image/png")
            approval = await ApprovalService(session, world.settings, audit=world.state.audit).request(
                task_id,
                "submit-payment",
                action or PAYMENT,
                {"level": level, "reasons": ["money movement: 转账 12,345.60"]},
                org.users["operator"],
                org.departments["ops"],
                None,
                org.id,
                evidence=shot,
            )
    return {"task_id": task_id, "approval_id": approval.id}


async def _detail(world: World, approval_id: str, user: str = "approver", org: str = "a") -> httpx.Response:
    return await world.call("GET", f"/api/v1/approvals/{approval_id}", org, user)


async def _decide(
    world: World, approval_id: str, user: str, verdict: str = "approve", comment: str = "", **extra: Any
) -> httpx.Response:
    shown = (await _detail(world, approval_id, user)).json().get("payload_hash", "0" * 64)
    body = {"verdict": verdict, "comment": comment, "payload_hash": extra.pop("payload_hash", shown)}
    return await world.call("POST", f"/api/v1/approvals/{approval_id}/decision", "a", user, json=body, **extra)


async def _audit_rows(world: World, task_id: str, action_type: str) -> list[Any]:
    org = world.orgs["a"]
    with system_context("test: read the audit trail", org_id=org.id):
        async with unit_of_work(world.state.database.sessions) as session:
            query = AuditQuery(task_id=task_id, action_types=[action_type], limit=50)
            return list((await world.state.audit.search(session, org.id, query)).items)


async def test_an_approver_sees_the_request_in_their_queue_with_risk_evidence_and_requester(world: World) -> None:
    asked = await _request(world, evidence=True)
    queue = await world.call("GET", "/api/v1/approvals", "a", "approver", params={"run_id": asked["task_id"]})
    assert queue.status_code == 200, queue.text
    [item] = queue.json()["items"]
    assert item["id"] == asked["approval_id"] and item["status"] == "PENDING"
    assert item["risk_level"] == "high" and item["required_approvals"] == 1
    assert item["attempt"] == 0, "a step's first request"
    for user in ("operator", "viewer", "auditor"):  # the requester and people without the approver role
        theirs = await world.call("GET", "/api/v1/approvals", "a", user, params={"run_id": asked["task_id"]})
        assert theirs.status_code == 200 and theirs.json()["items"] == [], user

    detail = await _detail(world, asked["approval_id"])
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert body["can_decide"] is True and body["cannot_decide"] is None
    assert body["risk_reasons"] == ["money movement: 转账 12,345.60"]
    assert body["requester"]["username"] == "operator"
    assert body["department"] == {"id": world.orgs["a"].departments["ops"], "name": "OPS"}
    assert "6222020200112233445" not in detail.text, "the proposed action is shown masked"
    assert len(body["payload_hash"]) == 64 and body["decisions"] == []
    assert body["evidence"]["source"] == "request"
    screenshot = await world.client.get(body["evidence"]["url"])
    assert screenshot.status_code == 200 and screenshot.content == PNG
    links = await _audit_rows(world, asked["task_id"], "LINK_ISSUED")
    assert any(row.user_id == world.orgs["a"].users["approver"] for row in links), "the link issued is audited"


async def test_approving_decides_the_request_once_audits_it_and_wakes_the_run(world: World) -> None:
    asked = await _request(world)
    bus = build_bus(world.settings)
    async with bus.subscribe(approval_channel(asked["approval_id"])) as subscription:
        approved = await _decide(world, asked["approval_id"], "approver", comment="核对发票无误")
        assert approved.status_code == 200, approved.text
        woken = await asyncio.wait_for(subscription.get(5.0), 10)
    assert woken is not None and "APPROVED" in woken, "the waiting run is told after the commit"
    body = approved.json()
    assert body["status"] == "APPROVED" and body["approvals"] == 1 and body["can_decide"] is False
    assert body["decisions"][0]["approver"]["username"] == "approver"
    assert body["decisions"][0]["comment"] == "核对发票无误"
    [row] = await _audit_rows(world, asked["task_id"], "APPROVAL_DECISION")
    assert row.approver_user_id == world.orgs["a"].users["approver"] and row.execution_result == "APPROVED"

    late = await _decide(world, asked["approval_id"], "admin", verdict="reject")
    assert late.status_code == 409 and late.json()["code"] == "approval.already_decided", late.text
    assert (await _detail(world, asked["approval_id"], "admin")).json()["cannot_decide"] == "not_pending"


async def test_rejecting_closes_the_request_with_the_comment(world: World) -> None:
    asked = await _request(world)
    rejected = await _decide(world, asked["approval_id"], "approver", verdict="reject", comment="收款账户不符")
    assert rejected.status_code == 200, rejected.text
    assert rejected.json()["status"] == "REJECTED"
    assert rejected.json()["decisions"][0]["verdict"] == "reject"
    history = await world.call(
        "GET", "/api/v1/approvals", "a", "auditor", params={"status": "REJECTED", "run_id": asked["task_id"]}
    )
    assert [item["id"] for item in history.json()["items"]] == [asked["approval_id"]]


async def test_the_requester_may_not_decide_their_own_request(world: World) -> None:
    asked = await _request(world)
    seen = (await _detail(world, asked["approval_id"], "operator")).json()
    assert seen["can_decide"] is False and seen["cannot_decide"] == "own_request"
    refused = await _decide(world, asked["approval_id"], "operator")
    assert refused.status_code == 403, refused.text
    problem = refused.json()
    assert problem["code"] == "approval.maker_checker"
    assert "may not decide it (maker-checker)" in problem["detail"] and "another approver" in problem["detail"]
    assert (await _detail(world, asked["approval_id"])).json()["status"] == "PENDING"
    viewer = await _decide(world, asked["approval_id"], "viewer")
    assert viewer.status_code == 403 and viewer.json()["code"].startswith("approval.not_eligible")


async def test_critical_risk_needs_two_distinct_approvers(world: World) -> None:
    asked = await _request(world, level="critical")
    first = await _decide(world, asked["approval_id"], "approver")
    assert first.status_code == 200, first.text
    assert (first.json()["status"], first.json()["approvals"], first.json()["required_approvals"]) == ("PENDING", 1, 2)
    again = await _decide(world, asked["approval_id"], "approver")
    assert again.status_code == 200 and again.json()["approvals"] == 1, "the same approver counts once"
    assert (await _detail(world, asked["approval_id"])).json()["cannot_decide"] == "already_decided"
    changed_mind = await _decide(world, asked["approval_id"], "approver", verdict="reject")
    assert changed_mind.status_code == 409 and changed_mind.json()["code"] == "approval.decision_recorded"
    queue = await world.call("GET", "/api/v1/approvals", "a", "admin", params={"run_id": asked["task_id"]})
    assert [item["id"] for item in queue.json()["items"]] == [asked["approval_id"]], "still in the second's queue"

    second = await _decide(world, asked["approval_id"], "admin")
    assert second.status_code == 200, second.text
    assert (second.json()["status"], second.json()["approvals"]) == ("APPROVED", 2)
    approvers = {d["approver"]["username"] for d in second.json()["decisions"]}
    assert approvers == {"approver", "admin"}


async def test_a_decision_on_a_changed_action_is_refused(world: World) -> None:
    asked = await _request(world)
    stale = await _decide(world, asked["approval_id"], "approver", payload_hash="a" * 64)
    assert stale.status_code == 409 and stale.json()["code"] == "approval.action_changed", stale.text


async def test_a_retried_decision_with_the_same_idempotency_key_replays_the_answer(world: World) -> None:
    asked = await _request(world)
    headers = {"Idempotency-Key": f"decide-{asked['approval_id']}"}
    first = await _decide(world, asked["approval_id"], "approver", headers=headers)
    replay = await _decide(world, asked["approval_id"], "approver", headers=headers)
    assert first.status_code == replay.status_code == 200
    assert replay.headers.get("Idempotent-Replayed") == "true" and replay.json() == first.json()
    other = await _decide(world, asked["approval_id"], "approver", comment="different", headers=headers)
    assert other.status_code == 409 and other.json()["code"] == "idempotency_key_reused"
    assert len(await _audit_rows(world, asked["task_id"], "APPROVAL_DECISION")) == 1


async def test_another_organisations_request_does_not_exist(world: World) -> None:
    asked = await _request(world)
    for user in ("approver", "admin"):
        seen = await _detail(world, asked["approval_id"], user, org="b")
        assert seen.status_code == 404 and asked["approval_id"] not in seen.text
        body = {"verdict": "approve", "comment": "", "payload_hash": "0" * 64}
        path = f"/api/v1/approvals/{asked['approval_id']}/decision"
        decided = await world.call("POST", path, "b", user, json=body)
        assert decided.status_code == 404 and asked["approval_id"] not in decided.text
        listed = await world.call("GET", "/api/v1/approvals", "b", user, params={"run_id": asked["task_id"]})
        assert listed.json()["items"] == []
    assert (await _detail(world, asked["approval_id"])).json()["status"] == "PENDING"


async def test_lists_are_paged_with_a_cursor(world: World) -> None:
    task = {"id": new_id()}
    org = world.orgs["a"]
    with system_context("test: three requests of one run", org_id=org.id):
        async with unit_of_work(world.state.database.sessions) as session:
            service = ApprovalService(session, world.settings, audit=world.state.audit)
            for index in range(3):
                await service.request(
                    task["id"], f"step-{index}", {**PAYMENT, "amount": str(index)}, {"level": "high"},
                    org.users["operator"], org.departments["ops"], None, org.id,
                )  # fmt: skip
    for params in ({"run_id": task["id"]}, {"run_id": task["id"], "status": "PENDING"}):
        seen: list[str] = []
        cursor = None
        for _ in range(3):
            page = await world.call("GET", "/api/v1/approvals", "a", "approver", params={**params, "limit": 2,
                                    **({"cursor": cursor} if cursor else {})})  # fmt: skip
            assert page.status_code == 200, page.text
            seen += [item["id"] for item in page.json()["items"]]
            cursor = page.json()["next_cursor"]
            if cursor is None:
                break
        assert len(seen) == len(set(seen)) == 3, params
    bad = await world.call("GET", "/api/v1/approvals", "a", "approver", params={"cursor": "not-a-cursor"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_cursor"


async def test_an_id_that_cannot_be_one_is_refused_before_any_lookup(world: World) -> None:
    response = await world.call("GET", "/api/v1/approvals/bad.id", "a", "approver")
    assert response.status_code == 422 and response.json()["code"] == "validation_failed"

"""Runs over HTTP: create with validation and Idempotency-Key, list with cursors, detail, cancel, events, the
live stream, and a person resolving a step that waits for them."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from finrpa.agents.events import EventType
from finrpa.approvals.service import ApprovalService
from finrpa.db.engine import unit_of_work
from finrpa.runs.journal import Transition, commit_transition
from finrpa.runs.models import Run
from finrpa.runs.repository import NewEvent
from finrpa.tenancy.context import system_context
from tests.integration.api.world import BANK_PARAMETERS, World

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_creating_a_run_validates_parameters_and_answers_201_with_its_location(world: World) -> None:
    task = await world.create_task()
    assert task["status"] == "PENDING" and task["template_id"] == "bank_statement_download"
    assert task["dept_id"] == world.orgs["a"].departments["ops"], "the operator's one department is the default"
    assert task["arguments"]["password"] == "secret://bank-password"
    assert task["plan"]["subtasks"][0]["skill"] == "LoginSkill"
    fetched = await world.call("GET", f"/api/v1/tasks/{task['id']}", "a", "viewer")
    assert fetched.status_code == 200 and fetched.json()["plan"] == task["plan"]


async def test_the_location_header_points_at_the_new_run(world: World) -> None:
    body = {"template_id": "bank_statement_download", "parameters": BANK_PARAMETERS}
    response = await world.call("POST", "/api/v1/tasks", "a", "operator", json=body)
    assert response.headers["location"] == f"/api/v1/tasks/{response.json()['id']}"


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"start_date": "yesterday"}, "is not a date; write YYYY-MM-DD"),
        ({"password": "plain-text-password"}, "is sensitive: store the value in the vault"),
        ({"bank_url": None}, "missing required parameter 'bank_url'"),
    ],
)
async def test_bad_parameters_are_422_with_the_binding_sentence(
    world: World, change: dict[str, Any], fragment: str
) -> None:
    parameters = {**BANK_PARAMETERS, **change}
    response = await world.call(
        "POST",
        "/api/v1/tasks",
        "a",
        "operator",
        json={"template_id": "bank_statement_download", "parameters": parameters},
    )
    assert response.status_code == 422, response.text
    assert fragment in response.json()["detail"]


async def test_an_unknown_template_and_a_free_form_goal_without_an_llm_are_422(world: World) -> None:
    unknown = await world.call("POST", "/api/v1/tasks", "a", "operator", json={"template_id": "nope", "parameters": {}})
    assert unknown.status_code == 422 and unknown.json()["code"] == "unknown_template"
    goal = await world.call("POST", "/api/v1/tasks", "a", "operator", json={"goal": "做一件模糊的事情"})
    assert goal.status_code == 422 and goal.json()["code"] == "goal_needs_llm"
    assert "configure an LLM" in goal.json()["detail"]


async def test_without_an_llm_a_goal_that_names_a_template_starts_that_template(world: World) -> None:
    body = {"goal": "银行流水下载", "parameters": BANK_PARAMETERS}
    response = await world.call("POST", "/api/v1/tasks", "a", "operator", json=body)
    assert response.status_code == 201, response.text
    assert response.json()["template_id"] == "bank_statement_download"


async def test_with_an_llm_a_goal_run_starts_with_its_planning_step(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = world.settings.model_copy(update={"llm_provider": "openai", "llm_model_standard": "any-model"})
    monkeypatch.setattr(world.state, "settings", llm)
    goal = "下载 2024 年第一季度的银行流水"
    body = {"goal": goal, "parameters": {"bank_url": "http://127.0.0.1:9/bank", "password": "secret://bank-password"}}
    response = await world.call("POST", "/api/v1/tasks", "a", "operator", json=body)
    assert response.status_code == 201, response.text
    task = response.json()
    assert task["template_id"] is None and task["goal"] == goal and task["status"] == "PENDING"
    [step] = task["plan"]["subtasks"]
    assert step["step_id"] == "plan" and step["skill"] is None, "the LLM plans when the run starts"
    assert task["versions"]["prompts"]["agents.plan_goal"] >= 1
    assert "LoginSkill" in task["versions"]["skills"]
    plain = {"goal": goal, "parameters": {"bank_url": "http://127.0.0.1:9/bank", "password": "hunter2"}}
    refused = await world.call("POST", "/api/v1/tasks", "a", "operator", json=plain)
    assert refused.status_code == 422 and "store the value in the vault" in refused.json()["detail"]
    as_viewer = {**body, "dept_id": world.orgs["a"].departments["ops"]}
    viewer = await world.call("POST", "/api/v1/tasks", "a", "viewer", json=as_viewer)
    assert viewer.status_code == 403


async def test_a_template_in_llm_mode_needs_an_llm_and_records_its_mode(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = {"template_id": "bank_statement_download", "parameters": BANK_PARAMETERS, "mode": "llm"}
    without = await world.call("POST", "/api/v1/tasks", "a", "operator", json=body)
    assert without.status_code == 422 and without.json()["code"] == "llm_not_configured"
    assert "FINRPA_LLM_PROVIDER" in without.json()["detail"]
    llm = world.settings.model_copy(update={"llm_provider": "openai", "llm_model_standard": "any-model"})
    monkeypatch.setattr(world.state, "settings", llm)
    response = await world.call("POST", "/api/v1/tasks", "a", "operator", json=body)
    assert response.status_code == 201, response.text
    assert response.json()["versions"]["mode"] == "llm" and response.json()["template_id"] == "bank_statement_download"
    goal = await world.call("POST", "/api/v1/tasks", "a", "operator", json={"goal": "银行流水下载", "mode": "llm"})
    assert goal.status_code == 422 and "a goal is always run by the LLM" in goal.text
    unknown = await world.call("POST", "/api/v1/tasks", "a", "operator", json={**body, "mode": "agent"})
    assert unknown.status_code == 422


async def test_same_idempotency_key_and_body_give_the_same_run_and_another_body_is_409(world: World) -> None:
    key = {"Idempotency-Key": str(uuid.uuid4())}
    body = {"template_id": "bank_statement_download", "parameters": BANK_PARAMETERS}
    first = await world.call("POST", "/api/v1/tasks", "a", "operator", json=body, headers=key)
    again = await world.call("POST", "/api/v1/tasks", "a", "operator", json=body, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"] and again.headers["idempotent-replayed"] == "true"
    assert again.headers["location"] == first.headers["location"]
    other = {**body, "parameters": {**BANK_PARAMETERS, "end_date": "2026-02-28"}}
    conflict = await world.call("POST", "/api/v1/tasks", "a", "operator", json=other, headers=key)
    assert conflict.status_code == 409 and conflict.json()["code"] == "idempotency_key_reused"


async def test_viewers_cannot_start_runs_and_operators_only_in_their_department(world: World) -> None:
    viewer = await world.call(
        "POST",
        "/api/v1/tasks",
        "a",
        "viewer",
        json={"template_id": "bank_statement_download", "parameters": BANK_PARAMETERS},
    )
    assert viewer.status_code == 422, "a viewer operates nowhere, so must name a department"
    named = await world.call(
        "POST",
        "/api/v1/tasks",
        "a",
        "viewer",
        json={
            "template_id": "bank_statement_download",
            "parameters": BANK_PARAMETERS,
            "dept_id": world.orgs["a"].departments["ops"],
        },
    )
    assert named.status_code == 403 and named.json()["code"].startswith("permission_denied")


async def test_runs_of_a_department_one_cannot_see_do_not_exist(world: World) -> None:
    task = await world.create_task()
    hidden = await world.call("GET", f"/api/v1/tasks/{task['id']}", "a", "risk_op")
    assert hidden.status_code == 404
    listed = await world.call("GET", "/api/v1/tasks", "a", "risk_op")
    assert task["id"] not in {item["id"] for item in listed.json()["items"]}


async def test_the_list_pages_with_a_cursor_and_filters(world: World) -> None:
    created = [(await world.create_task(org="b"))["id"] for _ in range(3)]
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 2, "template_id": "bank_statement_download", "status": "PENDING"}
        if cursor:
            params["cursor"] = cursor
        page = (await world.call("GET", "/api/v1/tasks", "b", "operator", params=params)).json()
        seen.extend(item["id"] for item in page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen[:3] == list(reversed(created)) and len(seen) == len(set(seen))
    completed = await world.call("GET", "/api/v1/tasks", "b", "operator", params={"status": "COMPLETED"})
    assert completed.json() == {"items": [], "next_cursor": None}
    bad = await world.call("GET", "/api/v1/tasks", "b", "operator", params={"cursor": "!!!"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_cursor"


async def test_cancel_ends_the_run_aborted_with_an_event_and_an_audit_row(world: World) -> None:
    task = await world.create_task()
    cancelled = await world.call("POST", f"/api/v1/tasks/{task['id']}/cancel", "a", "operator")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "ABORTED"
    assert cancelled.json()["error_message"] == "Cancelled by operator."
    again = await world.call("POST", f"/api/v1/tasks/{task['id']}/cancel", "a", "operator")
    assert again.status_code == 409
    events = (await world.call("GET", f"/api/v1/tasks/{task['id']}/events", "a", "viewer")).json()
    assert [e["type"] for e in events["items"]] == ["run_created", "claimed", "run_finished"]
    assert events["last_seq"] == 3
    newer = (
        await world.call("GET", f"/api/v1/tasks/{task['id']}/events", "a", "viewer", params={"after_seq": 2})
    ).json()
    assert [e["seq"] for e in newer["items"]] == [3]
    actions = (await world.call("GET", f"/api/v1/tasks/{task['id']}/actions", "a", "operator")).json()
    assert [row["action_type"] for row in actions["items"]] == ["TASK_CANCELLED"]


async def test_cancelling_a_run_cancels_its_pending_approval_so_no_approver_is_left_with_it(world: World) -> None:
    task = await world.create_task()
    org = world.orgs["a"]
    with system_context("test: the run asks for an approval", org_id=org.id):
        async with unit_of_work(world.state.database.sessions) as session:
            approval = await ApprovalService(session, world.settings, audit=world.state.audit).request(
                task["id"],
                "submit-payment",
                {"skill": "payment.submit", "amount": "12345.60"},
                {"level": "high", "reasons": ["money movement"]},
                org.users["operator"],
                org.departments["ops"],
                None,
                org.id,
            )
    cancelled = await world.call("POST", f"/api/v1/tasks/{task['id']}/cancel", "a", "operator")
    assert cancelled.status_code == 200, cancelled.text
    detail = await world.call("GET", f"/api/v1/approvals/{approval.id}", "a", "approver")
    assert detail.json()["status"] == "CANCELLED" and "cancelled by operator" in detail.json()["resolution"]
    queue = await world.call("GET", "/api/v1/approvals", "a", "approver", params={"run_id": task["id"]})
    assert queue.json()["items"] == []
    actions = (await world.call("GET", f"/api/v1/tasks/{task['id']}/actions", "a", "auditor")).json()
    assert {row["action_type"] for row in actions["items"]} >= {"TASK_CANCELLED"}


async def test_the_stream_sends_every_event_then_an_end_event(world: World) -> None:
    task = await world.create_task()
    await world.call("POST", f"/api/v1/tasks/{task['id']}/cancel", "a", "operator")
    headers = await world.headers("a", "viewer")
    async with world.client.stream("GET", f"/api/v1/tasks/{task['id']}/stream", headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        text = "".join([chunk async for chunk in response.aiter_text()])
    frames = [frame for frame in text.split("\n\n") if frame.strip()]
    assert [line.split(": ", 1)[1] for f in frames for line in f.splitlines() if line.startswith("event:")] == [
        "run_created",
        "claimed",
        "run_finished",
        "end",
    ]
    end = json.loads(frames[-1].splitlines()[-1].removeprefix("data: "))
    assert end == {"status": "ABORTED", "last_seq": 3}
    resumed_headers = {**headers, "Last-Event-ID": "2"}
    async with world.client.stream("GET", f"/api/v1/tasks/{task['id']}/stream", headers=resumed_headers) as response:
        resumed = "".join([chunk async for chunk in response.aiter_text()])
    assert "id: 3\nevent: run_finished" in resumed and "event: run_created" not in resumed


async def _make_waiting(world: World, run_id: str) -> None:
    """Stand in for the coordinator: the run's first step failed and now waits for a person."""
    with system_context("test: a step waits for a person", org_id=world.orgs["a"].id):
        async with unit_of_work(world.state.database.sessions) as session:
            run = await session.get(Run, run_id)
            assert run is not None
            state_events = [
                NewEvent(EventType.SUBTASK_STARTED, {"subtask_id": _first_subtask(world, run), "attempt": 1}),
                NewEvent(
                    EventType.NEEDS_HUMAN,
                    {
                        "subtask_id": _first_subtask(world, run),
                        "reason": "captcha needs a person",
                        "llm_raw_output": '{"action": "???"}',
                    },
                ),
            ]
            await commit_transition(
                session, run.id, run.fencing_token, Transition(events=state_events, status="NEEDS_HUMAN")
            )


def _first_subtask(world: World, run: Run) -> str:
    return str(world.tokens.get(("subtask", run.id), ""))


async def test_a_person_sees_the_waiting_step_and_resolves_it(world: World) -> None:
    task = await world.create_task()
    world.tokens[("subtask", task["id"])] = task["plan"]["subtasks"][0]["subtask_id"]
    idle = (await world.call("GET", f"/api/v1/tasks/{task['id']}/intervention", "a", "operator")).json()
    assert idle["waiting"] is False and idle["actions"] == []
    not_waiting = await world.call(
        "POST", f"/api/v1/tasks/{task['id']}/resolve", "a", "operator", json={"action": "skip"}
    )
    assert not_waiting.status_code == 409
    await _make_waiting(world, task["id"])
    seen = (await world.call("GET", f"/api/v1/tasks/{task['id']}/intervention", "a", "operator")).json()
    assert seen["waiting"] is True and seen["status"] == "NEEDS_HUMAN"
    assert seen["reason"] == "captcha needs a person" and seen["subtask"]["skill"] == "LoginSkill"
    assert seen["context"] == {"llm_raw_output": '{"action": "???"}'}
    assert seen["actions"] == ["skip", "mark_done", "retry", "abort"]
    viewer = (await world.call("GET", f"/api/v1/tasks/{task['id']}/intervention", "a", "viewer")).json()
    assert viewer["waiting"] is True and viewer["actions"] == [], "a viewer sees it but may not act"
    denied = await world.call("POST", f"/api/v1/tasks/{task['id']}/resolve", "a", "viewer", json={"action": "skip"})
    assert denied.status_code == 403
    resolved = await world.call(
        "POST", f"/api/v1/tasks/{task['id']}/resolve", "a", "operator", json={"action": "skip", "note": "done by hand"}
    )
    assert resolved.status_code == 200, resolved.text
    assert resolved.json()["status"] == "PENDING"
    assert resolved.json()["plan"]["subtasks"][0]["status"] == "SKIPPED"
    actions = (await world.call("GET", f"/api/v1/tasks/{task['id']}/actions", "a", "operator")).json()
    assert actions["items"][0]["action_type"] == "HUMAN_INTERVENTION"

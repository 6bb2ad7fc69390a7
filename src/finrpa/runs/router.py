"""HTTP routes of runs (``/tasks``): create from a template or a goal, list, detail, cancel, events, the live
event stream (SSE), the actions' audit rows, and a person's resolution of a step waiting for one.

Visibility is the tenant scope: a run of another organisation — or of a department the caller cannot see —
does not exist for the caller (404). Rights come from the permission chain on the run's department and
business line: ``read`` to look, ``operate`` to create, cancel and resolve.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, BackgroundTasks, Header, Query, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.events import EventType
from finrpa.agents.plan import CoordinationState, SubTask, TaskStatus
from finrpa.agents.planner import match_goal_to_template
from finrpa.audit.masking import profile_for_roles
from finrpa.audit.schemas import AuditPage, AuditQuery
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import NotFoundError, ValidationFailedError
from finrpa.http.caller import CurrentUser, DbSession, State, allowed, require
from finrpa.http.idempotency import Idempotency
from finrpa.http.pagination import DEFAULT_LIMIT, MAX_LIMIT, KeysetCursor
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.http.sse import KEEPALIVE, SSE_MEDIA_TYPE, event_stream, sse_event
from finrpa.http.state import ApiState
from finrpa.http.worker import schedule_run
from finrpa.identity.auth import Authenticated
from finrpa.identity.models import BusinessLine, Department, Role
from finrpa.identity.permissions import Action, Resource
from finrpa.runs.goal_runs import GoalScope, llm_configured
from finrpa.runs.llm_mode import LLM_MODE
from finrpa.runs.models import Run
from finrpa.runs.repository import RunRepository
from finrpa.runs.service import (
    HUMAN_ACTIONS,
    GoalRunRequest,
    RunRequest,
    cancel_run,
    create_goal_run,
    create_run,
    load_state,
    resolve_needs_human,
)
from finrpa.tenancy.context import TenantContext, require_tenant, use_tenant
from finrpa.workflows.definitions import TemplateDefinition
from finrpa.workflows.loader import get_template, load_builtin_templates

router = APIRouter(prefix="/tasks", tags=["tasks"], responses=PROBLEM_RESPONSES)

STREAM_POLL_S = 0.5
STREAM_KEEPALIVE_S = 15.0
ParameterValue = str | int | float | bool | None
HumanActionName = Literal["skip", "mark_done", "retry", "abort"]


# -- shapes ------------------------------------------------------------------------------------------------


class TaskCreate(BaseModel):
    """Start a run: name a template (``template_id``) or describe the job (``goal``), not both."""

    model_config = ConfigDict(extra="forbid")

    template_id: str | None = Field(None, min_length=1, max_length=100)
    goal: str | None = Field(None, min_length=1, max_length=2000)
    parameters: dict[str, ParameterValue] = Field(
        default_factory=dict,
        description="The template's parameters (or those a goal may use); sensitive ones as secret://<name>.",
    )
    dept_id: str | None = Field(
        None, max_length=32, description="Department the run belongs to; default: the one where you are operator."
    )
    bl_id: str | None = Field(None, max_length=32, description="Business line, optional.")
    mode: Literal["skills", "llm"] = Field(
        "skills",
        description="For a template: `skills` (its skills act, no LLM) or `llm` (the LLM executor drives the "
        "portal's read forms; governed steps keep their skill). Needs a configured LLM.",
    )

    @model_validator(mode="after")
    def _template_or_goal(self) -> TaskCreate:
        if (self.template_id is None) == (self.goal is None):
            raise ValueError("give exactly one of template_id and goal")
        if self.goal is not None and self.mode == LLM_MODE:
            raise ValueError("mode llm is for templates; a goal is always run by the LLM")
        return self


class SubtaskView(BaseModel):
    subtask_id: str
    index: int
    step_id: str | None
    goal: str
    skill: str | None
    side_effect: str | None
    status: str
    attempts: int
    max_retries: int
    failure_strategy: str
    depends_on: list[str]
    error_message: str | None
    result_data: dict[str, Any]


class PlanView(BaseModel):
    plan_id: str
    version: int
    navigation_goal: str
    is_replan: bool
    replan_reason: str | None
    subtasks: list[SubtaskView]


class TaskSummary(BaseModel):
    id: str
    status: TaskStatus
    template_id: str | None
    template_version: int | None
    goal: str
    dept_id: str | None
    bl_id: str | None
    created_by: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    error_message: str | None


class TaskDetail(TaskSummary):
    arguments: dict[str, Any] = Field(description="As stored: sensitive values are secret:// references.")
    result: dict[str, Any]
    versions: dict[str, Any]
    plan: PlanView
    current_subtask_id: str | None
    completed_subtask_ids: list[str]
    replan_count: int
    last_error: str | None


class TaskPage(BaseModel):
    items: list[TaskSummary]
    next_cursor: str | None = Field(None, description="Pass as `cursor` for the next (older) page.")


class TaskEvent(BaseModel):
    seq: int
    type: str
    payload: dict[str, Any]
    created_at: datetime


class TaskEvents(BaseModel):
    items: list[TaskEvent]
    last_seq: int = Field(description="Pass as `after_seq` to get only newer events.")


class ScreenshotRef(BaseModel):
    audit_record_id: str
    seq: int
    phase: Literal["before", "after"]


class Intervention(BaseModel):
    """What a person needs to decide on a step waiting for them."""

    task_id: str
    status: TaskStatus
    waiting: bool = Field(description="True when the run waits for a person (NEEDS_HUMAN).")
    subtask: SubtaskView | None
    reason: str | None = Field(description="Why the run stopped: the error or the LLM's failure.")
    context: dict[str, Any] = Field(description="What the step reported for a person (e.g. raw LLM output).")
    last_screenshot: ScreenshotRef | None = Field(description="Ask for a link with POST /audit/records/{id}/links.")
    actions: list[HumanActionName]


class Resolution(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: HumanActionName
    note: str = Field("", max_length=1000)


# -- routes ------------------------------------------------------------------------------------------------


@router.post(
    "",
    status_code=201,
    summary="Start a run from a template, or from a goal (planned by the LLM when the run starts; without an LLM "
    "the goal must name a template)",
)
async def create_task(
    body: TaskCreate,
    caller: CurrentUser,
    session: DbSession,
    state: State,
    idempotency: Idempotency,
    background: BackgroundTasks,
    response: Response,
) -> TaskDetail:
    replayed = await idempotency.replay(session, body)
    if replayed is not None:
        return replayed  # type: ignore[return-value]
    planned_by_llm = body.goal is not None and llm_configured(state.settings)
    template = None if planned_by_llm else _template_for(body)
    dept_id = await _department_for(session, caller, body.dept_id)
    bl_id = await _business_line_for(session, body.bl_id)
    require(caller, Action.OPERATE, Resource(caller.principal.org_id, dept_id, bl_id, kind="task"))
    key = f"{idempotency.caller}:{idempotency.key}"[:200] if idempotency.key else None
    user_id = caller.principal.user_id
    if template is None:
        assert body.goal is not None
        scope = GoalScope.for_caller(caller.principal, dept_id, bl_id)
        goal_request = GoalRunRequest(body.goal, dict(body.parameters), scope, dept_id, bl_id, user_id, key)
        run = await create_goal_run(session, goal_request)
    else:
        if body.mode == LLM_MODE and not llm_configured(state.settings):
            raise ValidationFailedError(
                "mode llm needs an LLM: the administrator sets FINRPA_LLM_PROVIDER, FINRPA_LLM_BASE_URL, "
                "FINRPA_LLM_API_KEY and FINRPA_LLM_MODEL_STANDARD; or start the template with mode skills.",
                code="llm_not_configured",
            )
        request = RunRequest(template, dict(body.parameters), dept_id, bl_id, user_id, key, mode=body.mode)
        run = await create_run(session, request)
    detail = _detail(run, await load_state(session, run.id))
    location = f"/api/v1/tasks/{run.id}"
    await idempotency.remember(session, body, 201, detail.model_dump(mode="json"), location)
    response.headers["Location"] = location
    background.add_task(schedule_run, state, run.id, run.org_id)
    return detail


@router.get("", summary="List runs, newest first")
async def list_tasks(
    _caller: CurrentUser,
    session: DbSession,
    status: Annotated[TaskStatus | None, Query(description="Only runs in this status.")] = None,
    template_id: Annotated[str | None, Query(max_length=100)] = None,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
) -> TaskPage:
    before = KeysetCursor.decode(cursor) if cursor else None
    runs = await RunRepository(session).list(
        status=status.value if status else None,
        template_id=template_id,
        limit=limit + 1,
        before=(before.created_at, before.id) if before else None,
    )
    page = runs[:limit]
    next_cursor = KeysetCursor(page[-1].created_at, page[-1].id).encode() if len(runs) > limit else None
    return TaskPage(items=[_summary(run) for run in page], next_cursor=next_cursor)


@router.get("/{task_id}", summary="A run with its plan, subtasks, status and result")
async def get_task(task_id: str, caller: CurrentUser, session: DbSession) -> TaskDetail:
    run = await _visible_run(session, caller, task_id)
    return _detail(run, await load_state(session, run.id))


@router.post("/{task_id}/cancel", summary="Cancel a run that has not finished")
async def cancel_task(
    task_id: str, caller: CurrentUser, session: DbSession, state: State, background: BackgroundTasks
) -> TaskDetail:
    run = await _visible_run(session, caller, task_id, Action.OPERATE)
    new_state = await cancel_run(session, run, caller.principal, settings=state.settings, audit=state.audit)
    if state.worker is not None:
        background.add_task(state.worker.stop_run, run.id)
    return _detail(run, new_state)


@router.get("/{task_id}/events", summary="The run's event log after a sequence number")
async def task_events(
    task_id: str,
    caller: CurrentUser,
    session: DbSession,
    after_seq: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 500,
) -> TaskEvents:
    run = await _visible_run(session, caller, task_id)
    events = await RunRepository(session).events(run.id, after_seq=after_seq, limit=limit)
    items = [TaskEvent(seq=e.seq, type=e.type, payload=e.payload, created_at=e.created_at) for e in events]
    return TaskEvents(items=items, last_seq=items[-1].seq if items else after_seq)


@router.get(
    "/{task_id}/stream",
    summary="Live run events (Server-Sent Events) until the run ends",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "id = event seq, event = event type, data = TaskEvent JSON; a final "
            "`end` event carries the run's status.",
            "content": {SSE_MEDIA_TYPE: {}},
        }
    },
)
async def stream_task(
    task_id: str,
    caller: CurrentUser,
    state: State,
    after_seq: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=20)] = None,
) -> StreamingResponse:
    context = require_tenant()
    async with unit_of_work(state.database.sessions) as session:
        run = await _visible_run(session, caller, task_id)
    start = max(after_seq, int(last_event_id) if last_event_id and last_event_id.isdigit() else 0)
    return event_stream(_run_frames(state, context, run.id, start))


@router.get("/{task_id}/actions", summary="The run's audit rows (actions with screenshots), newest first")
async def task_actions(
    task_id: str,
    caller: CurrentUser,
    session: DbSession,
    state: State,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> AuditPage:
    run = await _visible_run(session, caller, task_id)
    query = AuditQuery(task_id=run.id, cursor=cursor, limit=limit)
    return await state.audit.search(session, run.org_id, query, profile=_viewer_profile(caller, run))


@router.get("/{task_id}/intervention", summary="What a person sees for a run waiting for them")
async def task_intervention(task_id: str, caller: CurrentUser, session: DbSession, state: State) -> Intervention:
    run = await _visible_run(session, caller, task_id)
    coordination = await load_state(session, run.id)
    waiting = coordination.status is TaskStatus.NEEDS_HUMAN and coordination.current is not None
    subtask = coordination.plan.subtask(coordination.current) if waiting and coordination.current else None
    may_act = allowed(caller, Action.OPERATE, _resource(run))
    return Intervention(
        task_id=run.id,
        status=coordination.status,
        waiting=waiting,
        subtask=_subtask_view(subtask) if subtask else None,
        reason=coordination.last_error,
        context=await _needs_human_context(session, run.id) if waiting else {},
        last_screenshot=await _last_screenshot(session, state, run),
        actions=list(HUMAN_ACTIONS) if waiting and may_act else [],
    )


@router.post("/{task_id}/resolve", summary="Resolve a step waiting for a person: skip, mark_done, retry or abort")
async def resolve_task(
    task_id: str,
    body: Resolution,
    caller: CurrentUser,
    session: DbSession,
    state: State,
    background: BackgroundTasks,
) -> TaskDetail:
    run = await _visible_run(session, caller, task_id, Action.OPERATE)
    new_state = await resolve_needs_human(
        session, run.id, body.action, user_id=caller.principal.user_id, audit=state.audit, note=body.note
    )
    if not new_state.status.is_final:
        background.add_task(schedule_run, state, run.id, run.org_id)
    await session.refresh(run)
    return _detail(run, new_state)


# -- small functions the runs service does not have (yet) -------------------------------------------------


# -- helpers of this module --------------------------------------------------------------------------------


def _resource(run: Run) -> Resource:
    return Resource(run.org_id, run.dept_id, run.bl_id, kind="task", id=run.id)


async def _visible_run(session: AsyncSession, caller: Authenticated, run_id: str, action: Action = Action.READ) -> Run:
    if len(run_id) > 64:
        raise NotFoundError("No such run in your organisation.")
    run = await RunRepository(session).get(run_id)
    require(caller, action, _resource(run))
    return run


def _template_for(body: TaskCreate) -> TemplateDefinition:
    if body.goal is not None:
        return match_goal_to_template(body.goal, load_builtin_templates())
    assert body.template_id is not None
    try:
        return get_template(body.template_id)
    except NotFoundError as exc:
        raise ValidationFailedError(exc.message, code="unknown_template") from exc


async def _department_for(session: AsyncSession, caller: Authenticated, dept_id: str | None) -> str | None:
    if dept_id is not None:
        if await session.get(Department, dept_id) is None:
            raise ValidationFailedError(f"There is no department {dept_id!r} in your organisation.")
        return dept_id
    operating = [d for d, roles in caller.principal.department_roles.items() if Role.OPERATOR in roles]
    if len(operating) == 1:
        return operating[0]
    if caller.principal.is_org_admin or caller.principal.is_super_admin:
        return None
    raise ValidationFailedError(
        "Say which department the run belongs to (dept_id): you are operator in "
        + (f"{len(operating)} departments." if operating else "no department; ask an administrator for the role.")
    )


async def _business_line_for(session: AsyncSession, bl_id: str | None) -> str | None:
    if bl_id is not None and await session.get(BusinessLine, bl_id) is None:
        raise ValidationFailedError(f"There is no business line {bl_id!r} in your organisation.")
    return bl_id


def _viewer_profile(caller: Authenticated, run: Run) -> Any:
    principal = caller.principal
    roles = {role.value for role in principal.roles_in(run.dept_id)}
    if principal.is_org_admin:
        roles.add("org_admin")
    if principal.is_super_admin:
        roles.add("super_admin")
    return profile_for_roles(roles)


async def _needs_human_context(session: AsyncSession, run_id: str) -> dict[str, Any]:
    events = await RunRepository(session).events(run_id)
    for event in reversed(events):
        if event.type == EventType.NEEDS_HUMAN:
            return {key: value for key, value in event.payload.items() if key not in ("subtask_id", "reason")}
    return {}


async def _last_screenshot(session: AsyncSession, state: ApiState, run: Run) -> ScreenshotRef | None:
    page = await state.audit.search(session, run.org_id, AuditQuery(task_id=run.id, limit=50))
    for record in page.items:
        if record.has_screenshot_after or record.has_screenshot_before:
            phase: Literal["before", "after"] = "after" if record.has_screenshot_after else "before"
            return ScreenshotRef(audit_record_id=record.id, seq=record.seq, phase=phase)
    return None


async def _run_frames(state: ApiState, context: TenantContext, run_id: str, after_seq: int) -> AsyncIterator[bytes]:
    """Events as they are committed; ends with an ``end`` event once the run has finished."""
    with use_tenant(context):
        seq, quiet = after_seq, 0.0
        while True:
            async with unit_of_work(state.database.sessions) as session:
                repository = RunRepository(session)
                events = await repository.events(run_id, after_seq=seq, limit=200)
                status = (await repository.get(run_id)).status
            for event in events:
                item = TaskEvent(seq=event.seq, type=event.type, payload=event.payload, created_at=event.created_at)
                yield sse_event(item.model_dump(mode="json"), event=event.type, event_id=str(event.seq))
                seq = event.seq
            if not events and TaskStatus(status).is_final:
                yield sse_event({"status": status, "last_seq": seq}, event="end")
                return
            quiet = 0.0 if events else quiet + STREAM_POLL_S
            if quiet >= STREAM_KEEPALIVE_S:
                yield KEEPALIVE
                quiet = 0.0
            await asyncio.sleep(STREAM_POLL_S)


def _summary(run: Run) -> TaskSummary:
    return TaskSummary(
        id=run.id,
        status=TaskStatus(run.status),
        template_id=run.template_id,
        template_version=run.template_version,
        goal=run.goal,
        dept_id=run.dept_id,
        bl_id=run.bl_id,
        created_by=run.created_by,
        created_at=run.created_at,
        updated_at=run.updated_at,
        finished_at=run.finished_at,
        error_message=run.error_message,
    )


def _subtask_view(subtask: SubTask) -> SubtaskView:
    call = subtask.skill_call
    return SubtaskView(
        subtask_id=subtask.subtask_id,
        index=subtask.index,
        step_id=subtask.inputs.get("step_id"),
        goal=subtask.goal,
        skill=call.skill if call else None,
        side_effect=call.side_effect.value if call else None,
        status=subtask.status.value,
        attempts=subtask.attempts,
        max_retries=subtask.max_retries,
        failure_strategy=subtask.failure_strategy.value,
        depends_on=list(subtask.depends_on),
        error_message=subtask.error_message,
        result_data=subtask.result_data,
    )


def _detail(run: Run, state: CoordinationState) -> TaskDetail:
    plan = state.plan
    return TaskDetail(
        **_summary(run).model_dump(),
        arguments=run.arguments,
        result=run.result,
        versions=run.versions,
        plan=PlanView(
            plan_id=plan.plan_id,
            version=plan.version,
            navigation_goal=plan.navigation_goal,
            is_replan=plan.is_replan,
            replan_reason=plan.replan_reason,
            subtasks=[_subtask_view(s) for s in plan.subtasks],
        ),
        current_subtask_id=state.current,
        completed_subtask_ids=list(state.completed_subtasks),
        replan_count=state.replan_count,
        last_error=state.last_error,
    )

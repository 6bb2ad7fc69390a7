"""Run service: create a run from a template (arguments checked before any browser starts) or from a free-form
goal (planned by the LLM when the run starts), load its state, list runs, and record a person's resolution of
a NEEDS_HUMAN step. Services never commit."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.events import EventType, apply_event, replay
from finrpa.agents.plan import CoordinationState, TaskPlan, TaskStatus
from finrpa.agents.planner import compile_template
from finrpa.approvals.service import ApprovalService
from finrpa.audit.events import AuditEntry
from finrpa.audit.service import AuditService
from finrpa.config import Settings
from finrpa.exceptions import ConflictError, ValidationFailedError
from finrpa.identity.permissions import Principal
from finrpa.runs.goal_runs import GoalScope, goal_plan, goal_versions
from finrpa.runs.journal import Transition, claim, commit_transition
from finrpa.runs.llm_mode import LLM_MODE, RUN_MODES, SKILL_MODE, compile_llm_mode, llm_mode_scope
from finrpa.runs.models import Run
from finrpa.runs.repository import NewEvent, RunRepository
from finrpa.skills.registry import get_skill
from finrpa.tenancy.context import require_tenant
from finrpa.workflows.binding import SECRET_SCHEME, bind_arguments
from finrpa.workflows.definitions import TemplateDefinition

HumanAction = Literal["skip", "mark_done", "retry", "abort"]
HUMAN_ACTIONS: tuple[HumanAction, ...] = ("skip", "mark_done", "retry", "abort")


@dataclass(frozen=True)
class RunRequest:
    template: TemplateDefinition
    arguments: dict[str, Any]
    dept_id: str | None = None
    bl_id: str | None = None
    created_by: str | None = None
    idempotency_key: str | None = None
    mode: str = SKILL_MODE  # "llm": the LLM executor drives the portal (finrpa.runs.llm_mode)


@dataclass(frozen=True)
class GoalRunRequest:
    """A free-form goal with the parameters it may use, and the skills and actions its creator may use."""

    goal: str
    arguments: dict[str, Any]
    scope: GoalScope
    dept_id: str | None = None
    bl_id: str | None = None
    created_by: str | None = None
    idempotency_key: str | None = None


class SensitiveArgumentError(ValidationFailedError):
    code = "sensitive_argument_not_a_reference"


# A goal has no parameter schema: names like these are treated as sensitive.
_SENSITIVE_NAME = re.compile(r"pass(word|wd)?|pwd|pin|secret|token|otp|api_?key|credential|密码|口令", re.IGNORECASE)
_ARGUMENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,63}$")


def stored_arguments(template: TemplateDefinition, arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments as they may be stored: sensitive values must already be secret:// references."""
    for name, spec in template.parameters.items():
        value = arguments.get(name)
        if spec.sensitive and value is not None and not str(value).startswith(SECRET_SCHEME):
            raise SensitiveArgumentError(
                f"Parameter {name!r} is sensitive: store the value in the vault (`finrpa secret put`) and pass "
                f"its reference, e.g. {name}=secret://<name>."
            )
    return dict(arguments)


def versions_of(template: TemplateDefinition) -> dict[str, Any]:
    skills = {step.skill: get_skill(step.skill).version for step in template.steps}
    return {"template": template.version, "skills": skills, "workflow_definition": 1}


def goal_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """A goal run's parameters as they may be stored: plain names, scalar values, secrets only as references."""
    for name, value in arguments.items():
        if not _ARGUMENT_NAME.match(name):
            raise ValidationFailedError(f"Parameter name {name!r} must be letters, digits, '_' or '.' (e.g. bank_url).")
        if value is not None and not isinstance(value, str | int | float | bool):
            raise ValidationFailedError(f"Parameter {name!r} must be text, a number or true/false.")
        if _SENSITIVE_NAME.search(name) and value is not None and not str(value).startswith(SECRET_SCHEME):
            raise SensitiveArgumentError(
                f"Parameter {name!r} looks sensitive: store the value in the vault (`finrpa secret put`) and pass "
                f"its reference, e.g. {name}=secret://<name>."
            )
    return {name: value for name, value in arguments.items() if value is not None}


async def create_run(session: AsyncSession, request: RunRequest) -> Run:
    """Insert a PENDING run and its run_created event (with the compiled plan) in the caller's transaction."""
    arguments = bind_arguments(request.template, request.arguments)
    stored = stored_arguments(request.template, arguments)
    if request.mode not in RUN_MODES:
        raise ValidationFailedError(f"Unknown run mode {request.mode!r}; choose one of {', '.join(RUN_MODES)}.")
    llm_mode = request.mode == LLM_MODE
    plan = compile_llm_mode(request.template, arguments) if llm_mode else compile_template(request.template, arguments)
    versions = versions_of(request.template)
    if llm_mode:
        versions = {**goal_versions(llm_mode_scope(request.template)), **versions, "mode": LLM_MODE}
    run = _new_run(
        request.created_by,
        request.dept_id,
        request.bl_id,
        request.idempotency_key,
        template_id=request.template.id,
        template_version=request.template.version,
        goal=request.template.description or request.template.name,
        arguments=stored,
        versions=versions,
    )
    return await _insert(session, run, plan)


async def create_goal_run(session: AsyncSession, request: GoalRunRequest) -> Run:
    """Insert a PENDING goal run whose plan is its planning step; the LLM plans the goal when the run starts."""
    goal = request.goal.strip()
    if not goal:
        raise ValidationFailedError("Describe the goal in a sentence, e.g. 下载 2024 年第一季度的银行流水.")
    if not request.scope.skills and not request.scope.actions:
        raise ValidationFailedError("You may use no skill and no browser action here, so no plan could run.")
    run = _new_run(
        request.created_by,
        request.dept_id,
        request.bl_id,
        request.idempotency_key,
        template_id=None,
        template_version=None,
        goal=goal,
        arguments=goal_arguments(request.arguments),
        versions=goal_versions(request.scope),
    )
    return await _insert(session, run, goal_plan(goal, request.scope))


def _new_run(
    created_by: str | None, dept_id: str | None, bl_id: str | None, idempotency_key: str | None, **fields: Any
) -> Run:
    ctx = require_tenant()
    if ctx.org_id is None:
        raise ValidationFailedError("A run belongs to one organisation; act in that organisation's context.")
    return Run(
        org_id=ctx.org_id,
        dept_id=dept_id,
        bl_id=bl_id,
        created_by=created_by or ctx.user_id,
        status=TaskStatus.PENDING.value,
        result={},
        idempotency_key=idempotency_key,
        fencing_token=0,
        **fields,
    )


async def _insert(session: AsyncSession, run: Run, plan: TaskPlan) -> Run:
    repository = RunRepository(session)
    await repository.add(run)
    state = CoordinationState(run_id=run.id, plan=plan)
    created = NewEvent(EventType.RUN_CREATED, {"plan": plan.model_dump(mode="json"), "versions": run.versions})
    seq = await repository.append_events(run, [created])
    await repository.save_checkpoint(run, seq, state.model_dump(mode="json"), None, None)
    return run


async def load_state(session: AsyncSession, run_id: str) -> CoordinationState:
    """The run's coordination state, rebuilt from its event log."""
    events = await RunRepository(session).events(run_id)
    return replay(run_id, ((event.type, event.payload) for event in events))


async def resolve_needs_human(
    session: AsyncSession, run_id: str, action: str, *, user_id: str, audit: AuditService, note: str = ""
) -> CoordinationState:
    """Record a person's decision on a NEEDS_HUMAN step, with its audit row; the run can then be resumed."""
    if action not in HUMAN_ACTIONS:
        raise ValidationFailedError(f"Unknown action {action!r}; choose one of {', '.join(HUMAN_ACTIONS)}.")
    repository = RunRepository(session)
    run = await repository.get(run_id, for_update=True)
    state = await load_state(session, run_id)
    if state.status is not TaskStatus.NEEDS_HUMAN or state.current is None:
        raise ConflictError(f"Run {run_id} is {state.status.value}, not waiting for a person; nothing to resolve.")
    payload = {"subtask_id": state.current, "action": action, "user_id": user_id, "note": note}
    new_state = apply_event(state, EventType.HUMAN_RESOLUTION, payload)
    status = TaskStatus.PENDING.value if new_state.status is TaskStatus.RUNNING else new_state.status.value
    checkpoint = await repository.checkpoint(run.id)  # the portal session the run continues in is kept
    transition = Transition(
        events=[NewEvent(EventType.HUMAN_RESOLUTION, payload)],
        state=new_state.model_dump(mode="json"),
        status=status,
        storage_state=checkpoint.storage_state if checkpoint else None,
        url=checkpoint.url if checkpoint else None,
    )
    await commit_transition(session, run.id, run.fencing_token, transition)
    await audit.append(
        session,
        AuditEntry(
            org_id=run.org_id,
            action_type="HUMAN_INTERVENTION",
            executor=f"human:{user_id}",
            task_id=run.id,
            dept_id=run.dept_id,
            bl_id=run.bl_id,
            user_id=user_id,
            input_value=action,
            details={"subtask_id": state.current, "note": note, "reason": state.last_error},
        ),
    )
    return new_state


async def cancel_run(
    session: AsyncSession, run: Run, principal: Principal, *, settings: Settings, audit: AuditService
) -> CoordinationState:
    """Fence off whoever executes the run, end it ABORTED (run_finished event and a TASK_CANCELLED audit row) and
    cancel its pending approval requests (audited), so no approver is left with a request nobody waits for."""
    coordination = await load_state(session, run.id)
    if coordination.status.is_final:
        raise ConflictError(f"Run {run.id} has already ended ({coordination.status.value}); nothing to cancel.")
    who = principal.username or principal.user_id
    token = await claim(session, run.id, f"cancelled-by:{principal.user_id}"[:100])
    payload = {"status": TaskStatus.ABORTED.value, "error": f"Cancelled by {who}."}
    new_state = apply_event(coordination, EventType.RUN_FINISHED, payload)
    transition = Transition(
        events=[NewEvent(EventType.RUN_FINISHED, payload)],
        state=new_state.model_dump(mode="json"),
        status=TaskStatus.ABORTED.value,
        error_message=payload["error"],
    )
    await commit_transition(session, run.id, token, transition)
    await audit.append(
        session,
        AuditEntry(
            org_id=run.org_id,
            action_type="TASK_CANCELLED",
            executor=f"human:{principal.user_id}",
            task_id=run.id,
            dept_id=run.dept_id,
            bl_id=run.bl_id,
            user_id=principal.user_id,
            details={"previous_status": coordination.status.value},
        ),
    )
    approvals = ApprovalService(session, settings, audit=audit)
    await approvals.cancel_pending(run.id, f"the run was cancelled by {who}")
    await session.refresh(run)
    return new_state

"""Run service: create a run from a template (arguments checked before any browser starts), load its
state, list runs, and record a person's resolution of a NEEDS_HUMAN step. Services never commit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.events import EventType, apply_event, replay
from finrpa.agents.plan import CoordinationState, TaskStatus
from finrpa.agents.planner import compile_template
from finrpa.audit.events import AuditEntry
from finrpa.audit.service import AuditService
from finrpa.exceptions import ConflictError, ValidationFailedError
from finrpa.runs.journal import Transition, commit_transition
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


class SensitiveArgumentError(ValidationFailedError):
    code = "sensitive_argument_not_a_reference"


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


async def create_run(session: AsyncSession, request: RunRequest) -> Run:
    """Insert a PENDING run and its run_created event (with the compiled plan) in the caller's transaction."""
    ctx = require_tenant()
    if ctx.org_id is None:
        raise ValidationFailedError("A run belongs to one organisation; act in that organisation's context.")
    arguments = bind_arguments(request.template, request.arguments)
    stored = stored_arguments(request.template, arguments)
    plan = compile_template(request.template, arguments)
    run = Run(
        org_id=ctx.org_id,
        dept_id=request.dept_id,
        bl_id=request.bl_id,
        created_by=request.created_by or ctx.user_id,
        template_id=request.template.id,
        template_version=request.template.version,
        goal=request.template.description or request.template.name,
        status=TaskStatus.PENDING.value,
        arguments=stored,
        versions=versions_of(request.template),
        result={},
        idempotency_key=request.idempotency_key,
        fencing_token=0,
    )
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
    transition = Transition(
        events=[NewEvent(EventType.HUMAN_RESOLUTION, payload)],
        state=new_state.model_dump(mode="json"),
        status=status,
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

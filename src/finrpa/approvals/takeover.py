"""What a person sees when a run waits for them (NEEDS_HUMAN, SPEC §C5): where it stopped and why.

:func:`human_takeover_view` assembles, from the run's state (``finrpa.runs.service.load_state``) and its
event log: the step, the reason, the URL, the last screenshot (with an expiring link whose issuing is
itself audited), the LLM's raw output and the errors recorded with the needs_human event, and the choices
the person has. The choice itself is recorded by ``finrpa.runs.service.resolve_needs_human``.

Keys read from the needs_human event payload: ``reason``, ``url``, ``error_code``, ``last_screenshot``
({bucket, key, sha256, size}), ``llm_raw_output`` (or ``raw_response``) and ``errors`` (or
``llm_errors``), both masked like audit text. Without a ``last_screenshot`` the newest screenshot of an
earlier action event is shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.events import EventType as RunEventType
from finrpa.agents.plan import TaskStatus
from finrpa.approvals.schemas import Evidence, as_utc
from finrpa.audit.events import AuditEntry, EventType
from finrpa.audit.sanitizer import Sanitizer
from finrpa.audit.service import AuditService
from finrpa.db.base import utcnow
from finrpa.exceptions import ConflictError
from finrpa.runs.models import RunEvent
from finrpa.runs.repository import RunRepository
from finrpa.runs.service import HUMAN_ACTIONS, load_state

_MAX_RAW_OUTPUT = 20_000  # characters of LLM output shown; the rest is cut with a marker
_SANITIZER = Sanitizer()  # page text quoted by the model is masked like any stored text (card numbers, IDs)


class ScreenshotLink(BaseModel):
    model_config = ConfigDict(frozen=True)

    evidence: Evidence
    url: str
    expires_at: datetime


class TakeoverView(BaseModel):
    """Everything on the NEEDS_HUMAN panel of one run."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    template_id: str | None
    status: TaskStatus
    subtask_id: str
    step: str | None
    goal: str
    attempts: int
    reason: str | None
    url: str | None
    error_code: str | None
    llm_raw_output: str | None
    errors: tuple[str, ...]
    last_screenshot: ScreenshotLink | None
    waiting_since: datetime
    choices: tuple[str, ...] = HUMAN_ACTIONS


async def human_takeover_view(
    session: AsyncSession, run_id: str, *, audit: AuditService, viewer: str, link_ttl_s: int | None = None
) -> TakeoverView:
    """The NEEDS_HUMAN panel of ``run_id`` for ``viewer`` (recorded on the audited screenshot link)."""
    repository = RunRepository(session)
    run = await repository.get(run_id)
    state = await load_state(session, run_id)
    if state.status is not TaskStatus.NEEDS_HUMAN or state.current is None:
        raise ConflictError(
            f"Run {run_id} is {state.status.value}, not waiting for a person; there is nothing to take over."
        )
    events = await repository.events(run_id)
    marker = _last_needs_human(events)
    payload = marker.payload
    subtask = state.plan.subtask(state.current)
    shot = _screenshot(payload) or _earlier_screenshot(events, marker.seq)
    link = None
    if shot is not None:
        link = await _issue_link(session, audit, shot, run.org_id, run_id, viewer, link_ttl_s or audit.link_ttl_s)
    return TakeoverView(
        run_id=run_id,
        template_id=run.template_id,
        status=state.status,
        subtask_id=subtask.subtask_id,
        step=_text(subtask.inputs.get("step_id")),
        goal=subtask.goal,
        attempts=subtask.attempts,
        reason=_text(payload.get("reason")) or state.last_error,
        url=_text(payload.get("url")),
        error_code=_text(payload.get("error_code")),
        llm_raw_output=_raw_output(payload),
        errors=_errors(payload),
        last_screenshot=link,
        waiting_since=as_utc(marker.created_at),
    )


def _last_needs_human(events: Sequence[RunEvent]) -> RunEvent:
    for event in reversed(events):
        if event.type == RunEventType.NEEDS_HUMAN.value:
            return event
    raise ConflictError("The run is marked NEEDS_HUMAN but its log has no needs_human event; check the run's log.")


def _screenshot(payload: Mapping[str, Any]) -> Evidence | None:
    shot = payload.get("last_screenshot")
    if not isinstance(shot, Mapping):
        return None
    try:
        return Evidence.model_validate(dict(shot))
    except ValueError:
        return None


def _earlier_screenshot(events: Sequence[RunEvent], before_seq: int) -> Evidence | None:
    for event in reversed(events):
        if event.seq >= before_seq or event.type != RunEventType.ACTION.value:
            continue
        for phase in ("screenshot_after", "screenshot_before"):
            shot = _screenshot({"last_screenshot": event.payload.get(phase)})
            if shot is not None:
                return shot
    return None


async def _issue_link(
    session: AsyncSession,
    audit: AuditService,
    shot: Evidence,
    org_id: str,
    run_id: str,
    viewer: str,
    ttl_s: int,
) -> ScreenshotLink:
    url = await audit.objects.presign_get(shot.key, bucket=shot.bucket, expires_s=ttl_s)
    details = {"bucket": shot.bucket, "key": shot.key, "sha256": shot.sha256, "expires_s": ttl_s, "for": "takeover"}
    entry = AuditEntry(
        org_id=org_id,
        action_type=EventType.LINK_ISSUED.value,
        executor=f"human:{viewer}",
        user_id=viewer,
        task_id=run_id,
        details=details,
    )
    await audit.append(session, entry)
    return ScreenshotLink(evidence=shot, url=url, expires_at=utcnow() + timedelta(seconds=ttl_s))


def _raw_output(payload: Mapping[str, Any]) -> str | None:
    raw = payload.get("llm_raw_output", payload.get("raw_response"))
    if raw is None:
        return None
    text = _SANITIZER.sanitize_text(raw if isinstance(raw, str) else str(raw))
    return text if len(text) <= _MAX_RAW_OUTPUT else text[:_MAX_RAW_OUTPUT] + "\n… (cut)"


def _errors(payload: Mapping[str, Any]) -> tuple[str, ...]:
    errors = payload.get("errors", payload.get("llm_errors"))
    if isinstance(errors, str):
        errors = [errors]
    if not isinstance(errors, Sequence):
        return ()
    return tuple(_SANITIZER.sanitize_text(str(error)) for error in errors)


def _text(value: object) -> str | None:
    return None if value is None else str(value)

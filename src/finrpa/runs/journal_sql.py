"""The coordinator's journal on the application database: each commit writes the step's events, the new
checkpoint (with the browser session sealed by AES-GCM), the run's status, and the audit rows for the
step's browser actions and key events — all in ONE transaction."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.events import EventType
from finrpa.agents.plan import CoordinationState
from finrpa.audit.events import AuditEntry
from finrpa.audit.service import AuditService
from finrpa.kit.crypto import seal, unseal
from finrpa.runs.browser_session import BrowserSession
from finrpa.runs.evidence import ACTION_EVENT, audit_entry_for_action
from finrpa.runs.execution import RunIdentity, Transaction
from finrpa.runs.journal import Transition, commit_transition
from finrpa.runs.repository import NewEvent

# Run events that also become audit rows (besides browser actions), with their audit action type.
_KEY_EVENTS = {
    EventType.NEEDS_HUMAN: "NEEDS_HUMAN",
    EventType.HUMAN_RESOLUTION: "HUMAN_INTERVENTION",
    EventType.EFFECT: "EFFECT",
    EventType.EGRESS_BLOCKED: "EGRESS_BLOCKED",
    EventType.RUN_FINISHED: "RUN_FINISHED",
    EventType.POLICY_DECISION: "POLICY_DECISION",
    EventType.APPROVAL_DECIDED: "APPROVAL_DECISION",
    EventType.PLANNED: "PLAN_CREATED",  # a goal run's plan, as the LLM planner made it
    EventType.REPLANNED: "PLAN_REPLANNED",
}


class SqlJournal:
    def __init__(
        self,
        identity: RunIdentity,
        transaction: Transaction[Any],
        browser: BrowserSession,
        audit: AuditService,
        *,
        fencing_token: int,
        session_key: bytes,
        last_storage: str | None = None,
        last_url: str | None = None,
    ) -> None:
        self.identity = identity
        self.transaction = transaction
        self.browser = browser
        self.audit = audit
        self.fencing_token = fencing_token
        self.session_key = session_key
        self._storage = last_storage
        self._url = last_url
        self._sealed_digest: bytes | None = None  # SHA-256 of the storage state sealed in self._storage

    async def sealed_checkpoint(self, *, final: bool = False) -> tuple[str | None, str | None]:
        """The browser session sealed for the checkpoint (the last one while the browser is not started).
        Called before every commit of a step: it also waits until the step's screenshots are durable.

        ``final``: the commit ends the run, which nothing resumes: the session is not exported, and the checkpoint
        keeps no session (the portal's cookies of a finished run are not left at rest)."""
        await self.browser.recorder.flush()
        if final:
            self._storage, self._sealed_digest = None, None
            self._url = self.browser.current_url() or self._url
            return None, self._url
        storage_json, url = await self.browser.checkpoint()
        if storage_json is not None:
            plain = storage_json.encode()
            digest = hashlib.sha256(plain).digest()
            if digest != self._sealed_digest or self._storage is None:  # unchanged cookies: keep the sealed copy
                self._storage = seal(self.session_key, plain, self.identity.run_id.encode())
                self._sealed_digest = digest
            self._url = url
        return self._storage, self._url

    def last_session(self) -> tuple[str | None, str | None]:
        """The browser session (storage state JSON) and URL of the last commit: where a parallel branch's own
        browser context starts from, the same on a first execution and after a resume."""
        if self._storage is None:
            return None, self._url
        return unseal(self.session_key, self._storage, self.identity.run_id.encode()).decode(), self._url

    async def commit(
        self,
        events: Sequence[NewEvent],
        state: CoordinationState,
        *,
        error: str | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        await self.sealed_checkpoint(final=state.status.is_final)
        entries = self.audit_entries(events, state)
        transition = Transition(
            events=list(events),
            state=state.model_dump(mode="json"),
            status=state.status.value,
            storage_state=self._storage,
            url=self._url,
            error_message=error,
            result=result,
        )

        async def write(session: AsyncSession) -> None:
            await commit_transition(session, self.identity.run_id, self.fencing_token, transition)
            if entries:
                await self.audit.append_many(session, entries)

        await self.transaction(write)

    def audit_entries(self, events: Sequence[NewEvent], state: CoordinationState) -> list[AuditEntry]:
        ident = self.identity
        entries: list[AuditEntry] = []
        for event in events:
            if event.type == ACTION_EVENT:
                entries.append(
                    audit_entry_for_action(
                        event.payload,
                        org_id=ident.org_id,
                        run_id=ident.run_id,
                        dept_id=ident.dept_id,
                        bl_id=ident.bl_id,
                    )
                )
                continue
            action_type = _KEY_EVENTS.get(EventType(event.type)) if event.type in EventType._value2member_map_ else None
            action_type = action_type or _login_event(event, state)
            if action_type is None:
                continue
            executor = f"human:{event.payload['user_id']}" if event.type == EventType.HUMAN_RESOLUTION else "agent"
            entries.append(
                AuditEntry(
                    org_id=ident.org_id,
                    action_type=action_type,
                    executor=executor,
                    task_id=ident.run_id,
                    dept_id=ident.dept_id,
                    bl_id=ident.bl_id,
                    user_id=event.payload.get("user_id"),
                    input_value=event.payload.get("action"),
                    details=_details(event.payload),
                    execution_result=str(event.payload.get("status") or event.payload.get("state") or "ok"),
                )
            )
        return entries


def _login_event(event: NewEvent, state: CoordinationState) -> str | None:
    if event.type not in (EventType.SUBTASK_SUCCEEDED, EventType.SUBTASK_FAILED):
        return None
    try:
        call = state.plan.subtask(str(event.payload.get("subtask_id"))).skill_call
    except KeyError:
        return None
    if call is None or call.skill != "LoginSkill":
        return None
    return "LOGIN" if event.type == EventType.SUBTASK_SUCCEEDED else "LOGIN_FAILED"


def _details(payload: dict[str, Any]) -> dict[str, Any]:
    details = {key: value for key, value in payload.items() if key not in ("plan",) and not isinstance(value, bytes)}
    plan = payload.get("plan")
    if isinstance(plan, dict):  # the plan's outline: which steps, by which skill (the full plan is in the event log)
        subtasks = [s for s in plan.get("subtasks", []) if isinstance(s, dict)]
        details["plan_steps"] = [
            {"subtask_id": s.get("subtask_id"), "skill": _skill_of(s), "goal": str(s.get("goal", ""))[:200]}
            for s in subtasks[:50]
        ]
        details["plan_step_count"] = len(subtasks)
    return details


def _skill_of(subtask: dict[str, Any]) -> str | None:
    call = subtask.get("skill_call")
    return str(call.get("skill")) if isinstance(call, dict) else None

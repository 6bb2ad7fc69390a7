"""Evidence of a run's browser actions: screenshots go to the object store as they are taken; each action
becomes a masked ``action`` run event, and the journal turns those events into audit rows in the same
transaction as the step they belong to.

A before-shot the controller reused from the previous action's after-shot (the page provably did not change
in between) is stored once: both audit rows name the same object key and SHA-256, and the row of the later
action says whose after-shot it shares (``details.screenshot_before_shared_from``).

Screenshot files are written and linked into place before the action's event is recorded, but their fsyncs run
in the background: :meth:`EvidenceRecorder.flush` waits for them (and fsyncs their folders once) and the
journal calls it before the transaction that commits the step's audit rows, so a committed row never names a
screenshot that a crash could lose."""

from __future__ import annotations

from typing import Any, Protocol

from finrpa.audit.events import AuditEntry
from finrpa.browser import ActionIntent, ActionRecord, Screenshot
from finrpa.objectstore.local import DeferredSync, deferred_sync
from finrpa.objectstore.port import StoredObject
from finrpa.runs.repository import NewEvent

ACTION_EVENT = "action"

_AUDIT_TYPE = {
    "navigate": "NAVIGATE",
    "click": "CLICK",
    "fill": "INPUT_TEXT",
    "select": "SELECT",
    "check": "CHECK",
    "uncheck": "CHECK",
    "press": "PRESS_KEY",
    "upload": "UPLOAD",
    "download": "DOWNLOAD",
    "scroll": "SCROLL",
    "wait_for": "WAIT",
    "extract": "EXTRACT",
    "accept_dialog": "ACCEPT_DIALOG",
    "dismiss_dialog": "ACCEPT_DIALOG",
    "switch_tab": "NAVIGATE",
}


class ScreenshotStore(Protocol):
    async def store_screenshot(
        self,
        org_id: str,
        task_id: str | None,
        action_index: int | None,
        phase: Any,
        png: bytes,
        *,
        bucket: str | None = None,
    ) -> StoredObject: ...


class EvidenceRecorder:
    """The browser controller's recorder for one run: stores screenshots, collects action events."""

    def __init__(
        self, *, org_id: str, run_id: str, screenshots: ScreenshotStore | None, durable: DeferredSync | None = None
    ) -> None:
        self.org_id = org_id
        self.run_id = run_id
        self.screenshots = screenshots
        self.subtask_id: str | None = None
        self._events: list[NewEvent] = []
        self.action_count = 0
        self._last_after: tuple[int, StoredObject] | None = None  # (action index, its stored after-shot)
        # fsyncs of stored screenshots, awaited by flush() before the commit; a parallel branch's recorder shares
        # the run's, so the run's journal waits for the branch's screenshots too
        self.durable = durable or DeferredSync()

    async def intent(self, intent: ActionIntent) -> None:
        """Intents of read actions stay in memory; effects are recorded durably by the effect ledger first."""

    async def record(self, record: ActionRecord) -> None:
        self.action_count += 1
        before, before_shared = await self._store(record, "before")
        after, after_shared = await self._store(record, "after", before.bucket if before else None)
        # Keyed by the action that took the PNG, so a chain of shares (click → extract → click) finds it.
        self._last_after = (after_shared or record.action_index, after) if after is not None else None
        target = record.target
        payload: dict[str, Any] = {
            "subtask_id": self.subtask_id,
            "action_index": record.action_index,
            "kind": record.kind,
            "target": None if target is None else {"role": target.role, "name": target.name},
            "value": record.value_masked,
            "url_before": record.url_before,
            "url_after": record.url_after,
            "duration_ms": round(record.duration_ms),
            "outcome": record.outcome,
            "error_code": record.error_code,
            "error": record.error_message,
            "screenshot_before": _stored(before),
            "screenshot_after": _stored(after),
            "screenshot_before_shared_from": before_shared,
            "screenshot_after_shared_from": after_shared,
            "started_at": record.started_at.isoformat(),
        }
        self._events.append(NewEvent(ACTION_EVENT, payload))

    async def _store(
        self, record: ActionRecord, phase: str, bucket: str | None = None
    ) -> tuple[StoredObject | None, int | None]:
        """The stored screenshot of ``phase`` and, when it is an earlier action's stored after-shot, whose."""
        shot = record.screenshot_before if phase == "before" else record.screenshot_after
        if shot is None or self.screenshots is None:
            return None, None
        shared = self._shared(shot, bucket)
        if shared is not None:
            return shared, shot.shared_from
        with deferred_sync(self.durable):
            stored = await self.screenshots.store_screenshot(
                self.org_id, self.run_id, record.action_index, phase, shot.png, bucket=bucket
            )
        return stored, None

    async def flush(self) -> None:
        """Return once every screenshot stored so far is on disk (call before committing their audit rows)."""
        await self.durable.wait()

    def _shared(self, shot: Screenshot, bucket: str | None) -> StoredObject | None:
        """The stored after-shot of the action ``shot`` is shared from, when it is that very image."""
        last = self._last_after
        if shot.shared_from is None or last is None or last[0] != shot.shared_from:
            return None
        stored = last[1]
        if stored.sha256 != shot.sha256 or (bucket is not None and stored.bucket != bucket):
            return None  # not the same bytes, or a row's two shots would sit in different buckets: store anew
        return stored

    def add_event(self, event: NewEvent) -> None:
        """A browser event (e.g. blocked egress) to commit with the current step."""
        self._events.append(event)

    def drain(self) -> list[NewEvent]:
        events, self._events = self._events, []
        return events


def _stored(obj: StoredObject | None) -> dict[str, Any] | None:
    if obj is None:
        return None
    return {"bucket": obj.bucket, "key": obj.key, "sha256": obj.sha256, "size": obj.size}


def _object(data: dict[str, Any] | None) -> StoredObject | None:
    if not data:
        return None
    return StoredObject(bucket=data["bucket"], key=data["key"], sha256=data["sha256"], size=int(data["size"]))


def audit_entry_for_action(
    payload: dict[str, Any], *, org_id: str, run_id: str, dept_id: str | None, bl_id: str | None
) -> AuditEntry:
    """The audit row of one recorded browser action."""
    target = payload.get("target") or {}
    name = f"{target.get('role', '')} {target.get('name', '')}".strip() or None
    return AuditEntry(
        org_id=org_id,
        action_type=_AUDIT_TYPE.get(str(payload["kind"]), "BROWSER_ACTION"),
        executor="agent",
        task_id=run_id,
        dept_id=dept_id,
        bl_id=bl_id,
        action_index=int(payload["action_index"]),
        target_element=name,
        input_value=payload.get("value"),
        screenshot_before=_object(payload.get("screenshot_before")),
        screenshot_after=_object(payload.get("screenshot_after")),
        duration_ms=int(payload.get("duration_ms") or 0),
        execution_result=str(payload.get("outcome", "ok")),
        details={
            "url_before": payload.get("url_before"),
            "url_after": payload.get("url_after"),
            "subtask_id": payload.get("subtask_id"),
            "error_code": payload.get("error_code"),
            **_sharing(payload),
        },
    )


def _sharing(payload: dict[str, Any]) -> dict[str, Any]:
    """Which earlier action's after-shot this row's screenshots are, when shared (absent otherwise)."""
    return {
        f"screenshot_{phase}_shared_from": payload[f"screenshot_{phase}_shared_from"]
        for phase in ("before", "after")
        if payload.get(f"screenshot_{phase}_shared_from") is not None
    }

"""Pydantic shapes of the audit trail at its boundaries (API, CLI, exports)."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from finrpa.audit.models import AuditRecord
from finrpa.audit.sanitizer import AuditValue, Sanitizer
from finrpa.exceptions import ValidationFailedError


class AuditQuery(BaseModel):
    """Search criteria (all optional; results are newest first, ``cursor`` continues a previous page)."""

    model_config = ConfigDict(extra="forbid")

    task_id: str | None = Field(None, max_length=64)
    user_id: str | None = Field(None, max_length=64, description="rows by, for or approved by this user")
    dept_id: str | None = Field(None, max_length=32)
    action_types: list[str] | None = Field(None, max_length=50)
    since: datetime | None = None
    until: datetime | None = None
    cursor: str | None = Field(None, max_length=100)
    limit: int = Field(50, ge=1, le=500)


class AuditRecordView(BaseModel):
    """One audit row as a viewer may see it (values masked again with the viewer's profile)."""

    id: str
    org_id: str
    seq: int
    task_id: str | None
    dept_id: str | None
    bl_id: str | None
    user_id: str | None
    action_index: int | None
    action_type: str
    target_element: str | None
    input_value: AuditValue
    input_value_raw_hash: str | None
    screenshot_before_sha256: str | None
    screenshot_after_sha256: str | None
    has_screenshot_before: bool
    has_screenshot_after: bool
    has_approval: bool
    approval_id: str | None
    approver_user_id: str | None
    executor: str
    duration_ms: int | None
    execution_result: str
    details: AuditValue
    created_at: datetime
    prev_hash: str
    row_hash: str

    @classmethod
    def of(cls, record: AuditRecord, sanitizer: Sanitizer) -> AuditRecordView:
        return cls(
            id=record.id,
            org_id=record.org_id,
            seq=record.seq,
            task_id=record.task_id,
            dept_id=record.dept_id,
            bl_id=record.bl_id,
            user_id=record.user_id,
            action_index=record.action_index,
            action_type=record.action_type,
            target_element=_masked_text(record.target_element, sanitizer),
            input_value=_masked_json_or_text(record.input_value, sanitizer),
            input_value_raw_hash=record.input_value_raw_hash,
            screenshot_before_sha256=record.screenshot_before_sha256,
            screenshot_after_sha256=record.screenshot_after_sha256,
            has_screenshot_before=record.screenshot_before_key is not None,
            has_screenshot_after=record.screenshot_after_key is not None,
            has_approval=record.has_approval,
            approval_id=record.approval_id,
            approver_user_id=record.approver_user_id,
            executor=record.executor,
            duration_ms=record.duration_ms,
            execution_result=record.execution_result,
            details=_masked_json_or_text(record.details, sanitizer),
            created_at=record.created_at,
            prev_hash=record.prev_hash,
            row_hash=record.row_hash,
        )


class AuditPage(BaseModel):
    items: list[AuditRecordView]
    next_cursor: str | None = Field(None, description="pass as `cursor` to get the next (older) page")


class IssuedLink(BaseModel):
    url: str
    expires_at: datetime
    seq: int
    phase: Literal["before", "after"]


def encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"before_seq": seq}).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()))["before_seq"]
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise ValidationFailedError("The cursor is not valid; start again without a cursor.") from exc
    if not isinstance(value, int) or value < 1:
        raise ValidationFailedError("The cursor is not valid; start again without a cursor.")
    return value


def _masked_text(text: str | None, sanitizer: Sanitizer) -> str | None:
    return None if text is None else sanitizer.sanitize_text(text)


def _masked_json_or_text(text: str | None, sanitizer: Sanitizer) -> AuditValue:
    if text is None:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return sanitizer.sanitize_text(text)
    return sanitizer.sanitize(parsed)

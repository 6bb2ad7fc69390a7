"""What callers hand to the audit trail: an :class:`AuditEntry` per browser action or key event.

``action_type`` is an upper-case word: a browser action (CLICK, INPUT_TEXT, SELECT, NAVIGATE, DOWNLOAD …)
or an event (LOGIN, CREDENTIAL_READ, POLICY_DECISION, APPROVAL_DECISION, HUMAN_INTERVENTION, EXPORT,
LINK_ISSUED …). Other domains may add their own words; :data:`ACTION_TYPE_PATTERN` is the only rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from finrpa.objectstore.port import StoredObject

ACTION_TYPE_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]{1,47}$")
Phase = Literal["before", "after"]


class ActionType(StrEnum):
    """Browser actions (one row each)."""

    CLICK = "CLICK"
    INPUT_TEXT = "INPUT_TEXT"
    SELECT = "SELECT"
    CHECK = "CHECK"
    NAVIGATE = "NAVIGATE"
    DOWNLOAD = "DOWNLOAD"
    UPLOAD = "UPLOAD"
    PRESS_KEY = "PRESS_KEY"
    SCROLL = "SCROLL"
    HOVER = "HOVER"
    WAIT = "WAIT"
    EXTRACT = "EXTRACT"
    ACCEPT_DIALOG = "ACCEPT_DIALOG"


class EventType(StrEnum):
    """Key events that are not browser actions (one row each)."""

    LOGIN = "LOGIN"
    LOGIN_FAILED = "LOGIN_FAILED"
    LOGOUT = "LOGOUT"
    CREDENTIAL_READ = "CREDENTIAL_READ"
    POLICY_DECISION = "POLICY_DECISION"
    APPROVAL_REQUESTED = "APPROVAL_REQUESTED"
    APPROVAL_DECISION = "APPROVAL_DECISION"
    HUMAN_INTERVENTION = "HUMAN_INTERVENTION"
    EXPORT = "EXPORT"
    LINK_ISSUED = "LINK_ISSUED"
    VALUE_CHECKED = "VALUE_CHECKED"


# A screenshot is either the PNG bytes (the audit service stores them) or an object already stored.
ScreenshotInput = bytes | StoredObject | None


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One audit row to append. Values are masked again by the Sanitizer before anything is stored.

    ``input_value`` is what the skill's ``to_audit_dict`` (or the browser record) produced — already
    masked once. ``raw_value`` is the unmasked value, used only for the keyed hash ``input_value_raw_hash``
    and never stored; leave it None for credentials. ``executor`` is ``"agent"`` or ``"human:<user id>"``.
    """

    org_id: str
    action_type: str
    executor: str = "agent"
    task_id: str | None = None
    dept_id: str | None = None
    bl_id: str | None = None
    user_id: str | None = None
    action_index: int | None = None
    target_element: str | None = None
    input_value: object = None
    raw_value: str | None = field(default=None, repr=False)
    screenshot_before: ScreenshotInput = field(default=None, repr=False)
    screenshot_after: ScreenshotInput = field(default=None, repr=False)
    has_approval: bool = False
    approval_id: str | None = None
    approver_user_id: str | None = None
    duration_ms: int | None = None
    execution_result: str = "ok"
    details: Mapping[str, object] | None = None

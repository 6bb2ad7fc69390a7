"""Evidence of each action: what was asked, what it was done to, screenshots, timing and outcome.

The controller hands an :class:`ActionRecord` to an :class:`ActionRecorder` (the run layer stores it and
writes the audit row); the browser runtime itself writes nothing to a database. Values are masked here:
a record never carries a secret.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Literal, Protocol

from pydantic import BaseModel, Field, SecretStr

from finrpa.browser.actions import AcceptDialog, Action, Fill
from finrpa.browser.snapshot import Fingerprint
from finrpa.kit.secret_text import MASK

Outcome = Literal["ok", "refused", "stale", "failed", "timeout", "invalid"]
_CARD_OR_ID = re.compile(r"^(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]?\d{1,3})?|\d{17}[\dXx])$")


class Screenshot(BaseModel):
    png: bytes = Field(repr=False)
    sha256: str
    masked_regions: int = 0
    shared_from: int | None = Field(
        default=None,
        description="Set on a before-shot that is the after-shot of this action index, reused because the page "
        "provably did not change in between (stored once; the audit rows share its key and hash).",
    )

    @classmethod
    def of(cls, png: bytes, masked_regions: int) -> Screenshot:
        return cls(png=png, sha256=hashlib.sha256(png).hexdigest(), masked_regions=masked_regions)


class TargetSummary(BaseModel):
    ref: str | None
    role: str
    name: str
    fingerprint: Fingerprint
    bbox: tuple[int, int, int, int] | None = None


class ActionIntent(BaseModel):
    """Recorded before the action touches the page."""

    run_id: str
    action_index: int
    kind: str
    action: Action
    at: datetime


class ActionRecord(BaseModel):
    run_id: str
    action_index: int
    kind: str
    action: Action = Field(description="The action with any typed value masked.")
    target: TargetSummary | None = None
    value_masked: str | None = None
    screenshot_before: Screenshot | None = None
    screenshot_after: Screenshot | None = None
    url_before: str
    url_after: str
    started_at: datetime
    duration_ms: float
    outcome: Outcome
    error_code: str | None = None
    error_message: str | None = None


class ActionRecorder(Protocol):
    """Where the controller sends intents and records (the run layer implements it)."""

    async def intent(self, intent: ActionIntent) -> None: ...

    async def record(self, record: ActionRecord) -> None: ...


def mask_value(value: str | SecretStr | None, *, sensitive: bool) -> str | None:
    """A value as it may appear in a record: secrets and sensitive fields fully masked, card/ID numbers
    reduced to their last four digits."""
    if value is None:
        return None
    if isinstance(value, SecretStr) or sensitive:
        return MASK
    if _CARD_OR_ID.match(value.strip()):
        digits = re.sub(r"\D", "", value)
        return "*" * max(len(digits) - 4, 4) + digits[-4:]
    return value


def redact_action(action: Action) -> Action:
    """The action with its typed value masked (the original is never stored)."""
    if isinstance(action, Fill):
        masked = mask_value(action.value, sensitive=action.sensitive)
        return action.model_copy(update={"value": masked})
    if isinstance(action, AcceptDialog) and action.prompt_text is not None:
        return action.model_copy(update={"prompt_text": mask_value(action.prompt_text, sensitive=False)})
    return action

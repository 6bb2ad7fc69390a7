"""The proposed action as approvers see it (sanitized) and as decisions are bound to it (payload hash).

``payload_hash(action)`` is the SHA-256 of the action's canonical JSON (keys sorted, no spaces, UTF-8,
no NaN): the exact action the executor proposes, before masking. An approval applies only to an action
with the same hash; if the executor's action changes, it must ask again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from finrpa.approvals.errors import InvalidApprovalRequestError
from finrpa.audit.sanitizer import Sanitizer

MAX_ACTION_BYTES = 64 * 1024
_SUMMARY_CHARS = 300


def canonical_json(action: Mapping[str, object]) -> str:
    """The one serialisation the payload hash is computed over."""
    try:
        return json.dumps(action, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidApprovalRequestError(
            f"The proposed action is not plain JSON ({exc}); pass strings, numbers, booleans, lists and objects."
        ) from exc


def payload_hash(action: Mapping[str, object]) -> str:
    """SHA-256 (hex) of the action's canonical JSON; an approval is bound to this value."""
    return hashlib.sha256(canonical_json(action).encode()).hexdigest()


def sanitized_action(action: Mapping[str, object]) -> dict[str, object]:
    """The action with secrets, card/account numbers, ID numbers and names masked (audit Sanitizer rules)."""
    size = len(canonical_json(action).encode())
    if size > MAX_ACTION_BYTES:
        raise InvalidApprovalRequestError(
            f"The proposed action is {size} bytes of JSON; approvers are shown at most {MAX_ACTION_BYTES}. "
            "Put large content in evidence and summarise it in the action."
        )
    masked = Sanitizer().sanitize(dict(action))
    if not isinstance(masked, dict):  # pragma: no cover - a dict sanitizes to a dict
        raise InvalidApprovalRequestError("The proposed action must be a JSON object.")
    return dict(masked)


def summarize(masked: Mapping[str, object]) -> str:
    """One line for lists and notifications: the sanitized action's JSON, shortened."""
    text = json.dumps(masked, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1] + "…"

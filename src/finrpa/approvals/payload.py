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
    """One readable line for approval lists and notifications, from the sanitized action: what it is (the skill, or
    the browser action's kind and operation), then its values as ``name: value`` in the order the action gives
    them (a form's fields by their labels), an element as its role and name, and the business reference last —
    e.g. ``form_fill — 收款人: 张**; 收款账号: ************7890; 付款金额: 1,500,000.00 · ref PAY-1``. Shortened to
    300 characters; the full action stays on the request."""
    head = " ".join(str(masked[key]) for key in _HEAD_KEYS if isinstance(masked.get(key), str) and masked[key])
    rest = {key: value for key, value in masked.items() if key not in (*_HEAD_KEYS, _REFERENCE_KEY)}
    parts = [f"{name}: {value}" for name, value in _leaves(rest)]
    text = (head or "action") + (" — " + "; ".join(parts) if parts else "")
    reference = masked.get(_REFERENCE_KEY)
    if reference not in (None, ""):
        text += f" · ref {reference}"
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1] + "…"


_HEAD_KEYS = ("skill", "kind", "operation")
_REFERENCE_KEY = "business_id"
_CONTAINERS = frozenset({"params", "fields", "values", "typed"})  # their keys name the values; they add nothing


def _leaves(value: object, name: str = "") -> list[tuple[str, str]]:
    """(name, shown value) pairs of a JSON value: nested names collapse to the innermost one, empty values drop."""
    if isinstance(value, Mapping):
        if isinstance(value.get("role"), str) and isinstance(value.get("name"), str):
            return [(name, f'{value["role"]} "{value["name"]}"')]  # an element's fingerprint
        found: list[tuple[str, str]] = []
        for key, item in value.items():
            found += _leaves(item, name if key in _CONTAINERS and name else str(key))
        return found
    if isinstance(value, list):
        if all(not isinstance(item, Mapping | list) for item in value):
            shown = ", ".join(str(item) for item in value if item not in (None, ""))
            return [(name, shown)] if shown else []
        return [pair for item in value for pair in _leaves(item, name)]
    if value is None or value == "":
        return []
    if isinstance(value, bool):
        return [(name, "yes" if value else "no")]
    return [(name, str(value))]

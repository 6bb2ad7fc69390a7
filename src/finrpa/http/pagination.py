"""Opaque keyset cursors for list endpoints: ``(created_at, id)`` of the last item, base64url JSON.

A cursor is only a position, never a permission: the next page is read under the same tenant scope as
the first, so a cursor copied into another organisation's session finds nothing of the first.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime

from finrpa.exceptions import ValidationFailedError

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
_INVALID = "The cursor is not valid; start again without a cursor."


@dataclass(frozen=True, slots=True)
class KeysetCursor:
    created_at: datetime
    id: str

    def encode(self) -> str:
        raw = json.dumps({"t": self.created_at.isoformat(), "id": self.id}, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, cursor: str) -> KeysetCursor:
        try:
            padded = cursor + "=" * (-len(cursor) % 4)
            value = json.loads(base64.urlsafe_b64decode(padded.encode()))
            created_at = datetime.fromisoformat(value["t"])
            item_id = value["id"]
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise ValidationFailedError(_INVALID, code="invalid_cursor") from exc
        if not isinstance(item_id, str) or not item_id or len(item_id) > 64:
            raise ValidationFailedError(_INVALID, code="invalid_cursor")
        return cls(created_at, item_id)

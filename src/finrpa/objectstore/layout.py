"""Names in the object store: evidence keys and monthly buckets (SPEC §C12)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Literal

_SEGMENT = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_KEY = re.compile(r"^(?!/)(?!.*//)[A-Za-z0-9_.=/-]{1,1024}$")
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


def month_of(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m")


def monthly_bucket(prefix: str, at: datetime) -> str:
    """``finrpa-audit-2026-11`` for prefix ``finrpa-audit``."""
    return f"{prefix}-{month_of(at)}"


def screenshot_key(
    org_id: str, task_id: str | None, action_index: int | None, phase: Literal["before", "after"]
) -> str:
    """``audit/{org_id}/{task_id}/{action_index}_{before|after}_{uuid}.png``."""
    task = task_id or "no-task"
    index = "x" if action_index is None else str(action_index)
    for segment in (org_id, task):
        check_segment(segment)
    return f"audit/{org_id}/{task}/{index}_{phase}_{uuid.uuid4().hex}.png"


def check_segment(segment: str) -> None:
    if not _SEGMENT.match(segment) or segment in (".", ".."):
        raise ValueError(f"{segment!r} cannot be part of an object key; use letters, digits, '_', '-' and '.'.")


def check_key(key: str) -> None:
    """Refuse keys that could escape a directory or confuse a URL."""
    if not _KEY.match(key) or any(part in (".", "..") for part in key.split("/")):
        raise ValueError(
            f"{key!r} is not a valid object key: use letters, digits and '_', '-', '.', '=', '/' "
            "without empty, '.' or '..' segments."
        )


def check_bucket(bucket: str) -> None:
    if not _BUCKET.match(bucket) or ".." in bucket:
        raise ValueError(f"{bucket!r} is not a valid bucket name (3-63 lower-case letters, digits, '.', '-').")

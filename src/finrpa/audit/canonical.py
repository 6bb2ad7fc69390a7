"""The canonical bytes of an audit row: what its hash, the chain and the Merkle leaf are computed over.

A row document is a JSON object with the keys of :data:`CHAINED_FIELDS` plus ``"v"`` (format version);
timestamps are ISO 8601 UTC with microseconds and a ``Z``. Canonical JSON sorts keys, uses no spaces and
keeps non-ASCII characters as UTF-8, so re-serialising a parsed document gives the same bytes — which is
what lets an auditor recompute everything from an export with any JSON library.

``row_hash = SHA-256(canonical bytes)``; the bytes include ``prev_hash`` (the previous row's ``row_hash`` in
the same organisation, or 64 zeros for the first row), so the rows form a hash chain. The Merkle leaf of a
row is ``SHA-256(0x00 || canonical bytes)`` (RFC 6962).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from json.encoder import encode_basestring  # the C escaper json.dumps(ensure_ascii=False) uses for strings
from typing import Any

from finrpa.audit.merkle import leaf_hash

CHAIN_VERSION = 1
GENESIS_HASH = "0" * 64

CHAINED_FIELDS: tuple[str, ...] = (
    "id",
    "org_id",
    "seq",
    "task_id",
    "dept_id",
    "bl_id",
    "user_id",
    "action_index",
    "action_type",
    "target_element",
    "input_value",
    "input_value_raw_hash",
    "screenshot_bucket",
    "screenshot_before_key",
    "screenshot_before_sha256",
    "screenshot_after_key",
    "screenshot_after_sha256",
    "has_approval",
    "approval_id",
    "approver_user_id",
    "executor",
    "duration_ms",
    "execution_result",
    "details",
    "created_at",
    "prev_hash",
)


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# The chained fields in canonical (sorted) order; "v" sorts after all of them and closes every document.
SORTED_FIELDS: tuple[str, ...] = tuple(sorted(CHAINED_FIELDS))
_TEMPLATE = "{" + ",".join(encode_basestring(name) + ":%s" for name in SORTED_FIELDS) + f',"v":{CHAIN_VERSION}}}'
assert SORTED_FIELDS[-1] < "v"


def canonical_json(value: Any) -> str:
    return _ENCODER.encode(value)


def format_timestamp(at: datetime) -> str:
    """ISO 8601 in UTC with microseconds; a naive value (SQLite gives those back) is taken as UTC."""
    if at.tzinfo is not None and at.utcoffset():
        at = at.astimezone(UTC)
    return at.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def parse_timestamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def row_document(values: Mapping[str, Any]) -> dict[str, Any]:
    """The hashed document of a row from its column values (``created_at`` may be a datetime or text)."""
    document = {name: values[name] for name in CHAINED_FIELDS}
    created_at = document["created_at"]
    if isinstance(created_at, datetime):
        document["created_at"] = format_timestamp(created_at)
    document["has_approval"] = bool(document["has_approval"])
    document["v"] = CHAIN_VERSION
    return document


def canonical_bytes(document: Mapping[str, Any]) -> bytes:
    return canonical_json(document).encode()


def canonical_row(values: Sequence[Any]) -> bytes:
    """The same bytes as ``canonical_bytes(row_document(...))`` for column values in SORTED_FIELDS order.

    The fast path of verify and append: the fixed keys are a format template and each value is encoded by
    the encoder json itself uses for its type (several times faster than building and sorting a dict; the
    tests check it against the generic form).
    """
    encoded = tuple([_ENCODERS.get(type(value), canonical_json)(value) for value in values])
    return (_TEMPLATE % encoded).encode()


def _encode_timestamp(value: datetime) -> str:
    return '"' + format_timestamp(value) + '"'


_ENCODERS: dict[type, Any] = {
    str: encode_basestring,
    int: int.__repr__,
    bool: lambda value: "true" if value else "false",
    type(None): lambda _value: "null",
    datetime: _encode_timestamp,
}


def hash_bytes(canonical: bytes) -> str:
    return hashlib.sha256(canonical).hexdigest()


def row_leaf(canonical: bytes) -> bytes:
    return leaf_hash(canonical)

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
from collections.abc import Callable, Mapping, Sequence
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


def _timestamp_json(value: Any, _last: list[Any] = [None, ""]) -> str:  # noqa: B006  # a one-entry memo
    """A created_at value as JSON; the rows of one append share their timestamp, so the last one is remembered."""
    if value.__class__ is not datetime:
        return canonical_json(value)
    if value != _last[0]:  # equal instants give the same UTC text, whatever their zone
        _last[:] = (value, '"' + format_timestamp(value) + '"')
    text: str = _last[1]
    return text


def _integer_json(value: Any) -> str:
    return int.__repr__(value) if value.__class__ is int else canonical_json(value)


_COLUMN_KINDS = {"seq": "int", "action_index": "int", "duration_ms": "int", "has_approval": "bool"}


def _row_encoder_source() -> str:
    """Python source of ``canonical_row``: one expression per column in SORTED_FIELDS order, no per-value dispatch.

    Strings go straight to json's own C string encoder, integers to ``int.__repr__`` (what json uses), the flag
    to true/false as ``row_document`` does (``bool(value)``), ``created_at`` to :func:`_timestamp_json`.
    """
    names = [f"v{index}" for index in range(len(SORTED_FIELDS))]
    encoded = []
    for name, field_name in zip(names, SORTED_FIELDS, strict=True):
        kind = "time" if field_name == "created_at" else _COLUMN_KINDS.get(field_name, "str")
        encoded.append(
            {
                "str": f'"null" if {name} is None else _string({name})',
                "int": f'"null" if {name} is None else _integer({name})',
                "bool": f'"true" if {name} else "false"',
                "time": f"_timestamp({name})",
            }[kind]
        )
    return (
        "def canonical_row(values):\n"
        f"    {', '.join(names)}, *_extra = values\n"
        f"    return (_TEMPLATE % ({', '.join(encoded)},)).encode()\n"
    )


def _compile_row_encoder() -> Callable[[Sequence[Any]], bytes]:
    namespace: dict[str, Any] = {
        "_TEMPLATE": _TEMPLATE,
        "_string": encode_basestring,
        "_integer": _integer_json,
        "_timestamp": _timestamp_json,
    }
    exec(_row_encoder_source(), namespace)  # noqa: S102  # source built above from constant field names only
    encoder: Callable[[Sequence[Any]], bytes] = namespace["canonical_row"]
    encoder.__doc__ = """The same bytes as ``canonical_bytes(row_document(...))`` for column values in SORTED_FIELDS
    order (further items, such as a trailing row_hash, are ignored).

    The fast path of verify and append: the fixed keys are a format template and each column's value goes to
    the encoder json itself uses for that type (several times faster than building and sorting a dict; the
    tests check it against the generic form byte for byte)."""
    return encoder


canonical_row = _compile_row_encoder()


def hash_bytes(canonical: bytes) -> str:
    return hashlib.sha256(canonical).hexdigest()


def row_leaf(canonical: bytes) -> bytes:
    return leaf_hash(canonical)

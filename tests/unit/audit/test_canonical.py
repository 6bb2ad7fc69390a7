"""The fast canonical form of a row is byte-for-byte the documented one (sorted-key compact JSON)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from finrpa.audit.canonical import (
    CHAINED_FIELDS,
    SORTED_FIELDS,
    canonical_bytes,
    canonical_row,
    format_timestamp,
    row_document,
)

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)  # anything but lone surrogates
OPTIONAL_TEXT = st.none() | TEXT
OPTIONAL_INT = st.none() | st.integers(min_value=-(2**63), max_value=2**63 - 1)


@st.composite
def rows(draw: st.DrawFn) -> dict[str, object]:
    values: dict[str, object] = {name: draw(OPTIONAL_TEXT) for name in CHAINED_FIELDS}
    values["seq"] = draw(st.integers(min_value=1, max_value=2**62))
    values["action_index"] = draw(OPTIONAL_INT)
    values["duration_ms"] = draw(OPTIONAL_INT)
    values["has_approval"] = draw(st.booleans())
    values["created_at"] = draw(st.datetimes(timezones=st.just(UTC)))
    return values


@settings(max_examples=300, deadline=None)
@given(rows())
def test_the_fast_form_equals_sorted_compact_json(values: dict[str, object]) -> None:
    generic = canonical_bytes(row_document(values))
    assert canonical_row([values[name] for name in SORTED_FIELDS]) == generic
    document = json.loads(generic)
    assert list(document) == sorted(document)  # keys sorted, "v" last
    assert json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() == generic


def test_timestamps_are_utc_with_microseconds() -> None:
    assert format_timestamp(datetime(2026, 11, 30, 8, 0, 1, 5, tzinfo=UTC)) == "2026-11-30T08:00:01.000005Z"
    assert format_timestamp(datetime(2026, 11, 30, 8, 0, 1)) == "2026-11-30T08:00:01.000000Z"  # naive = UTC


@settings(max_examples=50, deadline=None)
@given(st.lists(rows(), min_size=2, max_size=6))
def test_consecutive_rows_with_shared_and_different_times_encode_independently(batch: list[dict[str, object]]) -> None:
    batch[1]["created_at"] = batch[0]["created_at"]  # rows of one append share their timestamp
    for values in batch:
        ordered = [values[name] for name in SORTED_FIELDS]
        assert canonical_row([*ordered, "row hash after the columns"]) == canonical_bytes(row_document(values))


def test_unexpected_column_types_fall_back_to_json() -> None:
    values: dict[str, object] = {name: None for name in CHAINED_FIELDS}
    values.update(seq=True, has_approval=1, created_at="2026-11-30T08:00:01.000005Z")
    document = json.loads(canonical_row([values[name] for name in SORTED_FIELDS]))
    assert (document["seq"], document["has_approval"], document["created_at"]) == (True, True, values["created_at"])


PRINTABLE = st.text(alphabet=st.sampled_from('ab 收款"\\{}:,%s%d\x01\n\t'), max_size=30)


@settings(max_examples=120, deadline=None)
@given(rows(), st.data())
def test_quotes_escapes_and_format_directives_encode_like_the_generic_form(
    values: dict[str, object], data: st.DataObject
) -> None:
    """Quotes, backslashes, control characters, format directives and NULLs in any column give the documented
    bytes (the fast encoder puts values into a format template)."""
    for name in CHAINED_FIELDS:
        if name not in {"seq", "action_index", "duration_ms", "has_approval", "created_at"}:
            values[name] = data.draw(st.none() | PRINTABLE)
    ordered = [values[name] for name in SORTED_FIELDS]
    expected = canonical_bytes(row_document(values))
    assert canonical_row(ordered) == expected
    assert canonical_row([*ordered, "a row hash"]) == expected  # the same shape again, from the cache

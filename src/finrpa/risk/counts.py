"""Record counts ("导出 500 条客户记录", "共 1,234 条", "export 250 customers", a field named 条数)."""

from __future__ import annotations

import re

from finrpa.risk.numerals import normalize_digits

_COUNT = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?![\d.,])\s?"
    r"(?:条|笔|行|户|名|位|份|个客户|records?|rows?|customers?|clients?|entries|policyholders)",
    re.IGNORECASE,
)
_COUNT_KEYS = ("条数", "记录数", "导出数量", "客户数", "record_count", "records", "rows", "count", "limit")


def record_counts(text: str) -> list[int]:
    """Every number of records, rows or customers mentioned in ``text``."""
    text = normalize_digits(text)
    return [int(match.group(1).replace(",", "")) for match in _COUNT.finditer(text)]


def counts_in_values(values: dict[str, str]) -> list[int]:
    """Record counts in form values: fields named like a count, or values written like one."""
    found: list[int] = []
    for key, value in values.items():
        cleaned = normalize_digits(value).replace(",", "").strip()
        if any(name in key.lower() for name in _COUNT_KEYS) and cleaned.isdigit():
            found.append(int(cleaned))
        else:
            found += record_counts(value)
    return found

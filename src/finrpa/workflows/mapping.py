"""Params mapping: ``"url": "bank_url"`` takes a workflow parameter, ``"=skip"`` is a literal, dicts nest."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from finrpa.workflows.definitions import MappingValue

LITERAL_PREFIX = "="


class _Absent:
    """An optional workflow parameter with no value: the key is left out of the skill's params."""


ABSENT = _Absent()


def references(value: MappingValue, path: str = "") -> Iterator[tuple[str, str]]:
    """Yield (key path, referenced parameter name) for every reference in a mapping value."""
    if isinstance(value, str):
        if not value.startswith(LITERAL_PREFIX):
            yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from references(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from references(item, f"{path}[{index}]")


def resolve(value: MappingValue, arguments: Mapping[str, Any]) -> Any:
    """Replace references with argument values; optional parameters without a value resolve to ABSENT."""
    if isinstance(value, str):
        if value.startswith(LITERAL_PREFIX):
            return value[len(LITERAL_PREFIX) :]
        return arguments.get(value, ABSENT)
    if isinstance(value, dict):
        resolved = {key: resolve(item, arguments) for key, item in value.items()}
        return {key: item for key, item in resolved.items() if item is not ABSENT}
    if isinstance(value, list):
        return [item for item in (resolve(entry, arguments) for entry in value) if item is not ABSENT]
    return value

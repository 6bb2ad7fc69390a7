"""Flatten a Pydantic JSON Schema: inline every ``$ref`` so API clients, the UI and MCP get one plain
object."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

JsonSchema = dict[str, Any]


def flat_json_schema(model: type[BaseModel]) -> JsonSchema:
    """The model's JSON Schema with ``$defs`` resolved inline (recursive models are refused)."""
    schema = model.model_json_schema()
    definitions: dict[str, JsonSchema] = schema.pop("$defs", {})
    flat = _inline(schema, definitions, ())
    assert isinstance(flat, dict)
    return flat


def _inline(node: Any, definitions: dict[str, JsonSchema], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            raise ValueError(f"schema {name!r} is recursive and cannot be flattened")
        target = dict(definitions[name])
        target.update({key: value for key, value in node.items() if key != "$ref"})
        return _inline(target, definitions, (*seen, name))
    return {key: _inline(value, definitions, seen) for key, value in node.items()}

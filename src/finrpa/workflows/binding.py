"""Bind a run's arguments to a template: types checked, defaults applied, all before a browser starts."""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

from finrpa.exceptions import ValidationFailedError
from finrpa.workflows.definitions import ParameterSpec, ParameterType, TemplateDefinition
from finrpa.workflows.mapping import ABSENT, resolve

SECRET_SCHEME = "secret://"  # noqa: S105 - a URL scheme, not a secret


class ArgumentError(ValidationFailedError):
    code = "invalid_arguments"


def bind_arguments(template: TemplateDefinition, given: dict[str, Any]) -> dict[str, Any]:
    """Return the typed arguments; raise ArgumentError listing every problem at once."""
    problems: list[str] = []
    unknown = sorted(set(given) - set(template.parameters))
    if unknown:
        problems.append(
            f"unknown parameter(s) {', '.join(unknown)} (known: {', '.join(sorted(template.parameters))})"
        )
    bound: dict[str, Any] = {}
    for name, spec in template.parameters.items():
        raw = given.get(name)
        if raw is None or raw == "":
            if spec.default is not None:
                raw = spec.default
            elif spec.required:
                problems.append(
                    f"missing required parameter {name!r}" + (f" ({spec.title})" if spec.title else "")
                )
                continue
            else:
                continue
        try:
            bound[name] = _coerce(raw, spec)
        except ValueError as exc:
            problems.append(f"parameter {name!r}: {exc}")
    if problems:
        raise ArgumentError(f"Template {template.id!r} cannot start: " + "; ".join(problems) + ".")
    return bound


def _coerce(raw: Any, spec: ParameterSpec) -> Any:
    if isinstance(raw, str) and raw.startswith(SECRET_SCHEME):
        if not spec.sensitive:
            raise ValueError("only sensitive parameters may take a secret:// reference")
        return raw
    kind = spec.type
    if spec.enum and str(raw) not in spec.enum:
        raise ValueError(f"must be one of {', '.join(spec.enum)}")
    if kind is ParameterType.DATE:
        try:
            return date.fromisoformat(str(raw)).isoformat()
        except ValueError:
            raise ValueError(f"{raw!r} is not a date; write YYYY-MM-DD") from None
    if kind is ParameterType.INTEGER:
        try:
            return int(str(raw))
        except ValueError:
            raise ValueError(f"{raw!r} is not a whole number") from None
    if kind is ParameterType.NUMBER:
        try:
            return str(Decimal(str(raw).replace(",", "")))
        except InvalidOperation:
            raise ValueError(f"{raw!r} is not a number") from None
    if kind is ParameterType.BOOLEAN:
        text = str(raw).lower()
        if text not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(f"{raw!r} is not true/false")
        return text in ("true", "1", "yes")
    if kind is ParameterType.URL:
        parts = urlsplit(str(raw))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{raw!r} is not an http(s) URL")
        return str(raw)
    return str(raw)


def step_params(template: TemplateDefinition, step_index: int, arguments: dict[str, Any]) -> dict[str, Any]:
    """The params dict for one step, with references resolved against the bound arguments."""
    resolved = resolve(dict(template.steps[step_index].params), arguments)
    assert isinstance(resolved, dict)
    return {key: value for key, value in resolved.items() if value is not ABSENT}


def portal_hosts(template: TemplateDefinition, arguments: dict[str, Any]) -> list[str]:
    """The hosts a run of this template may reach: its portal URLs' hosts plus explicit extras."""
    hosts = [urlsplit(str(arguments[name])).netloc for name in template.portal_params if name in arguments]
    return sorted({*hosts, *template.egress_extra_hosts})

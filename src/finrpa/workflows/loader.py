"""Load templates from YAML and check them against the skill registry before anything runs.

Load-time errors name the template, the step and the key: an unknown skill, a reference to a parameter the
template does not declare, a key the skill does not accept, or a required skill parameter left unmapped.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from finrpa.exceptions import NotFoundError, ValidationFailedError
from finrpa.skills.registry import get_skill
from finrpa.workflows.definitions import SkillStepDefinition, TemplateDefinition
from finrpa.workflows.mapping import references


class TemplateError(ValidationFailedError):
    code = "template_invalid"


def parse_template(text: str, source: str) -> TemplateDefinition:
    """Parse and validate one template; ``source`` names it in errors."""
    try:
        raw = copy.deepcopy(_yaml(text))  # a private copy: validation may keep nested values by reference
    except yaml.YAMLError as exc:
        raise TemplateError(f"Template {source} is not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise TemplateError(f"Template {source} must be a YAML mapping at the top level.")
    try:
        template = TemplateDefinition.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise TemplateError(f"Template {source}: {where}: {first['msg']}.") from exc
    check_template(template)
    return template


@lru_cache(maxsize=64)
def _yaml(text: str) -> Any:
    """The parsed YAML of a template's text, remembered: runs look their template up several times each, and
    parsing (not validating) is what costs."""
    return yaml.safe_load(text)


def check_template(template: TemplateDefinition) -> None:
    """Raise TemplateError naming template, step and key for the first problem found."""
    step_ids: set[str] = set()
    for step in template.steps:
        where = f"Template {template.id!r} step {step.id!r}"
        if step.id in step_ids:
            raise TemplateError(f"{where}: the step id is used twice; step ids must be unique.")
        for dependency in step.depends_on or []:
            if dependency not in step_ids:
                raise TemplateError(f"{where}: depends_on {dependency!r} is not an earlier step.")
        step_ids.add(step.id)
        _check_step(template, step, where)
    for name in template.portal_params:
        spec = template.parameters.get(name)
        if spec is None or spec.type != "url":
            raise TemplateError(f"Template {template.id!r}: portal_params {name!r} must be a url parameter.")


def _check_step(template: TemplateDefinition, step: SkillStepDefinition, where: str) -> None:
    try:
        skill = get_skill(step.skill)
    except NotFoundError as exc:
        raise TemplateError(f"{where}: {exc.message}") from exc
    for key_path, name in references(dict(step.params)):
        if name not in template.parameters:
            raise TemplateError(
                f"{where}: key {key_path!r} refers to unknown parameter {name!r}; declare it under "
                f"parameters or write a literal as '={name}'."
            )
    for _path, name in references(step.business_id):
        if name not in template.parameters:
            raise TemplateError(f"{where}: business_id refers to unknown parameter {name!r}.")
    fields = skill.params_model.model_fields
    for key in step.params:
        if key not in fields:
            raise TemplateError(
                f"{where}: key {key!r} is not a parameter of {skill.skill_name} "
                f"(it accepts: {', '.join(sorted(fields))})."
            )
    for name, field in fields.items():
        if field.is_required() and name not in step.params:
            raise TemplateError(f"{where}: required key {name!r} of {skill.skill_name} is not mapped.")
    lowered = step.side_effect is not None and _rank(step.side_effect.value) < _rank(skill.side_effect.value)
    if lowered and not skill.side_effect_declared_by_step:
        assert step.side_effect is not None
        raise TemplateError(
            f"{where}: side_effect {step.side_effect.value!r} is lower than {skill.skill_name}'s own "
            f"{skill.side_effect.value!r}; a template may only raise it."
        )


def _rank(effect: str) -> int:
    return {"read": 0, "write": 1, "irreversible": 2}[effect]


def builtin_template_dir() -> Path:
    return Path(str(files("finrpa.workflows") / "templates"))


def load_builtin_templates() -> dict[str, TemplateDefinition]:
    """Every template shipped in the package, by id. Validated once per version of the files (a run looks its
    template up several times; the models are frozen, so one validated copy serves every caller)."""
    stats = ((path, path.stat()) for path in sorted(builtin_template_dir().glob("*.yaml")))
    return dict(_validated_templates(tuple((str(path), st.st_mtime_ns, st.st_size) for path, st in stats)))


@lru_cache(maxsize=4)
def _validated_templates(files: tuple[tuple[str, int, int], ...]) -> tuple[tuple[str, TemplateDefinition], ...]:
    templates: dict[str, TemplateDefinition] = {}
    for name, _mtime, _size in files:
        path = Path(name)
        template = parse_template(path.read_text(encoding="utf-8"), path.name)
        if template.id in templates:
            raise TemplateError(f"Template id {template.id!r} is defined twice (second in {path.name}).")
        templates[template.id] = template
    return tuple(templates.items())


def get_template(template_id: str) -> TemplateDefinition:
    templates = load_builtin_templates()
    try:
        return templates[template_id]
    except KeyError:
        raise NotFoundError(
            f"No template named {template_id!r}. Known templates: {', '.join(sorted(templates))}."
        ) from None


def describe_template(template: TemplateDefinition) -> dict[str, Any]:
    """The template's public description: parameters as a JSON Schema for forms, and its steps."""
    properties: dict[str, Any] = {}
    for name, spec in template.parameters.items():
        prop: dict[str, Any] = {"type": _json_type(spec.type.value), "title": spec.title or name}
        if spec.type.value in ("date", "url"):
            prop["format"] = "date" if spec.type.value == "date" else "uri"
        if spec.description:
            prop["description"] = spec.description
        if spec.default is not None:
            prop["default"] = spec.default
        if spec.enum:
            prop["enum"] = spec.enum
        if spec.sensitive:
            prop["writeOnly"] = True
            prop["x-sensitive"] = True
        properties[name] = prop
    required = [name for name, spec in template.parameters.items() if spec.required and spec.default is None]
    return {
        "id": template.id,
        "version": template.version,
        "name": template.name,
        "name_en": template.name_en,
        "domain": template.domain,
        "description": template.description,
        "parameters_schema": {"type": "object", "properties": properties, "required": required},
        "steps": [{"id": step.id, "name": step.name, "skill": step.skill} for step in template.steps],
    }


def _json_type(kind: str) -> str:
    return {"integer": "integer", "number": "number", "boolean": "boolean"}.get(kind, "string")

"""HTTP routes of the catalogues: workflow templates (with their parameter JSON Schema) and skills.

Both catalogues ship with the installation and are the same for every organisation; any signed-in user may
read them.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from finrpa.http.caller import CurrentUser
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.skills.registry import skill_catalogue
from finrpa.workflows.loader import describe_template, get_template, load_builtin_templates

router = APIRouter(tags=["catalogue"], responses=PROBLEM_RESPONSES)


class TemplateStep(BaseModel):
    id: str
    name: str
    skill: str


class Template(BaseModel):
    id: str
    version: int
    name: str
    name_en: str
    domain: str
    description: str
    parameters_schema: dict[str, Any] = Field(
        description="JSON Schema of the parameters (sensitive ones are writeOnly with x-sensitive: pass a "
        "secret://<name> reference to a stored credential)."
    )
    steps: list[TemplateStep]


class Skill(BaseModel):
    name: str
    description: str
    version: str
    side_effect: str
    error_strategy: str
    required_capabilities: list[str]
    timeout_s: float
    idempotent: bool
    compensation: str | None
    params_schema: dict[str, Any]
    result_schema: dict[str, Any] | None


@router.get("/templates", summary="List the workflow templates")
async def list_templates(_caller: CurrentUser) -> list[Template]:
    return [Template.model_validate(describe_template(t)) for t in load_builtin_templates().values()]


@router.get("/templates/{template_id}", summary="A template with its parameter JSON Schema")
async def get_template_route(template_id: str, _caller: CurrentUser) -> Template:
    return Template.model_validate(describe_template(get_template(template_id)))


@router.get("/skills", summary="The skill catalogue with parameter and result schemas")
async def list_skills(_caller: CurrentUser) -> list[Skill]:
    return [Skill.model_validate(skill) for skill in skill_catalogue()]

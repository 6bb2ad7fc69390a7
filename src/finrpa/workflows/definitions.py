"""The template data model: parameters, skill steps with their params mapping, portal hosts."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from typing_extensions import TypeAliasType

from finrpa.skills.base import ErrorStrategy, SideEffect

# A params mapping value: a reference ("bank_url"), a literal ("=skip"), or nested dicts/lists of those.
MappingValue = TypeAliasType(
    "MappingValue", "str | int | float | bool | dict[str, MappingValue] | list[MappingValue] | None"
)


class ParameterType(StrEnum):
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    DATE = "date"
    URL = "url"
    PATH = "path"


class ParameterSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)  # shared by every run that loads it

    type: ParameterType = ParameterType.STRING
    required: bool = True
    sensitive: bool = False
    default: Any = None
    title: str = ""
    description: str = ""
    enum: list[str] | None = None


class SkillStepDefinition(BaseModel):
    """One step of a template: a skill and how its params come from the workflow parameters."""

    model_config = ConfigDict(extra="forbid", frozen=True)  # shared by every run that loads it

    id: str
    name: str = ""
    skill: str
    # The business operation the step performs (payment.submit, statement.export …), as policies name it;
    # None: the skill's own name.
    operation: str | None = None
    params: dict[str, MappingValue] = Field(default_factory=dict)
    failure_strategy: ErrorStrategy | None = None
    max_retries: int | None = None
    depends_on: list[str] | None = None  # None: the previous step
    side_effect: SideEffect | None = None  # may only raise the skill's own class
    # Reference building the business id of an effect (idempotency key), e.g. a payment's purpose field.
    business_id: MappingValue = None
    compensation: str | None = None


class TemplateDefinition(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)  # shared by every run that loads it

    id: str
    version: int = 1
    name: str
    name_en: str = ""
    domain: str
    description: str = ""
    parameters: dict[str, ParameterSpec]
    steps: list[SkillStepDefinition]
    portal_params: list[str] = Field(
        default_factory=list, description="URL parameters whose hosts form the run's egress allowlist."
    )
    egress_extra_hosts: list[str] = Field(default_factory=list)

    @field_validator("steps")
    @classmethod
    def _at_least_one_step(cls, steps: list[SkillStepDefinition]) -> list[SkillStepDefinition]:
        if not steps:
            raise ValueError("a template needs at least one step")
        return steps

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"

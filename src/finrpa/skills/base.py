"""The skill contract: what every skill declares (params, side effects, capabilities, failure strategy)
and does.

A skill is a class with a Pydantic ``params_model`` and an ``async execute(params, context)`` that acts
only through the browser runtime in ``context`` and returns a :class:`SkillResult`. Skills never raise for
expected portal failures; they return a result whose ``error_code`` and ``retryable`` flag tell the
coordinator what to do.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from finrpa.exceptions import FinRPAError
from finrpa.kit.jsonschema import JsonSchema, flat_json_schema

if TYPE_CHECKING:
    from finrpa.skills.context import SkillContext


class SideEffect(StrEnum):
    READ = "read"
    WRITE = "write"
    IRREVERSIBLE = "irreversible"


class ErrorStrategy(StrEnum):
    RETRY = "RETRY"
    SKIP = "SKIP"
    ABORT = "ABORT"
    REPLAN = "REPLAN"


class ArtifactRef(BaseModel):
    """A file a skill produced (download, extracted CSV), stored in the run folder."""

    name: str
    path: str
    sha256: str
    size: int
    media_type: str


class SkillResult(BaseModel):
    """What a skill reports. ``data`` holds JSON-safe results; secrets never appear in it."""

    model_config = ConfigDict(frozen=True)

    success: bool
    data: dict[str, Any] = Field(default_factory=dict)
    error_code: str | None = None
    error_message: str | None = None
    retryable: bool = False
    needs_human: bool = False
    artifacts: list[ArtifactRef] = Field(default_factory=list)
    url: str | None = None

    @classmethod
    def ok(cls, data: dict[str, Any] | None = None, **kwargs: Any) -> SkillResult:
        return cls(success=True, data=data or {}, **kwargs)

    @classmethod
    def failed(
        cls, code: str, message: str, *, retryable: bool = False, needs_human: bool = False, **kwargs: Any
    ) -> SkillResult:
        return cls(
            success=False,
            error_code=code,
            error_message=message,
            retryable=retryable,
            needs_human=needs_human,
            **kwargs,
        )


class SkillError(FinRPAError):
    """A skill could not do its job; ``code`` names why (e.g. field_not_found, login_rejected)."""

    code = "skill_failed"

    def __init__(
        self, message: str, *, retryable: bool | None = None, code: str | None = None, needs_human: bool = False
    ) -> None:
        super().__init__(message, retryable=retryable, code=code)
        self.needs_human = needs_human

    def to_result(self) -> SkillResult:
        return SkillResult.failed(self.code, self.message, retryable=self.retryable, needs_human=self.needs_human)


class ReconcileOutcome(StrEnum):
    HAPPENED = "happened"
    DID_NOT_HAPPEN = "did_not_happen"
    UNKNOWN = "unknown"


class ReconcileResult(BaseModel):
    """Whether an effect left uncertain by a crash happened in the portal, with its external reference."""

    outcome: ReconcileOutcome
    external_reference: str | None = None
    detail: str = ""


P = TypeVar("P", bound=BaseModel)


class BaseSkill(ABC, Generic[P]):
    """Base of every skill. Subclasses set the class attributes and implement :meth:`execute`."""

    skill_name: ClassVar[str]
    description: ClassVar[str]
    version: ClassVar[str] = "1"
    params_model: ClassVar[type[BaseModel]]
    result_model: ClassVar[type[BaseModel] | None] = None
    error_strategy: ClassVar[ErrorStrategy] = ErrorStrategy.RETRY
    side_effect: ClassVar[SideEffect] = SideEffect.READ
    # True when what the skill does depends on its params (a form may be a query or a payment): a template
    # then states the step's side effect either way. Otherwise a template may only raise it.
    side_effect_declared_by_step: ClassVar[bool] = False
    required_capabilities: ClassVar[frozenset[str]] = frozenset()
    timeout_s: ClassVar[float] = 120.0
    max_retries: ClassVar[int] = 2
    # True when running twice with the same params is harmless (reads, form fills without submit).
    idempotent: ClassVar[bool] = True
    # Name of the skill that undoes this one's effect, if the portal allows it.
    compensation: ClassVar[str | None] = None
    # Param names whose values are secrets or personal data: never logged, masked in audit.
    sensitive_params: ClassVar[frozenset[str]] = frozenset()

    @abstractmethod
    async def execute(self, params: P, context: SkillContext) -> SkillResult:
        """Do the work through ``context``. May raise FinRPA errors; :meth:`run` turns them into results."""

    async def run(self, raw_params: dict[str, Any] | BaseModel, context: SkillContext) -> SkillResult:
        """Validate params, enforce the timeout, and turn every expected failure into a SkillResult."""
        try:
            params = self.params_model.model_validate(
                raw_params.model_dump() if isinstance(raw_params, BaseModel) else raw_params
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            return SkillResult.failed("invalid_params", f"{self.skill_name}: {where}: {first['msg']}.")
        try:
            async with asyncio.timeout(self.timeout_s):
                return await self.execute(params, context)  # type: ignore[arg-type]
        except TimeoutError:
            return SkillResult.failed(
                "skill_timeout", f"{self.skill_name} did not finish within {self.timeout_s:.0f} s.", retryable=True
            )
        except SkillError as exc:
            return exc.to_result()
        except FinRPAError as exc:
            return SkillResult.failed(exc.code, exc.message, retryable=exc.retryable)

    async def reconcile(self, params: P, context: SkillContext) -> ReconcileResult:
        """Find out whether an uncertain effect happened. Read-only skills have nothing to reconcile."""
        return ReconcileResult(outcome=ReconcileOutcome.UNKNOWN, detail=f"{self.skill_name} cannot reconcile")

    def to_audit_dict(self, params: P) -> dict[str, Any]:
        """The skill's own masking (first line of defence): sensitive params become ``******``."""
        dumped = params.model_dump(mode="json")
        return {key: ("******" if key in self.sensitive_params else value) for key, value in dumped.items()}

    @classmethod
    def params_schema(cls) -> JsonSchema:
        return flat_json_schema(cls.params_model)

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """The skill's public description for the CLI, the API, the UI and MCP."""
        return {
            "name": cls.skill_name,
            "description": cls.description,
            "version": cls.version,
            "side_effect": cls.side_effect.value,
            "error_strategy": cls.error_strategy.value,
            "required_capabilities": sorted(cls.required_capabilities),
            "timeout_s": cls.timeout_s,
            "idempotent": cls.idempotent,
            "compensation": cls.compensation,
            "params_schema": cls.params_schema(),
            "result_schema": flat_json_schema(cls.result_model) if cls.result_model else None,
        }

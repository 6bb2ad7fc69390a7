"""The shapes of a policy question and its answer."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from finrpa.db.base import utcnow

RiskLevelName = Literal["low", "medium", "high", "critical"]
EffectName = Literal["read", "write", "irreversible"]
RISK_RANKS: dict[str, int] = {"low": 0, "medium": 1, "high": 2, "critical": 3}


class Decision(StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    REQUIRE_APPROVAL = "require_approval"


class PolicyPrincipal(BaseModel):
    """Who acts: a user, or an agent acting for a user within a run (then ``acting_for`` is the user)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["User", "Agent"] = "User"
    id: str = Field(min_length=1)
    org_id: str = Field(min_length=1)
    roles: frozenset[str] = frozenset()
    departments: frozenset[str] = frozenset()
    business_lines: frozenset[str] = frozenset()
    acting_for: str | None = None
    run_id: str | None = None


class PolicyResource(BaseModel):
    """What is acted on. A portal belongs to the department and business line the run works for."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["Portal", "Department", "BusinessLine", "DataClass"] = "Portal"
    id: str = Field(min_length=1)
    host: str = ""
    department: str | None = None
    business_line: str | None = None


class PolicyContext(BaseModel):
    """The arguments and circumstances of one operation. ``in_manifest`` defaults to False: fail closed."""

    model_config = ConfigDict(frozen=True)

    amount_cny: Decimal = Decimal(0)
    record_count: int = Field(default=0, ge=0)
    risk_level: RiskLevelName = "low"
    effect: EffectName = "read"
    in_manifest: bool = False
    host: str = ""
    data_classes: frozenset[str] = frozenset()
    at: datetime = Field(default_factory=utcnow)


class PolicyRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    principal: PolicyPrincipal
    action: str = Field(min_length=1)
    resource: PolicyResource
    context: PolicyContext = Field(default_factory=PolicyContext)


class PolicyDecision(BaseModel):
    """The answer. ``reason_codes`` are the deciding policies' @id annotations; ``reasons`` their @reason."""

    model_config = ConfigDict(frozen=True)

    decision: Decision
    reason_codes: list[str]
    reasons: list[str]
    policy_version: str
    errors: list[str] = Field(default_factory=list)

    @property
    def allowed(self) -> bool:
        return self.decision is Decision.ALLOW

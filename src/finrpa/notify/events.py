"""Typed notification events (SPEC §C16) and the facts each one shows in a message.

An event's ``kind`` is also the ``X-FinRPA-Event`` header of webhook deliveries and the name channels
subscribe to. Its ``event_id`` is derived from what the event is about (the approval, the run and its event
sequence, …) unless the caller gives one, so a step that is retried and enqueues the same event again
produces no second message: the outbox keys deliveries by event id and channel.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter

from finrpa.db.base import utcnow


class EventKind(StrEnum):
    NEEDS_HUMAN = "run.needs_human"
    APPROVAL_REQUESTED = "approval.requested"
    APPROVAL_TIMED_OUT = "approval.timed_out"
    RUN_FAILED = "run.failed"
    CACHE_HIT_RATE_DROP = "llm.cache_hit_rate_drop"
    CHANNEL_TEST = "notify.test"


# What a channel may subscribe to (the test message goes to one channel on demand, never by subscription).
SUBSCRIBABLE_EVENTS = tuple(kind for kind in EventKind if kind != EventKind.CHANNEL_TEST)

RiskLevel = Literal["low", "medium", "high", "critical"]
_RISK_ZH = {"low": "低", "medium": "中", "high": "高", "critical": "极高"}


@dataclass(frozen=True)
class Fact:
    """One line of a message: a bilingual label and its value (values come from the event, untrusted).

    A ``None`` value leaves the line out; a datetime is shown in the configured time zone.
    """

    label_zh: str
    label_en: str
    value: str | datetime | None


@dataclass(frozen=True)
class Headline:
    zh: str
    en: str


class _Event(BaseModel, ABC):
    model_config = ConfigDict(extra="forbid")

    kind: EventKind
    org_id: str = Field(min_length=1, max_length=32)
    occurred_at: AwareDatetime = Field(default_factory=utcnow)
    event_id: str = Field(default="", max_length=64, description="Derived from the subject when empty.")
    recipients: tuple[str, ...] = Field(
        default=(), description="E-mail addresses this event is for (e.g. eligible approvers)."
    )

    def model_post_init(self, context: Any, /) -> None:
        if not self.event_id:
            digest = hashlib.sha256(f"{self.kind}|{self.org_id}|{self.subject()}".encode()).hexdigest()
            self.event_id = digest[:32]

    @abstractmethod
    def subject(self) -> str:
        """What makes this event unique within its kind and organisation."""

    @abstractmethod
    def headline(self) -> Headline:
        """The title line, Chinese first."""

    @abstractmethod
    def facts(self) -> list[Fact]:
        """The lines of the message body."""

    @abstractmethod
    def dashboard_path(self) -> str:
        """Where in the dashboard a person acts on this event."""


class NeedsHuman(_Event):
    """A run stopped in NEEDS_HUMAN and waits for an operator."""

    kind: Literal[EventKind.NEEDS_HUMAN] = EventKind.NEEDS_HUMAN
    run_id: str
    reason: str
    template_name: str | None = None
    step: str | None = None
    sequence: int = Field(
        default=0, description="Run event-log sequence number of the NEEDS_HUMAN transition."
    )

    def subject(self) -> str:
        return f"{self.run_id}:{self.sequence}"

    def headline(self) -> Headline:
        return Headline("任务需要人工处理", "A run needs a person")

    def facts(self) -> list[Fact]:
        return _facts(
            Fact("任务", "Run", self.run_id),
            Fact("模板", "Template", self.template_name),
            Fact("步骤", "Step", self.step),
            Fact("原因", "Reason", self.reason),
        )

    def dashboard_path(self) -> str:
        return f"/tasks/{self.run_id}"


class ApprovalRequested(_Event):
    """A risky action waits for approval (sent to the channels of the approvers' organisation)."""

    kind: Literal[EventKind.APPROVAL_REQUESTED] = EventKind.APPROVAL_REQUESTED
    approval_id: str
    run_id: str
    action_summary: str = Field(description="The proposed action, already sanitized (no raw values).")
    risk_level: RiskLevel
    requested_by: str
    department: str | None = None
    required_approvals: int = 1
    expires_at: AwareDatetime | None = None

    def subject(self) -> str:
        return self.approval_id

    def headline(self) -> Headline:
        return Headline(
            f"待审批：{_RISK_ZH[self.risk_level]}风险操作",
            f"Approval requested: {self.risk_level}-risk action",
        )

    def facts(self) -> list[Fact]:
        return _facts(
            Fact("操作", "Action", self.action_summary),
            Fact("风险等级", "Risk level", f"{_RISK_ZH[self.risk_level]} / {self.risk_level}"),
            Fact("发起人", "Requested by", self.requested_by),
            Fact("部门", "Department", self.department),
            Fact("所需审批人数", "Approvals needed", str(self.required_approvals)),
            Fact("截止时间", "Decide by", self.expires_at),
            Fact("任务", "Run", self.run_id),
        )

    def dashboard_path(self) -> str:
        return f"/approvals/{self.approval_id}"


class ApprovalTimedOut(_Event):
    """Nobody decided in time: the approval counts as rejected and the run took its degradation path."""

    kind: Literal[EventKind.APPROVAL_TIMED_OUT] = EventKind.APPROVAL_TIMED_OUT
    approval_id: str
    run_id: str
    action_summary: str

    def subject(self) -> str:
        return self.approval_id

    def headline(self) -> Headline:
        return Headline(
            "审批超时，操作已按拒绝处理", "Approval timed out; the action was treated as rejected"
        )

    def facts(self) -> list[Fact]:
        return _facts(
            Fact("操作", "Action", self.action_summary),
            Fact("超时时间", "Timed out at", self.occurred_at),
            Fact("任务", "Run", self.run_id),
        )

    def dashboard_path(self) -> str:
        return f"/approvals/{self.approval_id}"


class RunFailed(_Event):
    """A run ended FAILED."""

    kind: Literal[EventKind.RUN_FAILED] = EventKind.RUN_FAILED
    run_id: str
    error: str = Field(description="A sanitized one-line summary of why it failed.")
    template_name: str | None = None
    step: str | None = None

    def subject(self) -> str:
        return self.run_id

    def headline(self) -> Headline:
        return Headline("任务失败", "Run failed")

    def facts(self) -> list[Fact]:
        return _facts(
            Fact("任务", "Run", self.run_id),
            Fact("模板", "Template", self.template_name),
            Fact("失败步骤", "Failed step", self.step),
            Fact("错误", "Error", self.error),
        )

    def dashboard_path(self) -> str:
        return f"/tasks/{self.run_id}"


class CacheHitRateDropped(_Event):
    """The LLM action cache hit rate fell well below its baseline (pages changed, or a cache problem)."""

    kind: Literal[EventKind.CACHE_HIT_RATE_DROP] = EventKind.CACHE_HIT_RATE_DROP
    hit_rate: float = Field(ge=0, le=1)
    baseline_rate: float = Field(ge=0, le=1)
    window: int = Field(gt=0, description="How many recent lookups the hit rate covers.")
    scope: str | None = Field(default=None, description="Template or portal the alert is about, if any.")

    def subject(self) -> str:
        return f"{self.scope or '*'}:{self.occurred_at.isoformat()}"

    def headline(self) -> Headline:
        return Headline("缓存命中率下降", "Cache hit rate dropped")

    def facts(self) -> list[Fact]:
        return _facts(
            Fact("当前命中率", "Hit rate now", f"{self.hit_rate:.1%}"),
            Fact("基线命中率", "Baseline", f"{self.baseline_rate:.1%}"),
            Fact("统计窗口", "Window", f"最近 {self.window} 次 / last {self.window} lookups"),
            Fact("范围", "Scope", self.scope),
        )

    def dashboard_path(self) -> str:
        return "/cost"


class ChannelTest(_Event):
    """A test message an administrator sends to one channel (``finrpa notify test``)."""

    kind: Literal[EventKind.CHANNEL_TEST] = EventKind.CHANNEL_TEST
    channel_name: str

    def subject(self) -> str:
        return f"{self.channel_name}:{self.occurred_at.isoformat()}"

    def headline(self) -> Headline:
        return Headline("FinRPA 测试消息", "FinRPA test message")

    def facts(self) -> list[Fact]:
        return _facts(
            Fact("通道", "Channel", self.channel_name), Fact("发送时间", "Sent at", self.occurred_at)
        )

    def dashboard_path(self) -> str:
        return "/"


NotificationEvent = Annotated[
    NeedsHuman | ApprovalRequested | ApprovalTimedOut | RunFailed | CacheHitRateDropped | ChannelTest,
    Field(discriminator="kind"),
]
_EVENT_ADAPTER: TypeAdapter[NotificationEvent] = TypeAdapter(NotificationEvent)


def parse_event(payload: object) -> NotificationEvent:
    """Rebuild an event from its stored JSON form (the outbox payload)."""
    return _EVENT_ADAPTER.validate_python(payload)


def _facts(*facts: Fact) -> list[Fact]:
    return [fact for fact in facts if fact.value is not None]

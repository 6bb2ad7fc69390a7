"""A scripted stand-in for the LLM that reads what FinRPA sent — the goal and the rendered snapshot — and
answers like a careful operator would, with the real snapshot id and element refs of the page it was shown.

``ScriptedOperator`` is a handler for the scripted LLM server: planning requests get the plan a test gives,
next-action requests go to the rule of the first goal fragment the goal contains. Rules are plain functions
of the :class:`SeenPage`; they may return a deliberately wrong answer to test the refusals.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from finrpa.llm import LLMCallRecord
from tests.fixtures.llm_server import RecordedRequest

_PAGE = re.compile(r'^page ".*" url=(\S+) snapshot=(s[0-9a-f]+)$')
_ELEMENT = re.compile(r'^\[(e\d+)\] (\S+) "([^"]*)"(.*)$')
_VALUE = re.compile(r'value="([^"]*)"')
_FENCE = re.compile(r"^<<<(END_)?UNTRUSTED_DATA (\w+) [0-9a-f]+>>>$")
PLANNER_MARK = "You are FinRPA's planner"
OPERATOR_MARK = "You are FinRPA's browser operator"


@dataclass(frozen=True)
class Element:
    ref: str
    role: str
    name: str
    value: str | None
    line: str


@dataclass
class SeenPage:
    """What the model was shown: the goal, the step's history, and the snapshot's lines."""

    goal: str
    snapshot_id: str
    url: str
    elements: list[Element] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    history: str = ""

    @classmethod
    def of(cls, request: RecordedRequest) -> SeenPage:
        # A retry after an invalid reply ends with the correction prompt; the page is in the first message.
        text = next(text for role, text in request.messages if role == "user")
        goal = next(line.removeprefix("Goal: ") for line in text.splitlines() if line.startswith("Goal: "))
        blocks: dict[str, list[str]] = {}
        current: list[str] | None = None
        for line in text.splitlines():
            fence = _FENCE.match(line)
            if fence is not None:
                current = None if fence.group(1) else blocks.setdefault(fence.group(2), [])
            elif current is not None:
                current.append(line)
        page_lines = blocks.get("page", [])
        header = _PAGE.match(page_lines[0]) if page_lines else None
        assert header is not None, f"no snapshot header in {page_lines[:1]}"
        seen = cls(goal, header.group(2), header.group(1), history="\n".join(blocks.get("history", [])))
        for line in page_lines[1:]:
            element = _ELEMENT.match(line)
            if element is not None:
                value = _VALUE.search(element.group(4))
                seen.elements.append(
                    Element(
                        element.group(1), element.group(2), element.group(3), value.group(1) if value else None, line
                    )
                )
            elif line.startswith("! "):
                seen.dialogs.append(line)
            elif line.startswith("[t"):
                seen.tables.append(line)
        return seen

    def find(self, name: str, role: str | None = None) -> Element | None:
        for element in self.elements:
            if element.name == name and (role is None or element.role == role):
                return element
        return None

    def act(self, action: str, element: Element | None = None, **fields: Any) -> dict[str, Any]:
        answer: dict[str, Any] = {"action": action, "snapshot_id": self.snapshot_id, "reason": fields.pop("reason", "")}
        if element is not None:
            answer["ref"] = element.ref
        answer.update(fields)
        return answer


Rule = Callable[[SeenPage], dict[str, Any]]


class ScriptedOperator:
    """The scripted server's handler: a plan for planning requests, rules for next-action requests."""

    def __init__(self, rules: dict[str, Rule], plan: Callable[[RecordedRequest], dict[str, Any]] | None = None):
        self.rules = rules
        self.plan = plan
        self.seen: list[SeenPage] = []
        self.plans_asked = 0

    def __call__(self, request: RecordedRequest) -> dict[str, Any] | None:
        if PLANNER_MARK in request.system:
            self.plans_asked += 1
            return self.plan(request) if self.plan else None
        if OPERATOR_MARK not in request.system:
            return None
        seen = SeenPage.of(request)
        self.seen.append(seen)
        for fragment, rule in self.rules.items():
            if fragment in seen.goal:
                return rule(seen)
        return seen.act("fail", reason=f"no scripted rule for goal {seen.goal!r}")

    @property
    def decisions(self) -> int:
        return len(self.seen)


class UsageLog:
    """A UsageRecorder that keeps every record (calls and cache hits)."""

    def __init__(self) -> None:
        self.records: list[LLMCallRecord] = []

    async def record(self, record: LLMCallRecord) -> None:
        self.records.append(record)

    def calls(self, prompt_id: str | None = None) -> list[LLMCallRecord]:
        return [r for r in self.records if not r.cached and (prompt_id is None or r.prompt_id == prompt_id)]

    def hits(self, prompt_id: str | None = None) -> list[LLMCallRecord]:
        return [r for r in self.records if r.cached and (prompt_id is None or r.prompt_id == prompt_id)]


def next_page_rule(next_label: str = "下一页") -> Rule:
    """Walk a paged table: click the next-page link while there is one, then say the walk is complete."""

    def rule(seen: SeenPage) -> dict[str, Any]:
        link = seen.find(next_label, "link")
        if link is None:
            return seen.act("complete", reason="no next page")
        return seen.act("click", link, reason="go to the next page")

    return rule

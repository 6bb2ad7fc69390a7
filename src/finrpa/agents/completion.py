"""Completion conditions of free-form subtasks: checked in code where possible, judged by the LLM otherwise.

Element names and table captions match as the skills' resolver matches labels: spacing, case and the synonym table
(``skills/synonyms.yaml``) do not matter, so a condition written for one layout holds on a portal that renames it.

A condition is stored on a SubTask as one readable line (``SubTask.completion_condition``)::

    url_contains: /bank/statement
    text_visible: 付款提交成功
    element_visible: [button] 导出CSV
    element_absent: [link] 下一页
    table_visible: 交易明细
    download
    judged: the statement of the chosen account is shown

Any other text is a ``judged`` condition: only the LLM, looking at a fresh snapshot, can say it holds.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from finrpa.browser import DownloadedFile, PageSnapshot
from finrpa.skills.resolve import normalise, synonyms_of

_LINE = re.compile(r"^\s*([a-z_]+)\s*(?::\s*(.*))?$", re.S)
_ROLE = re.compile(r"^\[([a-z]{1,40})\]\s*(.*)$", re.S)


class CompletionKind(StrEnum):
    URL_CONTAINS = "url_contains"
    TEXT_VISIBLE = "text_visible"
    ELEMENT_VISIBLE = "element_visible"
    ELEMENT_ABSENT = "element_absent"
    TABLE_VISIBLE = "table_visible"
    DOWNLOAD = "download"
    JUDGED = "judged"


class CompletionCondition(BaseModel):
    """When a free-form subtask is done; every kind but ``judged`` is checked in code."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: CompletionKind
    value: str = Field(
        default="",
        max_length=300,
        description="URL fragment, visible text, element name, table caption, or (judged) the condition in words.",
    )
    role: str | None = Field(
        default=None, max_length=40, description="element_visible / element_absent: the element's role, e.g. link."
    )

    @model_validator(mode="after")
    def _value_needed(self) -> CompletionCondition:
        if self.kind is not CompletionKind.DOWNLOAD and not self.value.strip():
            raise ValueError(f"a {self.kind.value} condition needs a value")
        if self.role is not None and self.kind not in (CompletionKind.ELEMENT_VISIBLE, CompletionKind.ELEMENT_ABSENT):
            raise ValueError("role is only for element_visible and element_absent conditions")
        return self

    @property
    def checkable_in_code(self) -> bool:
        return self.kind is not CompletionKind.JUDGED

    def render(self) -> str:
        """The one-line form stored in ``SubTask.completion_condition`` (parsed back by :meth:`parse`)."""
        if self.kind is CompletionKind.DOWNLOAD:
            return "download"
        role = f"[{self.role}] " if self.role else ""
        return f"{self.kind.value}: {role}{self.value}"

    @classmethod
    def parse(cls, text: str) -> CompletionCondition:
        """The condition a stored line describes; text that is not one of the forms is ``judged``."""
        match = _LINE.match(text)
        kinds = {kind.value for kind in CompletionKind}
        if match is None or match.group(1) not in kinds:
            return cls(kind=CompletionKind.JUDGED, value=text.strip() or "the goal is reached")
        kind = CompletionKind(match.group(1))
        rest = (match.group(2) or "").strip()
        role_match = _ROLE.match(rest)
        if role_match and kind in (CompletionKind.ELEMENT_VISIBLE, CompletionKind.ELEMENT_ABSENT):
            return cls(kind=kind, role=role_match.group(1), value=role_match.group(2).strip())
        return cls(kind=kind, value=rest)


FullText = Callable[[], Awaitable[str]]


async def condition_met(
    condition: CompletionCondition,
    snapshot: PageSnapshot,
    *,
    downloads: Sequence[DownloadedFile],
    full_text: FullText,
) -> bool | None:
    """Whether the condition holds on the page now; None when only the LLM can judge it."""
    value = condition.value.strip()
    match condition.kind:
        case CompletionKind.URL_CONTAINS:
            return value in snapshot.url
        case CompletionKind.TEXT_VISIBLE:
            return _text_shown(value, snapshot) or value in await full_text()
        case CompletionKind.ELEMENT_VISIBLE:
            return _element_shown(snapshot, value, condition.role)
        case CompletionKind.ELEMENT_ABSENT:
            return not _element_shown(snapshot, value, condition.role)
        case CompletionKind.TABLE_VISIBLE:
            names = _names(value)
            return any(normalise(t.caption) in names or value in t.caption for t in snapshot.tables)
        case CompletionKind.DOWNLOAD:
            return len(downloads) > 0
        case CompletionKind.JUDGED:
            return None


def _text_shown(value: str, snapshot: PageSnapshot) -> bool:
    places = [snapshot.text, snapshot.title, *(h.text for h in snapshot.headings)]
    places += [d.text for d in snapshot.dialogs] + [t.caption for t in snapshot.tables]
    return any(value in place for place in places)


def _element_shown(snapshot: PageSnapshot, name: str, role: str | None) -> bool:
    names = _names(name)
    return any(
        element.visible
        and not element.disabled
        and (normalise(element.name) in names or normalise(element.label) in names)
        and (role is None or element.role == role)
        for element in snapshot.elements
    )


def _names(value: str) -> frozenset[str]:
    """The name as written and every label of its synonym group (a portal's 下一步 for a template's 提交), as the
    skills' resolver reads them."""
    return frozenset(normalise(label) for label in synonyms_of(value))

"""Browser actions decided for a free-form subtask, between the LLM (or the action cache) and the controller.

A :class:`PlannedAction` names its target by snapshot ref and fingerprint (an LLM decision) or by
fingerprint alone (a cached decision, re-resolved on the live page). Values are never literal: a
:class:`ValueRef` points at one of the subtask's inputs or secrets, and the value itself — a
:class:`~finrpa.browser.SecretText` for secrets — is only looked up when the action is built, right before
it is typed. :class:`StepInputs` is what a subtask may type or choose, read from ``SubTask.inputs``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

from finrpa.agents.plan import SubTask
from finrpa.browser import (
    AcceptDialog,
    Action,
    Check,
    Click,
    DismissDialog,
    Download,
    Extract,
    Fill,
    Fingerprint,
    Navigate,
    Press,
    Scroll,
    SecretText,
    Select,
    Target,
    Uncheck,
)
from finrpa.llm import CachedAction, ElementFingerprint
from finrpa.llm.action_cache import ActionType
from finrpa.runs.repository import NewEvent

BrowserActionKind = Literal[
    "navigate", "click", "fill", "select", "check", "uncheck", "press", "download", "extract", "scroll",
    "accept_dialog", "dismiss_dialog",
]  # fmt: skip
BROWSER_ACTION_KINDS: tuple[str, ...] = (
    "navigate", "click", "fill", "select", "check", "uncheck", "press", "download", "extract", "scroll",
    "accept_dialog", "dismiss_dialog",
)  # fmt: skip
ELEMENT_KINDS = frozenset({"click", "fill", "select", "check", "uncheck", "download"})
VALUE_KINDS = frozenset({"fill", "select", "navigate"})
# Actions a cache entry may hold (extract returns data, which is never cached).
CACHEABLE_KINDS = frozenset(BROWSER_ACTION_KINDS) - {"extract"}
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,63}$")
PLACEHOLDER = re.compile(r"^\{\{\s*(secret:)?([A-Za-z_][A-Za-z0-9_.]{0,63})\s*\}\}$")
KEY_NAME = re.compile(r"^[A-Za-z0-9]+(\+[A-Za-z0-9]+)*$")
DEFAULT_MAX_STEPS = 20
T = TypeVar("T")


@dataclass(frozen=True)
class ValueRef:
    """A value named by its input: ``{{start_date}}`` or ``{{secret:password}}``, or an option label."""

    name: str
    secret: bool = False
    option: str | None = None  # select: one of the element's own options, chosen from the page

    @property
    def placeholder(self) -> str | None:
        if self.option is not None:
            return None
        return "{{secret:" + self.name + "}}" if self.secret else "{{" + self.name + "}}"


@dataclass(frozen=True)
class StepInputs:
    """What a free-form subtask may type or choose, and which action kinds it may use."""

    values: Mapping[str, str] = field(default_factory=dict)
    secrets: Mapping[str, str] = field(default_factory=dict)  # name -> secret:// reference
    allowed_actions: frozenset[str] = frozenset()
    max_steps: int = DEFAULT_MAX_STEPS

    @classmethod
    def of(cls, subtask: SubTask, caller_actions: Collection[str], default_max_steps: int) -> StepInputs:
        """The subtask's inputs; its action kinds are narrowed to what the caller allows."""
        raw = subtask.inputs
        values = {str(k): str(v) for k, v in dict(raw.get("values") or {}).items() if NAME.match(str(k))}
        secrets = {str(k): str(v) for k, v in dict(raw.get("secrets") or {}).items() if NAME.match(str(k))}
        requested = raw.get("allowed_actions")
        kinds = set(caller_actions) if requested is None else set(caller_actions) & {str(k) for k in requested}
        steps = raw.get("max_steps")
        max_steps = int(steps) if isinstance(steps, int) and steps > 0 else default_max_steps
        return cls(values, secrets, frozenset(kinds & set(BROWSER_ACTION_KINDS)), max_steps)

    def reference(self, text: str) -> ValueRef | None:
        """The input a proposed value names: a placeholder, or a literal equal to one input's value."""
        match = PLACEHOLDER.match(text.strip())
        if match is not None:
            name, secret = match.group(2), match.group(1) is not None
            known = name in self.secrets if secret else name in self.values
            return ValueRef(name, secret) if known else None
        for name, value in self.values.items():
            if value == text:
                return ValueRef(name)
        return None

    def placeholders(self) -> list[str]:
        """How the prompt shows the inputs: non-secret values with their placeholder, secrets by name only."""
        lines = [f"{{{{{name}}}}} = {value}" for name, value in self.values.items()]
        lines += [f"{{{{secret:{name}}}}} (a secret; its value is typed for you)" for name in self.secrets]
        return lines


@dataclass(frozen=True)
class PlannedAction:
    """One action about to be taken: from an LLM proposal (with snapshot) or a cache entry (without)."""

    kind: str
    snapshot_id: str | None = None
    ref: str | None = None
    fingerprint: Fingerprint | None = None
    tag: str = ""
    value: ValueRef | None = None
    key: str | None = None
    table_id: str | None = None
    target_type: str | None = None  # the element's type attribute (a submit button submits its form)

    def describe(self) -> str:
        target = f' {self.fingerprint.role} "{self.fingerprint.name}"' if self.fingerprint else ""
        shown = ""
        if self.value is not None:
            shown = f" with {self.value.placeholder or repr(self.value.option)}"
        key = f" {self.key}" if self.key else ""
        return f"{self.kind}{key}{target}{shown}"

    def build(self, value: str | SecretText | None) -> Action:
        """The controller action; ``value`` is the looked-up input (a SecretText for secrets)."""
        common: dict[str, Any] = {"snapshot_id": self.snapshot_id}
        target = self._target() if self.kind in ELEMENT_KINDS or (self.kind == "scroll" and self.fingerprint) else None
        match self.kind:
            case "click":
                return Click(target=_need(target), **common)
            case "fill":
                return Fill(target=_need(target), value=_need(value), sensitive=isinstance(value, SecretText), **common)
            case "select":
                return Select(target=_need(target), option=_plain(value), **common)
            case "check":
                return Check(target=_need(target), **common)
            case "uncheck":
                return Uncheck(target=_need(target), **common)
            case "download":
                return Download(target=_need(target), **common)
            case "press":
                return Press(key=_need(self.key), **common)
            case "navigate":
                return Navigate(url=_plain(value))
            case "extract":
                return Extract(what="table", table_id=self.table_id, **common)
            case "scroll":
                return Scroll(target=target, **common)
            case "accept_dialog":
                return AcceptDialog(**common)
            case "dismiss_dialog":
                return DismissDialog(**common)
        raise ValueError(f"{self.kind} is not a browser action kind")

    def _target(self) -> Target:
        return Target(ref=self.ref, fingerprint=self.fingerprint)

    def to_cached(self) -> CachedAction | None:
        """The action as the cache may keep it (fingerprint, kind, placeholder), or None when it cannot be
        cached: extracted data, an option chosen from the page, or a target told apart only by its row."""
        if self.kind not in CACHEABLE_KINDS:
            return None
        value = self.value.placeholder if self.value is not None else None
        if self.value is not None and value is None:
            return None
        target = None
        if self.fingerprint is not None:
            target = to_cache_fingerprint(self.fingerprint, self.tag)
            if target is None:
                return None
        return CachedAction(action_type=cast(ActionType, self.kind), target=target, value=value, key=self.key)

    @classmethod
    def from_cached(cls, cached: CachedAction) -> PlannedAction:
        """A cached action to replay: no snapshot, so the controller re-resolves the fingerprint live."""
        fingerprint = from_cache_fingerprint(cached.target) if cached.target is not None else None
        value = None
        if cached.value is not None:
            match = PLACEHOLDER.match(cached.value)
            if match is not None:
                value = ValueRef(match.group(2), match.group(1) is not None)
        tag = cached.target.tag if cached.target is not None else ""
        return cls(kind=cached.action_type, fingerprint=fingerprint, tag=tag, value=value, key=cached.key)


@dataclass(frozen=True)
class TypedValue:
    """A value the subtask typed or chose in a field: shown by its input name, the value itself only when it
    is not a secret (a secret is named, never carried)."""

    field: str
    placeholder: str | None
    value: str | None

    def shown(self) -> str:
        return self.value if self.value is not None else (self.placeholder or "")


@dataclass(frozen=True)
class ActionRequest:
    """What the gate reviews before an action acts: the action, where it acts and what was typed before it."""

    subtask: SubTask
    planned: PlannedAction
    url: str
    page_title: str
    dialog_text: str = ""
    dialog_kind: str | None = None
    typed: tuple[TypedValue, ...] = ()
    value: str | None = None  # the plain input value of a navigate/select (never a secret)

    @property
    def target_text(self) -> str:
        fingerprint = self.planned.fingerprint
        if fingerprint is None:
            return self.planned.key or ""
        return " ".join(part for part in (fingerprint.name, fingerprint.label) if part)

    def bound(self, operation: str, host: str) -> dict[str, Any]:
        """Exactly this proposed action, as an approval and the effect ledger bind it: kind, operation, host,
        the element's fingerprint, its value and every value typed before it (secrets by name only)."""
        planned = self.planned
        return {
            "kind": planned.kind,
            "operation": operation,
            "host": host,
            "target": planned.fingerprint.model_dump(mode="json") if planned.fingerprint is not None else None,
            "value": planned.value.placeholder or planned.value.option if planned.value is not None else None,
            "key": planned.key,
            "typed": {item.field: item.shown() for item in self.typed},
            "goal": self.subtask.goal,
        }


@dataclass(frozen=True)
class ActionClearance:
    """The gate's answer. ``proceed``: act (then report with ``settle``); ``done_before``: the effect ledger
    shows this exact action already succeeded in this run (do not act again); otherwise refused for good
    (``code``/``message``; ``needs_human`` when a person must look at the portal first). ``events`` go into
    the run's log with the step; ``ticket`` is the gate's own handle for ``settle``."""

    proceed: bool
    code: str = ""
    message: str = ""
    events: tuple[NewEvent, ...] = ()
    done_before: bool = False
    needs_human: bool = False
    ticket: Any = None


def to_cache_fingerprint(fingerprint: Fingerprint, tag: str = "") -> ElementFingerprint | None:
    """The cache's form of a fingerprint; None for an element told apart by its table row (row text is
    data, which the cache never holds)."""
    if fingerprint.row:
        return None
    return ElementFingerprint(
        role=fingerprint.role[:40],
        name=fingerprint.name[:200],
        label=fingerprint.label[:200],
        container=fingerprint.container[:200],
        tag=tag[:40],
        index=max(fingerprint.index, 0),
        peer_count=max(fingerprint.count, 1),
        frame_path=tuple(fingerprint.frame.split("/")),
    )


def from_cache_fingerprint(cached: ElementFingerprint) -> Fingerprint:
    return Fingerprint(
        role=cached.role,
        name=cached.name,
        label=cached.label,
        container=cached.container,
        index=cached.index,
        count=cached.peer_count,
        frame="/".join(cached.frame_path) or "main",
    )


def _need(value: T | None) -> T:
    if value is None:
        raise ValueError("the action is missing a target, value or key that validation should have required")
    return value


def _plain(value: str | SecretText | None) -> str:
    if isinstance(value, SecretText) or value is None:
        raise ValueError("select and navigate take a plain input value, never a secret")
    return value

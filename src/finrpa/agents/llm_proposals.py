"""The LLM's answer for one step of a free-form subtask, and the code that decides whether it may be acted on.

The model proposes exactly one :class:`ProposedAction` naming the snapshot it looked at and an element ref
from it. :func:`validate_proposal` accepts it only when the snapshot is the current one, the ref exists and
fits the action (a link cannot be filled, a button cannot be selected), the action kind is allowed for
this subtask, and every value comes from the subtask's inputs (``{{name}}``), its secrets
(``{{secret:name}}``, typed by FinRPA, never seen by the model) or — for a select — the element's own
options. Anything else raises :class:`ProposalRefused` with a sentence the model reads on its next try.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from finrpa.agents.llm_actions import ELEMENT_KINDS, KEY_NAME, BrowserActionKind, PlannedAction, StepInputs, ValueRef
from finrpa.browser import ElementInfo, PageSnapshot
from finrpa.exceptions import ValidationFailedError

_REF = re.compile(r"^e\d{1,5}$")
_TABLE = re.compile(r"^t\d{1,4}$")
_FILLABLE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
_FILLABLE_TAGS = frozenset({"input", "textarea"})
_CHECKABLE_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})


class ProposedAction(BaseModel):
    """One next action, as the LLM must answer (see the ``agents.next_action`` prompt)."""

    model_config = ConfigDict(extra="forbid")

    action: BrowserActionKind | Literal["complete", "fail"] = Field(
        description="The action to take; complete when the goal is reached, fail when it cannot be."
    )
    snapshot_id: str = Field(description="The snapshot=… id of the page the action was chosen from.")
    ref: str | None = Field(default=None, description="Element actions: the [eN] ref of the element to act on.")
    value: str | None = Field(
        default=None,
        max_length=500,
        description="fill/select/navigate: an input placeholder such as {{start_date}} or {{secret:password}}, "
        "or an input's exact value; a select may also name one of the element's listed options.",
    )
    key: str | None = Field(default=None, max_length=40, description="press: a key name such as Enter or Escape.")
    table: str | None = Field(default=None, description="extract: the [tN] id of the table.")
    reason: str = Field(default="", max_length=500, description="One sentence: why this action.")


class ProposalRefused(ValidationFailedError):
    """The proposal cannot be acted on; the message says why, for the model's next attempt."""

    code = "llm_action_refused"


def validate_proposal(proposal: ProposedAction, snapshot: PageSnapshot, inputs: StepInputs) -> PlannedAction:
    """The planned action for an acceptable proposal, or ProposalRefused (nothing is acted on)."""
    kind = proposal.action
    if kind in ("complete", "fail"):
        raise ValueError("complete and fail are outcomes, not actions; handle them before validating")
    if kind not in inputs.allowed_actions:
        allowed = ", ".join(sorted(inputs.allowed_actions)) or "none"
        raise ProposalRefused(f"The action {kind!r} is not allowed in this step (allowed: {allowed}).")
    if proposal.snapshot_id != snapshot.snapshot_id:
        raise ProposalRefused(
            f"The action names snapshot {proposal.snapshot_id!r}, but the page now is snapshot "
            f"{snapshot.snapshot_id}; choose from the current snapshot."
        )
    element = _element(proposal, snapshot) if kind in ELEMENT_KINDS else None
    planned = PlannedAction(
        kind=kind,
        snapshot_id=snapshot.snapshot_id if kind != "navigate" else None,
        ref=element.ref if element else None,
        fingerprint=element.fingerprint if element else None,
        tag=element.tag if element else "",
        value=_value(proposal, element, inputs) if kind in ("fill", "select", "navigate") else None,
        key=_key(proposal) if kind == "press" else None,
        table_id=_table(proposal, snapshot) if kind == "extract" else None,
        target_type=element.type if element else None,
    )
    _fits(kind, element)
    return planned


def _element(proposal: ProposedAction, snapshot: PageSnapshot) -> ElementInfo:
    ref = (proposal.ref or "").strip().strip("[]")
    if not _REF.match(ref):
        raise ProposalRefused(f"A {proposal.action} needs the [eN] ref of an element from the snapshot.")
    element = snapshot.element(ref)
    if element is None:
        raise ProposalRefused(f"Snapshot {snapshot.snapshot_id} has no element {ref!r}; pick a ref it lists.")
    if not element.visible and element.role not in _CHECKABLE_ROLES:
        raise ProposalRefused(f'Element {ref} ({element.role} "{element.name}") is not visible.')
    return element


def _fits(kind: str, element: ElementInfo | None) -> None:
    """Refuse an action that cannot apply to the element it names."""
    if element is None:
        return
    what = f'{element.ref} ({element.role} "{element.name}")'
    if element.disabled:
        raise ProposalRefused(f"Element {what} is disabled; do what enables it first.")
    if kind == "fill" and not (element.role in _FILLABLE_ROLES or element.tag in _FILLABLE_TAGS):
        raise ProposalRefused(f"Element {what} is not a text field; only text fields can be filled.")
    if kind == "fill" and element.options is not None and element.tag == "select":
        raise ProposalRefused(f"Element {what} is a drop-down list; use select.")
    if kind == "select" and element.options is None:
        raise ProposalRefused(f"Element {what} has no options to select; use click or fill.")
    if kind in ("check", "uncheck") and element.checked is None and element.role not in _CHECKABLE_ROLES:
        raise ProposalRefused(f"Element {what} is not a checkbox or radio button.")


def _value(proposal: ProposedAction, element: ElementInfo | None, inputs: StepInputs) -> ValueRef:
    text = (proposal.value or "").strip()
    if not text:
        raise ProposalRefused(f"A {proposal.action} needs a value: one of this step's input placeholders.")
    reference = inputs.reference(text)
    if reference is None and proposal.action == "select" and element is not None and element.options:
        if text in element.options:
            return ValueRef(name="", option=text)
    if reference is None:
        shown = ", ".join(inputs.placeholders()) or "none"
        raise ProposalRefused(
            f"The value {text[:80]!r} is not one of this step's inputs ({shown}); values come only from them."
        )
    if reference.secret and proposal.action != "fill":
        raise ProposalRefused("A secret can only be typed into a field (fill); it is never selected or visited.")
    if element is not None and element.sensitive and not reference.secret and proposal.action == "fill":
        raise ProposalRefused(f"Element {element.ref} is a sensitive field; it takes a {{{{secret:…}}}} placeholder.")
    if proposal.action == "navigate" and not inputs.values[reference.name].startswith(("http://", "https://")):
        raise ProposalRefused(f"The input {reference.name!r} is not a web address to navigate to.")
    return reference


def _key(proposal: ProposedAction) -> str:
    key = (proposal.key or "").strip()
    if not KEY_NAME.match(key):
        raise ProposalRefused("A press needs a key name such as Enter, Escape or Tab.")
    return key


def _table(proposal: ProposedAction, snapshot: PageSnapshot) -> str:
    table = (proposal.table or "").strip().strip("[]")
    if not _TABLE.match(table) or not any(t.table_id == table for t in snapshot.tables):
        raise ProposalRefused(f"Snapshot {snapshot.snapshot_id} has no table {table!r}; pick a [tN] it lists.")
    return table

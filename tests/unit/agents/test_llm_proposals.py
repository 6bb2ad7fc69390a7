"""What the LLM proposes is acted on only when code accepts it: current snapshot, known ref, fitting element,
allowed kind, values only from the step's inputs (secrets as placeholders)."""

from __future__ import annotations

from typing import Any

import pytest

from finrpa.agents.llm_actions import PlannedAction, StepInputs
from finrpa.agents.llm_proposals import ProposalRefused, ProposedAction, validate_proposal
from finrpa.browser import Fill, PageSnapshot, SecretText, Select
from finrpa.browser.snapshot import ElementInfo, Fingerprint


def element(ref: str, role: str, name: str, tag: str, **extra: Any) -> ElementInfo:
    fingerprint = Fingerprint(role=role, name=name, container="账户明细查询")
    return ElementInfo(ref=ref, role=role, name=name, tag=tag, bbox=(0, 0, 10, 10), fingerprint=fingerprint, **extra)


SNAPSHOT = PageSnapshot(
    snapshot_id="s42", tab_id="t1", navigation_id="d.1", epoch=0, url="https://bank.example/bank/statement",
    title="网银", frames=[],
    elements=[
        element("e1", "link", "安全退出", "a"),
        element("e2", "textbox", "开始日期", "input"),
        element("e3", "combobox", "账号", "select", options=["1001 CNY 基本存款账户", "2002 CNY 一般存款账户"]),
        element("e4", "textbox", "密码", "input", type="password", sensitive=True),
        element("e5", "button", "查询", "button", disabled=True),
    ],
)  # fmt: skip
INPUTS = StepInputs(
    values={"start_date": "2024-01-01", "account": "2002", "portal": "https://bank.example/"},
    secrets={"password": "secret://bank"},
    allowed_actions=frozenset({"click", "fill", "select", "navigate"}),
)


def propose(**fields: Any) -> ProposedAction:
    return ProposedAction(**{"snapshot_id": "s42", **fields})


@pytest.mark.parametrize(
    ("proposal", "why"),
    [
        (propose(action="fill", ref="e2", value="{{start_date}}", snapshot_id="s41"), "now is snapshot s42"),
        (propose(action="fill", ref="e999", value="{{start_date}}"), "no element 'e999'"),
        (propose(action="fill", ref="安全退出", value="{{start_date}}"), "needs the [eN] ref"),
        (propose(action="fill", ref="e1", value="{{start_date}}"), "not a text field"),
        (propose(action="fill", ref="e2", value="2024-02-30"), "not one of this step's inputs"),
        (propose(action="fill", ref="e2", value="{{end_date}}"), "not one of this step's inputs"),
        (propose(action="fill", ref="e4", value="{{start_date}}"), "sensitive field"),
        (propose(action="select", ref="e3", value="{{secret:password}}"), "only be typed into a field"),
        (propose(action="select", ref="e2", value="{{account}}"), "no options"),
        (propose(action="click", ref="e5"), "disabled"),
        (propose(action="download", ref="e1"), "not allowed in this step"),
        (propose(action="navigate", value="{{start_date}}"), "not a web address"),
    ],
)
def test_proposals_code_does_not_accept_are_refused_with_a_reason(proposal: ProposedAction, why: str) -> None:
    with pytest.raises(ProposalRefused, match=why.replace("[", r"\[").replace("]", r"\]")):
        validate_proposal(proposal, SNAPSHOT, INPUTS)


def test_a_literal_equal_to_an_input_becomes_its_placeholder() -> None:
    planned = validate_proposal(propose(action="fill", ref="e2", value="2024-01-01"), SNAPSHOT, INPUTS)
    assert planned.value is not None and planned.value.placeholder == "{{start_date}}"
    cached = planned.to_cached()
    assert cached is not None and cached.value == "{{start_date}}" and cached.target is not None
    assert cached.target.name == "开始日期" and cached.target.container == "账户明细查询"


def test_a_secret_is_typed_from_its_placeholder_and_masked() -> None:
    planned = validate_proposal(propose(action="fill", ref="e4", value="{{secret:password}}"), SNAPSHOT, INPUTS)
    action = planned.build(SecretText("s3cret-value"))
    assert isinstance(action, Fill) and action.sensitive and action.snapshot_id == "s42"
    assert "s3cret-value" not in repr(action) and "s3cret-value" not in planned.describe()


def test_an_option_chosen_from_the_page_is_acted_on_but_never_cached() -> None:
    planned = validate_proposal(propose(action="select", ref="e3", value="2002 CNY 一般存款账户"), SNAPSHOT, INPUTS)
    action = planned.build("2002 CNY 一般存款账户")
    assert isinstance(action, Select) and action.option == "2002 CNY 一般存款账户"
    assert planned.to_cached() is None


def test_complete_and_fail_are_outcomes_not_actions() -> None:
    with pytest.raises(ValueError, match="outcomes"):
        validate_proposal(propose(action="complete"), SNAPSHOT, INPUTS)


def test_a_cached_action_replays_by_fingerprint_without_a_snapshot() -> None:
    planned = validate_proposal(propose(action="fill", ref="e2", value="{{start_date}}"), SNAPSHOT, INPUTS)
    cached = planned.to_cached()
    assert cached is not None
    replay = PlannedAction.from_cached(cached)
    action = replay.build("2024-01-01")
    assert isinstance(action, Fill) and action.snapshot_id is None and action.target.ref is None
    assert action.target.fingerprint == SNAPSHOT.elements[1].fingerprint

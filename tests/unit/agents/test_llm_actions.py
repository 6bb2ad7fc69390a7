"""Step inputs and cacheability of planned actions: the caller's action kinds bound the step's, row-bound
targets and extracted data never reach the cache."""

from __future__ import annotations

from finrpa.agents.llm_actions import PlannedAction, StepInputs, ValueRef, from_cache_fingerprint, to_cache_fingerprint
from finrpa.agents.plan import SubTask
from finrpa.browser import Fingerprint


def test_a_step_never_gets_more_action_kinds_than_the_caller_allows() -> None:
    subtask = SubTask(subtask_id="s", index=0, goal="g", inputs={
        "allowed_actions": ["click", "navigate", "launch_missiles"], "values": {"a": 1, "bad name": "x"},
        "max_steps": 7})  # fmt: skip
    inputs = StepInputs.of(subtask, ["click", "fill"], default_max_steps=20)
    assert inputs.allowed_actions == {"click"} and inputs.values == {"a": "1"} and inputs.max_steps == 7
    unrestricted = StepInputs.of(SubTask(subtask_id="s", index=0, goal="g"), ["click", "fill"], 20)
    assert unrestricted.allowed_actions == {"click", "fill"} and unrestricted.max_steps == 20


def test_placeholders_resolve_only_to_known_inputs() -> None:
    inputs = StepInputs(values={"start_date": "2024-01-01"}, secrets={"pwd": "secret://bank"})
    assert inputs.reference("{{ start_date }}") == ValueRef("start_date")
    assert inputs.reference("{{secret:pwd}}") == ValueRef("pwd", secret=True)
    assert inputs.reference("{{secret:start_date}}") is None and inputs.reference("{{pwd}}") is None
    assert inputs.reference("2024-01-01") == ValueRef("start_date")
    assert "{{secret:pwd}}" in "\n".join(inputs.placeholders()) and "secret://bank" not in str(inputs.placeholders())


def test_fingerprints_round_trip_through_the_cache_form_except_row_bound_ones() -> None:
    framed = Fingerprint(role="button", name="查询", label="", container="检索条件", index=1, count=2, frame="main/0")
    cached = to_cache_fingerprint(framed, "button")
    assert cached is not None and cached.frame_path == ("main", "0") and cached.peer_count == 2
    assert from_cache_fingerprint(cached) == framed
    in_a_row = Fingerprint(role="link", name="明细", row="1001020309000123456 | 上海沙箱科技有限公司")
    assert to_cache_fingerprint(in_a_row) is None
    assert PlannedAction(kind="click", fingerprint=in_a_row).to_cached() is None
    assert PlannedAction(kind="extract", table_id="t1").to_cached() is None
    press = PlannedAction(kind="press", key="Escape").to_cached()
    assert press is not None and press.key == "Escape" and press.target is None

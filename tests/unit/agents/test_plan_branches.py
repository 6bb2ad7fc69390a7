"""An LLM plan's branches: the planner's answer carries depends_on, the compiled plan must be a DAG (an unknown
step or a cycle is named in a sentence), and each branch keeps its browser lane even when a replan drops a
sibling that came before it."""

from __future__ import annotations

from functools import partial

from finrpa.agents.plan import SkillCall, SubTask, TaskPlan, dependency_problems, stable_subtask_id
from finrpa.agents.plan_proposal import PlanningContext, PlanningScope, PlanProposal, compile_proposal
from finrpa.runs.lanes import LANE_INPUT, MAIN_LANE, browser_lanes, pin_lanes


def step(subtask_id: str, index: int, *depends_on: str) -> SubTask:
    call = SkillCall(skill="X")
    return SubTask(
        subtask_id=subtask_id,
        index=index,
        goal=subtask_id,
        depends_on=list(depends_on),
        inputs={"step_id": subtask_id},
        skill_call=call,
    )


def three_branches() -> TaskPlan:
    return TaskPlan(
        navigation_goal="three accounts",
        subtasks=[
            step("login", 0),
            *(step(f"q{n}", 1 + n, "login") for n in range(3)),
            *(step(f"d{n}", 4 + n, f"q{n}") for n in range(3)),
            step("merge", 7, "d0", "d1", "d2"),
        ],
    )


def test_the_planners_answer_carries_depends_on_and_branches_compile_independent() -> None:
    schema = PlanProposal.model_json_schema()
    assert "depends_on" in schema["$defs"]["PlannedStep"]["properties"]
    download = {"skill": "CsvMergeSkill", "params": {"inputs": ["a.csv"], "output_path": "x.csv"}}
    proposal = PlanProposal.model_validate(
        {
            "steps": [
                {"step_id": "a", "goal": "a", **download},
                {"step_id": "b", "goal": "b", "depends_on": [], **download},
                {"step_id": "merge", "goal": "merge", "depends_on": ["a", "b"], **download},
            ]
        }
    )
    scope = PlanningScope.of({"CsvMergeSkill"}, set(), PlanningContext())
    subtasks, problems = compile_proposal(proposal, scope, subtask_id=partial(stable_subtask_id, "k"))
    assert problems == []
    a, b, merge = subtasks
    assert a.depends_on == [] and b.depends_on == [] and merge.depends_on == [a.subtask_id, b.subtask_id]
    assert dependency_problems(subtasks) == []


def test_an_unknown_step_a_self_dependency_and_a_cycle_are_each_named() -> None:
    unknown = [step("a", 0, "ghost")]
    assert dependency_problems(unknown) == ["Step 'a' depends on 'ghost', which is no step of this plan."]
    assert dependency_problems([step("a", 0, "a")]) == ["Step 'a' depends on itself; a step can only follow others."]
    cycle = [step("login", 0), step("a", 1, "login", "c"), step("b", 2, "a"), step("c", 3, "b")]
    [problem] = dependency_problems(cycle)
    assert problem.startswith("Steps ") and "cycle" in problem
    assert all(f"'{name}'" in problem for name in ("a", "b", "c")) and "'login'" not in problem
    assert dependency_problems(three_branches().subtasks) == []


def test_pinned_lanes_survive_a_replan_that_drops_the_first_branch() -> None:
    pinned = pin_lanes(three_branches())
    lanes = {s.subtask_id: s.inputs[LANE_INPUT] for s in pinned.subtasks}
    assert lanes == browser_lanes(three_branches()), "pinning records the lanes the plan gives"
    assert lanes["q0"] == lanes["d0"] == MAIN_LANE and len({lanes["q0"], lanes["q1"], lanes["q2"]}) == 3

    # q0 failed and was replanned: the replan keeps login, q1, q2 and plans q0 again plus the downloads.
    kept = [s for s in pinned.subtasks if s.subtask_id in ("login", "q1", "q2")]
    new = [step("q0b", 8, "login"), *(step(f"d{n}b", 9 + n, f"q{n}" if n else "q0b") for n in range(3))]
    replanned = TaskPlan(navigation_goal="three accounts", subtasks=[*kept, *new])
    after = browser_lanes(replanned)
    assert after["q1"] == lanes["q1"] and after["q2"] == lanes["q2"], "completed branches keep their lanes"
    assert after["d1b"] == lanes["q1"] and after["d2b"] == lanes["q2"], "their downloads continue in them"
    assert after["q0b"] == after["d0b"] == MAIN_LANE, "the failed branch is redone in the lane it failed in"

    unpinned = TaskPlan(navigation_goal="x", subtasks=[s for s in three_branches().subtasks if s.subtask_id != "q0"])
    assert browser_lanes(unpinned)["q1"] == MAIN_LANE, "without pins the next sibling would take the lane over"
    assert pin_lanes(pin_lanes(replanned)) == pin_lanes(replanned), "pins are kept as they are"

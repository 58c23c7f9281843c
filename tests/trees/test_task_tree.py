"""TaskTree recovery paths, driven by scripted in-process leaves and a scripted planner.

Every path the issue names: retry, recover, replan with the failure shown to
the planner, replan budget, abort kinds, planner errors, refused plans,
skipping steps whose effects hold, and preemption.
"""

from __future__ import annotations

import time

import pytest
from py_trees.common import Status

from bt_executive.llm.plan import Plan, PlannerError
from bt_executive.skills.call import SkillCall
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import GripperState, ObjectState, WorldState
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.recovery import load_recovery_policy
from bt_executive.trees.task_tree import TaskTree
from tests.trees.scripted_leaves import ScriptedLeafFactory, labels

TASK = "put the red cube on the plate"
PICK = SkillCall(skill="tabletop/pick", args={"object": "red_cube"})
PICK_GREEN = SkillCall(skill="tabletop/pick", args={"object": "green_cube"})
PLACE = SkillCall(skill="tabletop/place_on", args={"target": "plate"})
HOME = SkillCall(skill="tabletop/home", args={})
POUR = SkillCall(skill="tabletop/pour", args={"source": "red_cube", "target": "bowl"})


def plan(*steps: SkillCall) -> Plan:
    return Plan(steps=steps, planner="scripted")


def run(tree: TaskTree, max_ticks: int = 500) -> TaskTree:
    """Tick until the task ends (bounded), quickly."""
    for _ in range(max_ticks):
        tree.tick_once()
        if tree.final_reason is not None:
            return tree
        time.sleep(0.001)
    raise AssertionError(f"task still running after {max_ticks} ticks")


def make_tree(
    registry: SkillRegistry,
    leaves: ScriptedLeafFactory,
    planner: ScriptedPlanner,
    **kwargs: object,
) -> TaskTree:
    return TaskTree(
        TASK,
        planner=planner,
        registry=registry,
        leaf_factory=leaves,
        policy=load_recovery_policy(),
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def leaves() -> ScriptedLeafFactory:
    return ScriptedLeafFactory()


def test_a_plan_that_succeeds_ends_done_with_every_step_run_once(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    tree = run(make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)])))
    assert (tree.final_reason, labels(leaves.started)) == ("done", ["pick(red_cube)", "place_on(plate)"])


def test_missed_grasp_is_retried_then_succeeds(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    leaves.script("tabletop/pick", FailureKind.MISSED_GRASP, None)
    tree = run(make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)])))
    outcome = tree.outcome()
    assert (outcome.final_reason, outcome.retries, outcome.replans, labels(leaves.started)) == (
        "done",
        1,
        0,
        ["pick(red_cube)", "pick(red_cube)", "place_on(plate)"],
    )


def test_retries_are_bounded_by_the_manifest_then_the_step_replans(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    # pick's manifest says missed_grasp: retry(2): three attempts, then after_retries (replan).
    leaves.script("tabletop/pick", *[FailureKind.MISSED_GRASP] * 3)
    planner = ScriptedPlanner([plan(PICK, PLACE), plan(PICK, PLACE)])
    tree = run(make_tree(skill_registry, leaves, planner))
    assert (tree.final_reason, tree.outcome().retries, len(planner.requests)) == ("done", 2, 2)


def test_not_found_replans_and_the_planner_sees_the_failure(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    leaves.script("tabletop/pick", FailureKind.NOT_FOUND)
    planner = ScriptedPlanner([plan(PICK, PLACE), plan(PICK_GREEN, PLACE)])
    tree = run(make_tree(skill_registry, leaves, planner))
    [seen] = planner.requests[1].attempts
    assert (tree.final_reason, seen.call, seen.result.failure_kind, labels(leaves.succeeded)) == (
        "done",
        PICK,
        FailureKind.NOT_FOUND,
        ["pick(green_cube)", "place_on(plate)"],
    )


def test_a_replan_cuts_the_old_plans_remaining_steps(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    leaves.script("tabletop/pick", FailureKind.NOT_FOUND)
    planner = ScriptedPlanner([plan(PICK, PLACE), plan(PICK_GREEN, PLACE)])
    tree = run(make_tree(skill_registry, leaves, planner))
    names = [child.name for child in tree.root.children]
    assert names == ["Plan task", "Plan #0 (replaced after step 1)", "Plan #1"]
    assert [c.name for c in tree.root.children[1].children] == ["Step 1 · pick(red_cube)"]


def test_repeated_failure_ends_replan_exhausted(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    leaves.script("tabletop/pick", *[FailureKind.NOT_FOUND] * 5)
    planner = ScriptedPlanner([plan(PICK, PLACE)] * 5)
    tree = run(make_tree(skill_registry, leaves, planner, max_replans=2))
    assert (tree.final_reason, tree.outcome().replans, len(planner.requests)) == ("replan_exhausted", 2, 3)


@pytest.mark.parametrize("kind", [FailureKind.ABORTED, FailureKind.PREEMPTED])
def test_abort_kinds_end_the_task_aborted_with_the_kind(
    kind: FailureKind, skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    leaves.script("tabletop/pick", kind)
    planner = ScriptedPlanner([plan(PICK, PLACE)])
    tree = run(make_tree(skill_registry, leaves, planner))
    assert (tree.final_reason, len(planner.requests)) == (f"aborted:{kind.value}", 1)


def test_collision_runs_the_home_recovery_then_the_step_again(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    leaves.script("tabletop/pick", FailureKind.COLLISION)
    tree = run(make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)])))
    assert (tree.final_reason, labels(leaves.started)) == (
        "done",
        ["pick(red_cube)", "home()", "pick(red_cube)", "place_on(plate)"],
    )


def test_a_planner_exception_ends_planner_error_with_its_message(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    tree = run(make_tree(skill_registry, leaves, ScriptedPlanner([PlannerError("model unreachable")])))
    assert (tree.final_reason, tree.outcome().detail) == ("planner_error", "model unreachable")


def test_the_tick_returns_while_the_planner_thinks(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK)], delay_s=0.3))
    started = time.monotonic()
    tree.tick_once()
    tree.tick_once()
    assert (tree.status, time.monotonic() - started < 0.1) == (Status.RUNNING, True)
    tree.cancel()


def world(holding: str | None = None, on_plate: str | None = None) -> WorldState:
    objects = [
        ObjectState(id=i, category="cube", position=(0.4, 0.0, 0.02), supported_by="plate" if i == on_plate else None)
        for i in ("red_cube", "green_cube")
        if i != holding
    ]
    objects.append(ObjectState(id="plate", category="plate", position=(0.4, 0.2, 0.0)))
    objects.append(ObjectState(id="bowl", category="bowl", position=(0.4, -0.2, 0.0)))
    if holding:
        objects.append(ObjectState(id=holding, category="cube", position=(0.3, 0.0, 0.3)))
    return WorldState(objects=tuple(objects), gripper=GripperState(holding=holding))


def test_a_plan_whose_step_needs_an_unmet_precondition_is_refused_before_anything_moves(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    from bt_executive.trees.plan_check import PlanRefused

    with pytest.raises(PlanRefused, match=r"step 2 tabletop/pour: precondition holding\(red_cube\)"):
        make_tree(skill_registry, leaves, ScriptedPlanner([]), plan=plan(HOME, POUR), world=lambda: world())
    assert leaves.started == []


def test_a_refused_plan_goes_back_to_the_planner_with_the_problem(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    planner = ScriptedPlanner([plan(HOME, POUR), plan(PICK, POUR)])
    current = world()
    tree = run(make_tree(skill_registry, leaves, planner, world=lambda: current))
    [refusal] = planner.requests[1].attempts
    assert "step 2 tabletop/pour: precondition holding(red_cube)" in refusal.result.detail
    assert labels(leaves.started)[:1] == ["pick(red_cube)"]
    tree.cancel()


def test_a_step_whose_effect_already_holds_is_skipped(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    current = world(holding="red_cube")
    tree = run(make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)]), world=lambda: current))
    assert (tree.final_reason, labels(leaves.started)) == ("done", ["place_on(plate)"])


def test_an_unmet_precondition_at_run_time_fails_the_step_as_precondition_failed(
    skill_registry: SkillRegistry, leaves: ScriptedLeafFactory, clean_blackboard: None
) -> None:
    current = world()
    planner = ScriptedPlanner([plan(PICK, PLACE)])
    tree = run(make_tree(skill_registry, leaves, planner, world=lambda: current, max_replans=0))
    last = tree.outcome().attempts[-1]
    assert (last.step, last.result.failure_kind, last.result.reason) == (
        2,
        FailureKind.PRECONDITION_FAILED,
        "precondition not gripper_empty does not hold",
    )


def test_cancel_halts_the_running_leaf_and_ends_preempted(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    leaves = ScriptedLeafFactory(ticks=10_000)
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)]))
    for _ in range(20):
        tree.tick_once()
        time.sleep(0.001)
    tree.cancel("a new task")
    assert (tree.final_reason, labels(leaves.halted), tree.status) == ("preempted", ["pick(red_cube)"], Status.INVALID)

"""A task ends done only when its goal holds in the world; refusals end planner_refused, before anything moves.

Driven by scripted leaves that change a small symbolic world as a real robot
would (pick holds the object, place_on sets it on the target), so the goal
check, the replan on "goal not met" and place_on's run-time effect are tested
against world states, not against flags.
"""

from __future__ import annotations

import time

import pytest

from bt_executive.llm.plan import Plan, PlannerRefused, RefusalKind
from bt_executive.skills.call import SkillCall
from bt_executive.skills.dirs import default_skill_dirs
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
PICK_TABLE = SkillCall(skill="tabletop/pick", args={"object": "table"})
PLACE = SkillCall(skill="tabletop/place_on", args={"target": "plate"})
GOAL = ("on(red_cube, plate)",)


class WorldLeaves(ScriptedLeafFactory):
    """Scripted leaves whose successes move a symbolic world: pick holds, place_on sets down (or drops)."""

    def __init__(self) -> None:
        super().__init__()
        self.holding: str | None = None
        self.support = {"red_cube": "table", "green_cube": "table"}
        self.drops = 0  # how many of the next place_on successes leave the object on the table instead

    def on_success(self, call: SkillCall) -> None:
        super().on_success(call)
        if call.skill == "tabletop/pick":
            self.holding = str(call.args["object"])
        elif call.skill == "tabletop/place_on" and self.holding is not None:
            target = "table" if self.drops > 0 else str(call.args["target"])
            self.drops = max(0, self.drops - 1)
            self.support[self.holding] = target
            self.holding = None

    def world(self) -> WorldState:
        objects = [
            ObjectState(id=i, category="cube", position=(0.4, 0.0, 0.02), supported_by=s)
            for i, s in self.support.items()
            if i != self.holding
        ]
        if self.holding is not None:
            objects.append(ObjectState(id=self.holding, category="cube", position=(0.3, 0.0, 0.3)))
        objects.append(ObjectState(id="plate", category="plate", position=(0.4, 0.2, 0.0), supported_by="table"))
        objects.append(ObjectState(id="table", category="table", position=(0.45, 0.0, 0.0)))
        return WorldState(objects=tuple(objects), gripper=GripperState(holding=self.holding))


def plan(*steps: SkillCall, goal: tuple[str, ...] = GOAL) -> Plan:
    return Plan(steps=steps, goal=goal, planner="scripted")


def run(leaves: WorldLeaves, planner: ScriptedPlanner, max_replans: int | None = None) -> TaskTree:
    tree = TaskTree(
        TASK,
        planner=planner,
        registry=SkillRegistry.discover(default_skill_dirs()),
        leaf_factory=leaves,
        policy=load_recovery_policy(),
        world=leaves.world,
        max_replans=max_replans,
    )
    for _ in range(1000):
        tree.tick_once()
        if tree.final_reason is not None:
            return tree
        time.sleep(0.001)
    raise AssertionError("task still running after 1000 ticks")


@pytest.fixture
def leaves(clean_blackboard: None) -> WorldLeaves:
    return WorldLeaves()


def test_a_task_whose_goal_holds_after_the_last_step_ends_done_with_the_goal_checked(leaves: WorldLeaves) -> None:
    outcome = run(leaves, ScriptedPlanner([plan(PICK, PLACE)])).outcome()
    assert (outcome.final_reason, outcome.goal, outcome.goal_held) == ("done", GOAL, True)


def test_a_goal_not_met_replans_with_the_reason_then_ends_done(leaves: WorldLeaves) -> None:
    leaves.drops = 1  # the first place_on "succeeds" but the cube ends on the table
    planner = ScriptedPlanner([plan(PICK, PLACE), plan(PICK, PLACE)])
    outcome = run(leaves, planner).outcome()
    seen = planner.requests[1].attempts[-1].result
    assert (outcome.final_reason, outcome.replans, seen.reason) == ("done", 1, "goal_not_met")
    assert "on(red_cube, plate) does not hold" in (seen.detail or "")
    assert labels(leaves.succeeded) == ["pick(red_cube)", "place_on(plate)", "pick(red_cube)", "place_on(plate)"]


def test_a_goal_never_met_ends_replan_exhausted_naming_the_goal(leaves: WorldLeaves) -> None:
    leaves.drops = 5
    outcome = run(leaves, ScriptedPlanner([plan(PICK, PLACE)] * 3), max_replans=1).outcome()
    assert (outcome.final_reason, outcome.goal_held) == ("replan_exhausted", False)
    assert "goal not met (on(red_cube, plate) does not hold)" in outcome.detail


def test_an_empty_plan_whose_goal_does_not_hold_is_not_done(leaves: WorldLeaves) -> None:
    planner = ScriptedPlanner([plan(), plan(PICK, PLACE)])
    outcome = run(leaves, planner).outcome()
    assert "its goal on(red_cube, plate) does not hold" in (planner.requests[1].attempts[-1].result.detail or "")
    assert (outcome.final_reason, labels(leaves.succeeded)) == ("done", ["pick(red_cube)", "place_on(plate)"])


def test_place_on_is_skipped_when_the_object_it_held_already_rests_on_the_target(leaves: WorldLeaves) -> None:
    # pick(green_cube) fails not_found after the red cube was placed: the replan repeats place_on(plate),
    # whose run-time effect on(held, plate), held = red_cube (last held), already holds: skipped.
    leaves.script("tabletop/pick", None, FailureKind.NOT_FOUND)
    planner = ScriptedPlanner([plan(PICK, PLACE, PICK_GREEN), plan(PLACE)])
    tree = run(leaves, planner)
    assert (tree.final_reason, labels(leaves.started).count("place_on(plate)")) == ("done", 1)
    assert any(e.kind == "step_skipped" and e.plan == 1 for e in tree.context.events)


def test_a_planner_refusal_ends_planner_refused_with_its_reason_and_nothing_moves(leaves: WorldLeaves) -> None:
    refusal = PlannerRefused("no purple cube here", RefusalKind.NO_SUCH_OBJECT, candidates=["red_cube"])
    outcome = run(leaves, ScriptedPlanner([refusal])).outcome()
    assert (outcome.final_reason, outcome.detail, leaves.started) == (
        "planner_refused",
        "no_such_object: no purple cube here",
        [],
    )


def test_a_plan_asking_for_an_unafforded_step_is_repaired_then_refused_before_anything_moves(
    leaves: WorldLeaves,
) -> None:
    planner = ScriptedPlanner([plan(PICK_TABLE), plan(PICK_TABLE)])
    outcome = run(leaves, planner).outcome()
    repair = planner.requests[1].attempts[-1].result.detail or ""
    assert (outcome.final_reason, leaves.started) == ("planner_refused", [])
    assert "table does not afford graspable" in repair
    assert outcome.detail.startswith("not_afforded: step 1 tabletop/pick: table does not afford graspable")


def test_an_unafforded_plan_the_planner_repairs_runs(leaves: WorldLeaves) -> None:
    outcome = run(leaves, ScriptedPlanner([plan(PICK_TABLE), plan(PICK, PLACE)])).outcome()
    assert (outcome.final_reason, outcome.goal_held) == ("done", True)


def test_an_unafforded_plan_with_no_replan_budget_is_refused(leaves: WorldLeaves) -> None:
    outcome = run(leaves, ScriptedPlanner([plan(PICK_TABLE)]), max_replans=0).outcome()
    assert (outcome.final_reason, leaves.started) == ("planner_refused", [])


def test_the_plan_check_names_the_unafforded_step_and_what_the_object_affords() -> None:
    from bt_executive.trees.plan_check import check_plan, refusal_for

    problems = check_plan(plan(PICK_TABLE), SkillRegistry.discover(default_skill_dirs()), WorldLeaves().world())
    refusal = refusal_for(problems)
    assert [p.kind for p in problems] == ["not_afforded"]
    assert problems[0].message == (
        "table does not afford graspable: tabletop/pick needs graspable(table) (table affords support)"
    )
    assert refusal is not None
    assert refusal.kind is RefusalKind.NOT_AFFORDED


def test_symbolically_place_on_puts_down_what_the_gripper_holds() -> None:
    from bt_executive.trees.plan_check import check_plan

    registry = SkillRegistry.discover(default_skill_dirs())
    world = WorldLeaves().world()
    # The second place_on is not skipped as "already on the plate": the green cube, not the red one, is held;
    # had it been skipped, the last pick would find the gripper full.
    assert check_plan(plan(PICK, PLACE, PICK_GREEN, PLACE, PICK), registry, world) == []
    assert [p.step for p in check_plan(plan(PICK, PLACE, PLACE), registry, world)] == []  # skipped: red on plate


def test_a_symbolic_state_binds_held_to_what_its_gripper_holds() -> None:
    from bt_executive.skills.conditions import SymbolicState
    from bt_executive.skills.predicates import parse_predicate

    leaves = WorldLeaves()
    leaves.holding = "red_cube"
    state = SymbolicState(leaves.world())
    before = state.holds(parse_predicate("on(held, plate)"))
    state.apply(parse_predicate("on(held, plate)"))
    after = (state.holds(parse_predicate("on(red_cube, plate)")), state.holds(parse_predicate("gripper_empty")))
    # Nothing held any more: on(held, plate) can no longer be shown to hold.
    assert (before, after, state.holds(parse_predicate("on(held, plate)"))) == (False, (True, True), False)

"""Nothing a task waits for is waited for without a bound: a silent planner and an endless task both end.

A robot's computer is busy and its planners can stall (a local model swapped out, a hosted API that never
answers). The task must still end, with a reason that says what it waited for, and the goals in flight
must be cancelled. Here the planner blocks on an event nobody sets and the leaf never finishes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from bt_executive.llm.plan import Plan
from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.task_tree import TaskTree
from tests.trees.scripted_leaves import ScriptedLeafFactory

PLAN = Plan(steps=(SkillCall(skill="tabletop/pick", args={"object": "red_cube"}),), planner="scripted")


class SilentPlanner:
    """A planner whose call never returns until the test lets it go (a stalled model)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord] = ()) -> Plan:
        self.release.wait(30.0)
        return PLAN


def _tick_to_end(tree: TaskTree, bound_s: float = 20.0) -> str:
    deadline = time.monotonic() + bound_s
    while tree.final_reason is None and time.monotonic() < deadline:
        tree.tick_once()
        time.sleep(0.01)
    assert tree.final_reason is not None, f"the task did not end within {bound_s:g} s"
    return tree.final_reason


def test_a_planner_that_never_answers_ends_the_task_planner_error_naming_the_wait(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    planner = SilentPlanner()
    tree = TaskTree(
        "pick up the red cube",
        planner=planner,
        registry=skill_registry,
        leaf_factory=ScriptedLeafFactory(),
        planner_timeout_s=0.3,
    )
    try:
        reason = _tick_to_end(tree)
        assert (reason, tree.context.final_detail) == (
            "planner_error",
            "timeout: the planner (SilentPlanner) gave no plan in 0.3 s",
        )
    finally:
        planner.release.set()
        tree.release()


def test_a_task_past_its_bound_ends_aborted_timeout_naming_its_step_and_halts_the_leaf(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    leaves = ScriptedLeafFactory(ticks=10**9)
    tree = TaskTree(
        "pick up the red cube",
        planner=ScriptedPlanner([PLAN]),
        registry=skill_registry,
        leaf_factory=leaves,
        task_timeout_s=0.5,
    )
    try:
        reason = _tick_to_end(tree)
        assert (reason, tree.context.final_detail, leaves.halted) == (
            "aborted:timeout",
            "timeout: the task ran past its bound of 0.5 s (running tabletop/pick(object=red_cube))",
            [PLAN.steps[0]],
        )
    finally:
        tree.release()


def test_without_bounds_a_slow_planner_is_waited_for(skill_registry: SkillRegistry, clean_blackboard: None) -> None:
    planner = SilentPlanner()
    tree = TaskTree(
        "pick up the red cube", planner=planner, registry=skill_registry, leaf_factory=ScriptedLeafFactory()
    )
    try:
        for _ in range(30):
            tree.tick_once()
            time.sleep(0.01)
        assert tree.final_reason is None
        planner.release.set()
        assert _tick_to_end(tree) == "done"
    finally:
        planner.release.set()
        tree.release()

"""Whichever way a task ends, releasing its tree leaves the blackboard and the planner worker as they were.

py_trees keeps every blackboard client and key in class-level dictionaries for
the life of the process; an executive that runs for days must give back each
task's. Leaves here register their entries as the real skill leaves do
(``LeafEntries``); the endings are driven by scripted leaves and a scripted
planner, and one leaf raises to stand for a bug.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import py_trees
import pytest
from py_trees.common import Status

from bt_executive.llm.plan import Plan, PlannerError, PlannerRefused, RefusalKind
from bt_executive.skills.call import SkillCall
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.leaf import LeafEntries
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.recovery import load_recovery_policy
from bt_executive.trees.task_tree import TaskTree
from bt_executive.trees.tree_release import release_subtree
from tests.trees.scripted_leaves import ScriptedLeaf, ScriptedLeafFactory

TASK = "put the red cube on the plate"
PICK = SkillCall(skill="tabletop/pick", args={"object": "red_cube"})
PLACE = SkillCall(skill="tabletop/place_on", args={"target": "plate"})
Blackboard = py_trees.blackboard.Blackboard


class EntryLeaf(ScriptedLeaf):
    """A scripted leaf that registers and writes its blackboard entries like a skill leaf."""

    def __init__(self, factory: ScriptedLeafFactory, call: SkillCall, name: str, key: str) -> None:
        super().__init__(factory, call, name)
        self.entries = LeafEntries(self, "/skills", key)

    def update(self) -> Status:
        if self.call.skill in RAISING:
            raise RuntimeError("a bug in a leaf")
        status = super().update()
        if self.result is not None:
            self.entries.result(self.result)
        return status


RAISING: set[str] = set()


class EntryLeafFactory(ScriptedLeafFactory):
    def __call__(self, call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        leaf = EntryLeaf(self, call, name, key)
        self.leaves.append(leaf)
        return leaf


def blackboard_state() -> tuple[frozenset[object], frozenset[str], frozenset[str]]:
    """Client ids, stored keys, registered keys: what a released task must leave as it found it."""
    return frozenset(Blackboard.clients), frozenset(Blackboard.storage), frozenset(Blackboard.metadata)


@pytest.fixture
def leaves(clean_blackboard: None) -> Iterator[EntryLeafFactory]:
    RAISING.clear()
    yield EntryLeafFactory(ticks=3)
    RAISING.clear()


def make_tree(registry: SkillRegistry, leaves: ScriptedLeafFactory, planner: ScriptedPlanner) -> TaskTree:
    return TaskTree(TASK, planner=planner, registry=registry, leaf_factory=leaves, policy=load_recovery_policy())


def tick_until(tree: TaskTree, done: object, max_ticks: int = 500) -> None:
    """Tick like the executive does (a raising tick fails the task) until ``done()`` or the task ends."""
    for _ in range(max_ticks):
        try:
            tree.tick_once()
        except RuntimeError as err:
            tree.fail(f"a tick raised {err}")
        if tree.final_reason is not None or done():  # type: ignore[operator]
            return
        time.sleep(0.001)
    raise AssertionError(f"the task did not get there in {max_ticks} ticks")


def released_cleanly(tree: TaskTree, before: tuple[object, ...]) -> tuple[object, ...]:
    """Release the tree; what the blackboard holds compared with before, and the planner worker's threads."""
    tree.release()
    threads = list(tree._executor._threads)  # the worker a released task lets go of
    for thread in threads:
        thread.join(5.0)
    return blackboard_state() == before, [t.name for t in threads if t.is_alive()]


def plan(*steps: SkillCall) -> Plan:
    return Plan(steps=steps, planner="scripted")


def test_a_task_that_ends_done_gives_back_its_keys_and_clients(
    skill_registry: SkillRegistry, leaves: EntryLeafFactory
) -> None:
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)]))
    tick_until(tree, lambda: False)
    written = {key for key in Blackboard.storage if key.startswith("/skills/")}
    assert (tree.final_reason, bool(written), released_cleanly(tree, before)) == ("done", True, (True, []))


def test_a_task_whose_replans_run_out_gives_back_every_plans_keys(
    skill_registry: SkillRegistry, leaves: EntryLeafFactory
) -> None:
    leaves.script("tabletop/pick", *[FailureKind.NOT_FOUND] * 5)
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)] * 5))
    tick_until(tree, lambda: False, max_ticks=2000)
    assert (tree.final_reason, len(tree.context.plans) > 1, released_cleanly(tree, before)) == (
        "replan_exhausted",
        True,
        (True, []),
    )


def test_an_aborted_task_gives_back_its_keys(skill_registry: SkillRegistry, leaves: EntryLeafFactory) -> None:
    leaves.script("tabletop/pick", FailureKind.ABORTED)
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)]))
    tick_until(tree, lambda: False)
    assert (tree.final_reason, released_cleanly(tree, before)) == ("aborted:aborted", (True, []))


def test_a_task_preempted_mid_skill_halts_its_leaf_and_gives_back_its_keys(
    skill_registry: SkillRegistry, leaves: EntryLeafFactory
) -> None:
    leaves.ticks = 10_000
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)]))
    tick_until(tree, lambda: bool(leaves.started))
    tree.cancel("preempted by a new task")
    assert (tree.final_reason, len(leaves.halted), released_cleanly(tree, before)) == ("preempted", 1, (True, []))


def test_a_task_preempted_while_planning_lets_go_of_the_planner(
    skill_registry: SkillRegistry, leaves: EntryLeafFactory
) -> None:
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)], delay_s=0.3))
    tree.tick_once()  # the planner starts on its worker
    tree.tick_once()
    tree.cancel("cancelled by the client")
    assert (tree.final_reason, released_cleanly(tree, before)) == ("preempted", (True, []))


def test_a_planner_error_gives_back_the_planning_node(skill_registry: SkillRegistry, leaves: EntryLeafFactory) -> None:
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([PlannerError("the model server answered 500")]))
    tick_until(tree, lambda: False)
    assert (tree.final_reason, released_cleanly(tree, before)) == ("planner_error", (True, []))


def test_a_refused_task_gives_back_the_planning_node(skill_registry: SkillRegistry, leaves: EntryLeafFactory) -> None:
    refusal = PlannerRefused("the table is not graspable", RefusalKind.NOT_AFFORDED)
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([refusal]))
    tick_until(tree, lambda: False)
    assert (tree.final_reason, released_cleanly(tree, before)) == ("planner_refused", (True, []))


def test_a_tick_that_raises_ends_the_task_and_gives_back_its_keys(
    skill_registry: SkillRegistry, leaves: EntryLeafFactory
) -> None:
    RAISING.add("tabletop/place_on")
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)]))
    tick_until(tree, lambda: False)
    assert (tree.final_reason, "a bug in a leaf" in tree.context.final_detail, released_cleanly(tree, before)) == (
        "aborted:unknown",
        True,
        (True, []),
    )


def test_releasing_twice_is_harmless(skill_registry: SkillRegistry, leaves: EntryLeafFactory) -> None:
    before = blackboard_state()
    tree = make_tree(skill_registry, leaves, ScriptedPlanner([plan(PICK, PLACE)]))
    tick_until(tree, lambda: False)
    tree.release()
    assert released_cleanly(tree, before) == (True, [])


def test_a_key_another_live_client_uses_survives_the_release(leaves: EntryLeafFactory) -> None:
    """Two tasks' leaves can share a key (``/skills/step_1/result``): the running one keeps it."""
    old, new = EntryLeaf(leaves, PICK, "old", "step_1"), EntryLeaf(leaves, PICK, "new", "step_1")
    new.entries.result(leaves.next_result(PICK))
    release_subtree(old)
    assert ("/skills/step_1/result" in Blackboard.storage, old.blackboards) == (True, [])

"""LiveSnapshot gives, after every tick, the snapshot tree_snapshot builds from scratch, and says when it changed."""

from __future__ import annotations

import json
from typing import Any

import py_trees

from bt_executive.llm.plan import Plan
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.live_snapshot import LiveSnapshot
from bt_executive.trees.snapshot import tree_snapshot, walk
from bt_executive.trees.task_tree import TaskTree
from tests.trees.scripted_leaves import ScriptedLeafFactory
from tests.viewer.conftest import PICK, PLACE, TASK, retry_then_replan_tree


def _comparable(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without its timestamp, with visited_path as a set (its order is not part of the format)."""
    return {**snapshot, "timestamp": None, "visited_path": set(snapshot["visited_path"])}


def _signature(root: py_trees.behaviour.Behaviour) -> tuple[tuple[int, str, str, int], ...]:
    """What counts as a change, read the slow way: every node's identity, name, status and child count."""
    return tuple((id(n), n.name, n.status.value, len(n.children)) for n in walk(root))


def _live_and_full_after_every_tick(tree: TaskTree, cancel_at: int | None = None) -> list[tuple[Any, Any]]:
    live = LiveSnapshot(tree)
    pairs = []
    for tick in range(500):
        if tick == cancel_at:
            tree.cancel("test")
        else:
            tree.tick_once()
        live.update()
        pairs.append((_comparable(live.snapshot()), _comparable(tree_snapshot(tree.root, changed=True))))
        pairs.append((_comparable(json.loads(live.json())), pairs[-1][1]))
        if tree.final_reason is not None:
            return pairs
    raise AssertionError("task still running after 500 ticks")


def test_it_matches_a_full_snapshot_after_every_tick_through_retry_and_replan(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    pairs = _live_and_full_after_every_tick(retry_then_replan_tree(skill_registry))
    assert [i for i, (live, full) in enumerate(pairs) if live != full] == []


def test_it_matches_a_full_snapshot_through_a_recovery_subtree(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    leaves = ScriptedLeafFactory()
    leaves.script("tabletop/pick", FailureKind.COLLISION)  # recover(home_then_retry), then the pick again
    tree = TaskTree(
        TASK,
        planner=ScriptedPlanner([Plan(steps=(PICK, PLACE), planner="scripted")]),
        registry=skill_registry,
        leaf_factory=leaves,
    )
    pairs = _live_and_full_after_every_tick(tree)
    assert ([i for i, (live, full) in enumerate(pairs) if live != full], tree.final_reason) == ([], "done")


def test_it_matches_a_full_snapshot_when_the_task_is_cancelled_mid_step(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    pairs = _live_and_full_after_every_tick(retry_then_replan_tree(skill_registry), cancel_at=6)
    live, full = pairs[-1]
    assert (live, {b["status"] for b in live["behaviours"].values()}) == (full, {"INVALID"})


def test_it_reports_a_change_exactly_when_a_status_name_or_the_structure_changed(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    tree = retry_then_replan_tree(skill_registry)
    live = LiveSnapshot(tree)
    said, truth = [live.update()], [True]
    last = _signature(tree.root)
    while tree.final_reason is None:
        tree.tick_once()
        said.append(live.update())
        now = _signature(tree.root)
        truth.append(now != last)
        last = now
    assert (said, sum(said) > 5) == (truth, True)


def test_it_reports_no_change_twice_and_a_change_after_a_tick(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    tree = retry_then_replan_tree(skill_registry)
    live = LiveSnapshot(tree)
    seen = [live.update(), live.update()]
    tree.tick_once()
    seen.append(live.update())
    tree.shutdown()
    assert seen == [True, False, True]

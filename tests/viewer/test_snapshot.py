"""Tree snapshots in the py_trees_js format, and change tracking, on real compiled task trees."""

from __future__ import annotations

import json
import uuid

from bt_executive.skills.registry import SkillRegistry
from bt_executive.trees.export_graph import ascii_text
from bt_executive.trees.inert_tree import tree_from_snapshot
from bt_executive.trees.snapshot import CURRENT_STEP_COLOUR, STATUS_COLOURS, tree_snapshot
from tests.viewer.conftest import retry_then_replan_tree, run_to_end


def test_a_snapshot_has_every_field_py_trees_js_reads(skill_registry: SkillRegistry, clean_blackboard: None) -> None:
    tree = retry_then_replan_tree(skill_registry)
    run_to_end(tree)
    snapshot = json.loads(json.dumps(tree_snapshot(tree.root)))  # JSON-clean
    behaviours = snapshot["behaviours"]
    assert {"timestamp", "behaviours", "visited_path", "root", "current", "changed"} <= snapshot.keys()
    assert all(
        {"id", "name", "status", "colour", "details", "children", "data"} <= b.keys() for b in behaviours.values()
    )
    assert all(uuid.UUID(key) and b["id"] == key for key, b in behaviours.items())
    assert all(child in behaviours for b in behaviours.values() for child in b["children"])


def test_ids_stay_the_same_while_a_node_stays_in_the_tree(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    tree = retry_then_replan_tree(skill_registry)
    tree.tick_once()
    first = {b["name"]: key for key, b in tree_snapshot(tree.root)["behaviours"].items()}
    run_to_end(tree)
    last = {b["name"]: key for key, b in tree_snapshot(tree.root)["behaviours"].items()}
    task = 'Task "put the red cube on the plate"'
    assert (first[task], first["Plan task"]) == (last[task], last["Plan task"])


def test_visited_path_holds_the_nodes_the_task_has_reached(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    tree = retry_then_replan_tree(skill_registry)
    run_to_end(tree)
    snapshot = tree_snapshot(tree.root)
    reached = {key for key, b in snapshot["behaviours"].items() if b["status"] != "INVALID"}
    assert set(snapshot["visited_path"]) == reached
    assert snapshot["root"] in reached


def test_colours_follow_status(skill_registry: SkillRegistry, clean_blackboard: None) -> None:
    tree = retry_then_replan_tree(skill_registry)
    run_to_end(tree)
    behaviours = tree_snapshot(tree.root)["behaviours"].values()
    assert {b["colour"] for b in behaviours if b["status"] == "SUCCESS"} == {STATUS_COLOURS["SUCCESS"]}


def test_a_failed_leaf_carries_its_args_failure_kind_and_reason(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    tree = retry_then_replan_tree(skill_registry)
    run_to_end(tree)
    [failed] = [b for b in tree_snapshot(tree.root)["behaviours"].values() if b["data"].get("failure_kind")]
    assert (failed["name"], failed["data"]["args"], failed["data"]["failure_kind"], failed["data"]["reason"]) == (
        "pick(red_cube)",
        '{"object":"red_cube"}',
        "not_found",
        "scripted_not_found",
    )


def test_a_step_shows_its_retries_and_last_failure(skill_registry: SkillRegistry, clean_blackboard: None) -> None:
    tree = retry_then_replan_tree(skill_registry)
    run_to_end(tree)
    steps = [b for b in tree_snapshot(tree.root)["behaviours"].values() if b["name"] == "Step 1 · pick(red_cube)"]
    assert (steps[0]["data"]["retries"], steps[0]["data"]["last_failure"]) == (1, "not_found: scripted_not_found")


def test_the_running_step_is_the_current_one_and_stands_out(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    tree = retry_then_replan_tree(skill_registry)
    for _ in range(200):
        tree.tick_once()
        snapshot = tree_snapshot(tree.root)
        current = snapshot["current"]
        if current is not None and snapshot["behaviours"][current]["name"].startswith("Step"):
            break
    assert (snapshot["behaviours"][current]["name"], snapshot["behaviours"][current]["colour"]) == (
        "Step 1 · pick(red_cube)",
        CURRENT_STEP_COLOUR,
    )
    tree.shutdown()


def test_a_plan_node_shows_its_planner_and_notes(skill_registry: SkillRegistry, clean_blackboard: None) -> None:
    tree = retry_then_replan_tree(skill_registry)
    run_to_end(tree)
    [plan] = [b for b in tree_snapshot(tree.root)["behaviours"].values() if b["name"] == "Plan #1"]
    assert (plan["data"]["planner"], plan["data"]["notes"], plan["data"]["steps"]) == ("scripted", "red cube gone", 2)


def test_a_snapshot_rebuilds_into_a_tree_that_draws_the_same(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    tree = retry_then_replan_tree(skill_registry)
    run_to_end(tree)
    rebuilt = tree_from_snapshot(json.loads(json.dumps(tree_snapshot(tree.root))))
    assert ascii_text(rebuilt) == ascii_text(tree.root)

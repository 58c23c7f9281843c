"""A shipped hand-written routine, loaded from YAML, run end to end against skill servers in another process."""

from __future__ import annotations

import pytest
from py_trees.blackboard import Blackboard
from py_trees.common import Status

from bt_executive.runtime.paths import config_dir
from bt_executive.skills import SkillRegistry, SkillResult, WorldState
from bt_executive.skills.action_skill import RosActionSkill
from bt_executive.skills.world_state import GripperState, ObjectState
from bt_executive.testing import FakeSkillServer, Outcome, RosHarness, run_tree
from bt_executive.trees.leaf_factory import SkillLeafFactory
from bt_executive.trees.yaml_tree import load_tree

pytestmark = [pytest.mark.ros, pytest.mark.usefixtures("clean_blackboard")]

DISCOVERY_TIMEOUT_S = 15.0
CUBE = ObjectState(id="red_cube", position=(0.3, 0.12, 0.02))


def perceived_world() -> WorldState:
    """What perception would report: the cube is held once the pick leaf has succeeded."""
    picked = Blackboard.storage.get("/skills/pick/result")
    held = "red_cube" if isinstance(picked, SkillResult) and picked.success else None
    return WorldState(objects=(CUBE,), gripper=GripperState(holding=held))


def test_home_then_pick_retries_a_missed_grasp_and_ends_holding_the_cube(
    ros_harness: RosHarness, fake_skill_server: FakeSkillServer, skill_registry: SkillRegistry
) -> None:
    fake_skill_server.serve("skills/home")
    fake_skill_server.serve("skills/pick", Outcome(failure_kind="missed_grasp", delay_s=0.05))
    fake_skill_server.start()
    node = ros_harness.node("executive")
    factory = SkillLeafFactory(skill_registry, node=node, world=perceived_world)
    root = load_tree(config_dir() / "trees" / "home_then_pick.yaml", factory)
    ros_harness.start()
    for leaf in root.iterate():
        if isinstance(leaf, RosActionSkill):
            ros_harness.wait_until(leaf.server_is_ready, DISCOVERY_TIMEOUT_S, f"discovery of {leaf.action_name}")

    run = run_tree(root, max_ticks=2000, period_s=0.005)

    goals = [
        (goal.skill_id, goal.args.get("object") if isinstance(goal.args, dict) else None)
        for goal in fake_skill_server.goals()
    ]
    assert (run.status, goals) == (
        Status.SUCCESS,
        [("tabletop/home", None), ("tabletop/pick", "red_cube"), ("tabletop/pick", "red_cube")],
    )


def test_a_routine_whose_condition_never_holds_fails_after_its_skills_ran(
    ros_harness: RosHarness, fake_skill_server: FakeSkillServer, skill_registry: SkillRegistry
) -> None:
    fake_skill_server.serve("skills/home")
    fake_skill_server.serve("skills/pick")
    fake_skill_server.start()
    node = ros_harness.node("executive")
    empty_handed = WorldState(objects=(CUBE,))
    factory = SkillLeafFactory(skill_registry, node=node, world=lambda: empty_handed)
    root = load_tree(config_dir() / "trees" / "home_then_pick.yaml", factory)
    ros_harness.start()
    for leaf in root.iterate():
        if isinstance(leaf, RosActionSkill):
            ros_harness.wait_until(leaf.server_is_ready, DISCOVERY_TIMEOUT_S, f"discovery of {leaf.action_name}")

    run = run_tree(root, max_ticks=2000, period_s=0.005)

    failed = [node.name for node in root.iterate() if node.status == Status.FAILURE]
    assert (run.status, failed, len(fake_skill_server.goals())) == (
        Status.FAILURE,
        ["holding(red_cube)?", root.name],
        2,
    )

"""Compiled trees against real action servers: the fake skill server in a separate process.

The recovery paths of test_task_tree.py again, but every leaf is a
RosActionSkill and every outcome comes over Fast DDS from another process;
the server's own record proves what was sent and cancelled.
"""

from __future__ import annotations

import time

import pytest

from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing import FakeSkillServer, Outcome, RosHarness
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.leaf_factory import SkillLeafFactory
from bt_executive.trees.task_tree import TaskTree

pytestmark = pytest.mark.ros

TICK_S = 0.01
PICK = SkillCall(skill="tabletop/pick", args={"object": "red_cube"})
PICK_GREEN = SkillCall(skill="tabletop/pick", args={"object": "green_cube"})
PLACE = SkillCall(skill="tabletop/place_on", args={"target": "plate"})


def plan(*steps: SkillCall) -> Plan:
    return Plan(steps=steps, planner="scripted")


def tree_for(harness: RosHarness, registry: SkillRegistry, planner: ScriptedPlanner, **kwargs: object) -> TaskTree:
    """A task tree whose leaves are action clients on a spinning node in the test's namespace."""
    node = harness.node("executive")
    harness.start()
    factory = SkillLeafFactory(registry, node=node)
    return TaskTree("put the red cube on the plate", planner=planner, registry=registry, leaf_factory=factory, **kwargs)  # type: ignore[arg-type]


def run(tree: TaskTree, timeout_s: float = 30.0) -> TaskTree:
    deadline = time.monotonic() + timeout_s
    while tree.final_reason is None:
        assert time.monotonic() < deadline, "task did not end"
        tree.tick_once()
        time.sleep(TICK_S)
    return tree


def goal_objects(server: FakeSkillServer, action: str) -> list[object]:
    return [g.args["object"] if isinstance(g.args, dict) else None for g in server.goals(action)]


def test_missed_grasp_is_retried_on_the_server_then_the_task_is_done(
    ros_harness: RosHarness, fake_skill_server: FakeSkillServer, skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    fake_skill_server.serve("skills/pick", Outcome(failure_kind="missed_grasp", delay_s=0.05))
    fake_skill_server.serve("skills/place_on")
    fake_skill_server.start()
    tree = run(tree_for(ros_harness, skill_registry, ScriptedPlanner([plan(PICK, PLACE)])))
    assert (
        tree.final_reason,
        len(fake_skill_server.goals("skills/pick")),
        len(fake_skill_server.goals("skills/place_on")),
    ) == (
        "done",
        2,
        1,
    )


def test_not_found_replans_with_the_failure_shown_to_the_planner(
    ros_harness: RosHarness, fake_skill_server: FakeSkillServer, skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    fake_skill_server.serve("skills/pick", Outcome(failure_kind="not_found", reason="no_red_cube"))
    fake_skill_server.serve("skills/place_on")
    fake_skill_server.start()
    planner = ScriptedPlanner([plan(PICK, PLACE), plan(PICK_GREEN, PLACE)])
    tree = run(tree_for(ros_harness, skill_registry, planner))
    [seen] = planner.requests[1].attempts
    assert (tree.final_reason, seen.result.failure_kind, seen.result.reason) == (
        "done",
        FailureKind.NOT_FOUND,
        "no_red_cube",
    )
    assert goal_objects(fake_skill_server, "skills/pick") == ["red_cube", "green_cube"]


def test_a_failure_that_keeps_coming_back_ends_replan_exhausted(
    ros_harness: RosHarness, fake_skill_server: FakeSkillServer, skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    fake_skill_server.serve("skills/pick", default=Outcome(failure_kind="unreachable"))
    fake_skill_server.start()
    planner = ScriptedPlanner([plan(PICK, PLACE)] * 3)
    tree = run(tree_for(ros_harness, skill_registry, planner, max_replans=1))
    assert (tree.final_reason, len(fake_skill_server.goals("skills/pick"))) == ("replan_exhausted", 2)


def test_an_abort_kind_from_the_server_ends_the_task_aborted(
    ros_harness: RosHarness, fake_skill_server: FakeSkillServer, skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    fake_skill_server.serve("skills/pick", Outcome(failure_kind="aborted", reason="estop"))
    fake_skill_server.start()
    tree = run(tree_for(ros_harness, skill_registry, ScriptedPlanner([plan(PICK, PLACE)])))
    assert (tree.final_reason, fake_skill_server.goals("skills/place_on")) == ("aborted:aborted", [])


def test_cancelling_the_task_cancels_the_goal_in_flight_on_the_server(
    ros_harness: RosHarness, fake_skill_server: FakeSkillServer, skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    fake_skill_server.serve("skills/pick", Outcome(hang=True))
    fake_skill_server.start()
    tree = tree_for(ros_harness, skill_registry, ScriptedPlanner([plan(PICK, PLACE)]))
    deadline = time.monotonic() + 15
    while not fake_skill_server.goals("skills/pick"):
        assert time.monotonic() < deadline, "the pick goal never reached the server"
        tree.tick_once()
        time.sleep(TICK_S)
    tree.cancel("a new task")
    [goal] = fake_skill_server.goals("skills/pick")
    fake_skill_server.wait_for(lambda events: any(e.event == "canceled" for e in events), timeout_s=5)
    assert (tree.final_reason, [c.goal_id for c in fake_skill_server.cancels("skills/pick")]) == (
        "preempted",
        [goal.goal_id],
    )

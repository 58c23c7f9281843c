"""RosActionSkill against the fake skill server in a separate process, ticked by py_trees.

Each test starts its own server process (``fake_skill_server``) in its own
namespace and ticks real leaves at 200 Hz; nothing is mocked between the
leaf and Fast DDS.
"""

from __future__ import annotations

import time

import py_trees
import pytest
from py_trees.common import Status

from bt_executive.skills import FailureKind, SkillResult
from bt_executive.skills.action_skill import RosActionSkill, SkillFeedback
from bt_executive.testing import Outcome, run_tree
from tests.ros.conftest import MAX_TICKS, PICK_ACTION, TICK_S, Rig, pick

pytestmark = pytest.mark.ros

HEARTBEAT_S = 1.5
DEATH_DETECTION_BOUND_S = HEARTBEAT_S + 0.5
"""Stated in action_skill's docstring: heartbeat_timeout_s after the last feedback, plus a tick (and slack)."""
SERVER_WAIT_S = 1.0
TICK_P99_BOUND_S = 0.005
TICK_BOUND_S = 0.05
"""While goals are in flight, 99% of ticks take under 5 ms and none over 50 ms.

A leaf that waited on the goal response would spend a round trip (~10 ms) in every tick that
sends a goal; one that waited on the result, the goal's 250 ms. What is left above 5 ms are
Python thread handoffs (the GIL, shared with rclpy's executor threads) and the OS on 2 cores.
"""


def kind_of(skill: RosActionSkill) -> FailureKind | None:
    """The failure kind of the skill's result (None for a success, or no result yet)."""
    return skill.result.failure_kind if skill.result is not None else None


def test_a_goal_the_server_completes_ends_in_success(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(delay_s=0.1))
    rig.server.start()
    skill = rig.skill()
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert skill.result == SkillResult.ok(duration_s=skill.result.duration_s if skill.result else 0.0)


def test_the_goal_carries_skill_id_merged_arguments_and_prompt(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION)
    rig.server.start()
    call = pick("red_cube", grasp={"lift_height": 0.2}).model_copy(update={"prompt": "gently"})
    skill = rig.skill(call)
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    [goal] = rig.server.goals()
    assert (goal.skill_id, goal.args, goal.prompt) == (
        "test/pick",
        {"object": "red_cube", "grasp": {"approach_height": 0.12, "lift_height": 0.2}},
        "gently",
    )


def test_each_failure_kind_the_server_reports_maps_onto_the_result(rig: Rig) -> None:
    reported = [kind.value for kind in FailureKind] + ["melted"]
    rig.server.serve(PICK_ACTION, *(Outcome(failure_kind=kind) for kind in reported))
    rig.server.start()
    skill = rig.skill()
    rig.go()
    mapped = []
    for _ in reported:
        run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
        mapped.append(kind_of(skill))
    assert mapped == [*FailureKind, FailureKind.UNKNOWN]


def test_an_aborted_goal_without_a_result_payload_fails_as_aborted(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(status="aborted", empty_result=True))
    rig.server.start()
    skill = rig.skill()
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert kind_of(skill) is FailureKind.ABORTED


def test_a_rejected_goal_fails_as_rejected(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, default=Outcome(reject=True))  # every goal: a resent one is rejected too
    rig.server.start()
    skill = rig.skill()
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert kind_of(skill) is FailureKind.REJECTED


def test_a_goal_past_its_deadline_fails_as_timeout(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True))
    rig.server.start()
    skill = rig.skill(timeout_s=0.3)
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert kind_of(skill) is FailureKind.TIMEOUT


def test_a_goal_past_its_deadline_is_cancelled_on_the_server(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True))
    rig.server.start()
    skill = rig.skill(timeout_s=0.3)
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    events = rig.server.wait_for(lambda events: any(e.event == "canceled" for e in events))
    assert skill.goal_id in [e.goal_id for e in events if e.event == "cancel"]


def test_halting_a_running_skill_cancels_its_goal_on_the_server(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True))
    rig.server.start()
    skill = rig.skill()
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S, until=lambda: skill.feedback is not None)
    skill.stop(Status.INVALID)
    events = rig.server.wait_for(lambda events: any(e.event == "canceled" for e in events))
    assert skill.goal_id in [e.goal_id for e in events if e.event == "cancel"]


def test_halting_a_running_skill_records_preempted(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True))
    rig.server.start()
    skill = rig.skill()
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S, until=lambda: skill.feedback is not None)
    skill.stop(Status.INVALID)
    assert kind_of(skill) is FailureKind.PREEMPTED


def test_a_parent_halting_the_leaf_preempts_it(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True))
    rig.server.start()
    skill = rig.skill()
    # A higher-priority branch that fails for 5 ticks, then succeeds: the selector then halts the leaf.
    guard = py_trees.behaviours.StatusQueue(name="abort?", queue=[Status.FAILURE] * 5, eventually=Status.SUCCESS)
    root = py_trees.composites.Selector("task", memory=False, children=[guard, skill])
    rig.go()
    run_tree(root, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert kind_of(skill) is FailureKind.PREEMPTED


def test_shutting_the_tree_down_cancels_a_running_goal(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True))
    rig.server.start()
    skill = rig.skill()
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S, until=lambda: skill.feedback is not None)
    py_trees.trees.BehaviourTree(skill).shutdown()
    events = rig.server.wait_for(lambda events: any(e.event == "canceled" for e in events))
    assert skill.goal_id in [e.goal_id for e in events if e.event == "cancel"]


def test_no_server_fails_as_server_unavailable_within_the_wait_bound(rig: Rig) -> None:
    skill = rig.skill(server_wait_s=SERVER_WAIT_S)
    rig.go(discover=False)
    started = time.monotonic()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    elapsed = time.monotonic() - started
    assert (kind_of(skill), elapsed < SERVER_WAIT_S + 0.25) == (FailureKind.SERVER_UNAVAILABLE, True)


def test_a_server_killed_mid_goal_is_reported_unavailable_within_the_detection_bound(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True, crash_after_s=0.3))
    rig.server.start()
    skill = rig.skill(heartbeat_timeout_s=HEARTBEAT_S)
    rig.go()
    run_tree(skill, max_ticks=2000, period_s=TICK_S)
    detected_at = time.time()
    [crash] = [e for e in rig.server.events() if e.event == "crash"]
    detection_s = detected_at - crash.t
    assert (kind_of(skill), detection_s < DEATH_DETECTION_BOUND_S) == (FailureKind.SERVER_UNAVAILABLE, True), (
        detection_s
    )


def test_a_server_that_stops_sending_feedback_is_reported_unavailable(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True, feedback_count=2))
    rig.server.start()
    skill = rig.skill(heartbeat_timeout_s=0.5)
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert (kind_of(skill), skill.result.reason if skill.result else None) == (
        FailureKind.SERVER_UNAVAILABLE,
        "no_feedback",
    )


def test_invalid_arguments_fail_as_invalid_params(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION)
    rig.server.start()
    skill = rig.skill(pick("red_cube", colour="red"))
    rig.go()
    run_tree(skill, max_ticks=10, period_s=TICK_S)
    assert kind_of(skill) is FailureKind.INVALID_PARAMS


def test_invalid_arguments_send_no_goal(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION)
    rig.server.start()
    invalid = rig.skill(pick("red_cube", colour="red"))
    valid = rig.skill(pick("blue_cube"), key="valid")
    rig.go()
    run_tree(invalid, max_ticks=10, period_s=TICK_S)
    run_tree(valid, max_ticks=MAX_TICKS, period_s=TICK_S)  # a goal the record must show, to prove it records
    # Every goal the server saw is the valid leaf's (a request whose answer was lost is sent again, with a
    # new id: the server may record two of them), and its adopted goal is among them.
    goals = rig.server.goals()
    objects = {goal.args.get("object") if isinstance(goal.args, dict) else None for goal in goals}
    assert (objects, valid.goal_id in [goal.goal_id for goal in goals]) == ({"blue_cube"}, True)


def test_feedback_lands_on_the_blackboard(rig: Rig) -> None:
    # Feedback is a topic: a subscription matched late misses what came before (fresh-clone CI once lost all
    # of a 0.5 s goal's). A goal that runs on gives the feedback time to arrive; the tree stops at the first.
    rig.server.serve(PICK_ACTION, Outcome(delay_s=5.0, feedback_hz=20))
    rig.server.start()
    skill = rig.skill(key="step_1")
    rig.go()
    reader = py_trees.blackboard.Client(name="reader")
    reader.register_key("/skills/step_1/feedback", access=py_trees.common.Access.READ)
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S, until=lambda: reader.exists("/skills/step_1/feedback"))
    feedback: SkillFeedback = reader.get("/skills/step_1/feedback")
    assert (feedback.phase, feedback.detail.get("action")) == ("running", PICK_ACTION)


def test_the_result_lands_on_the_blackboard(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(failure_kind="missed_grasp"))
    rig.server.start()
    skill = rig.skill(key="step_2")
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    reader = py_trees.blackboard.Client(name="reader")
    reader.register_key("/skills/step_2/result", access=py_trees.common.Access.READ)
    assert reader.get("/skills/step_2/result") == skill.result


def test_leaves_created_while_the_executor_spins_leave_it_spinning(rig: Rig) -> None:
    rig.node.create_timer(0.0005, lambda: None)  # keep the executor waking up, as a busy executive's does
    rig.go(discover=False)
    for n in range(100):  # rclpy#1589: a bare ActionClient here kills the executor thread
        rig.skill(pick(f"cube_{n}"), key=f"step_{n}")
    time.sleep(0.1)
    assert rig.harness.spinning


def test_ticks_never_block_while_goals_are_in_flight(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, default=Outcome(delay_s=0.25, feedback_hz=10))
    rig.server.start()
    leaves = [rig.skill(pick(f"cube_{n}"), key=f"step_{n}") for n in range(3)]
    # Each leaf runs goal after goal (Repeat): sends, feedback and results keep coming for 1,000 ticks.
    root = py_trees.composites.Parallel(
        "three skills",
        policy=py_trees.common.ParallelPolicy.SuccessOnAll(),
        children=[py_trees.decorators.Repeat(f"repeat {leaf.name}", leaf, num_success=-1) for leaf in leaves],
    )
    rig.go()
    run = run_tree(root, max_ticks=1000, period_s=0.002)
    goals = len(rig.server.goals())
    p99 = run.tick_percentile_s(99)
    assert (run.ticks, goals >= 10, p99 < TICK_P99_BOUND_S, run.longest_tick_s < TICK_BOUND_S) == (
        1000,
        True,
        True,
        True,
    ), f"{goals} goals; tick p99 {p99 * 1e3:.2f} ms, longest {run.longest_tick_s * 1e3:.2f} ms"

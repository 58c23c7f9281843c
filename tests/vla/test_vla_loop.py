"""The VLA loop's rules, on a recording robot: re-query cadence, stale chunks, failures, preemption."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import py_trees
import pytest
from py_trees.common import Status

from bt_executive.skills import FailureKind, SkillCall, SkillManifest
from bt_executive.skills.call import SkillFeedback
from bt_executive.skills.vla_skill import VlaOptions, VlaSkill, _next_slot
from bt_executive.testing import run_tree
from tests.vla.scripted import RecordingRobot, ScriptedPolicy, Step, chunk


@pytest.fixture
def leaves() -> Iterator[list[VlaSkill]]:
    """Leaves made by a test; their workers are stopped and joined afterwards."""
    made: list[VlaSkill] = []
    yield made
    for leaf in made:
        leaf.stop(Status.INVALID)
        policy = leaf.policy
        if isinstance(policy, ScriptedPolicy):
            policy.release.set()
        assert leaf.join(5.0)


def make(
    leaves: list[VlaSkill],
    manifest: SkillManifest,
    call: SkillCall,
    policy: ScriptedPolicy,
    robot: RecordingRobot,
    **options: object,
) -> VlaSkill:
    leaf = VlaSkill(manifest, call, robot, policy, VlaOptions.model_validate(options))
    leaves.append(leaf)
    return leaf


def test_the_policy_is_queried_again_every_replan_steps_actions(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    policy = ScriptedPolicy([Step(chunk(0.1, length=10))])
    robot = RecordingRobot()
    leaf = make(leaves, vla_manifest, blue_in_bowl, policy, robot, step_limit=20, replan_steps=5)

    run = run_tree(leaf, max_ticks=2000, period_s=0.001)

    # 10-row chunks, but a fresh query after every 5 actions: 20 actions take 4 queries, not 2.
    assert (run.status, robot.applied(), policy.calls) == (Status.FAILURE, 20, 4)


def test_the_step_limit_ends_the_run_as_timeout(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    leaf = make(leaves, vla_manifest, blue_in_bowl, ScriptedPolicy([Step(chunk(0.1))]), RecordingRobot(), step_limit=7)

    run_tree(leaf, max_ticks=2000, period_s=0.001)

    assert leaf.result is not None
    assert (leaf.result.failure_kind, leaf.result.reason, leaf.result.evidence["steps"]) == (
        FailureKind.TIMEOUT,
        "step_limit",
        7,
    )


def test_a_chunk_later_than_its_deadline_is_discarded_never_executed(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    stale, fresh = 0.7, 0.2
    policy = ScriptedPolicy([Step(chunk(stale), delay_s=0.3), Step(chunk(fresh))])
    robot = RecordingRobot()
    leaf = make(leaves, vla_manifest, blue_in_bowl, policy, robot, step_limit=10, max_chunk_latency_s=0.1)

    run_tree(leaf, max_ticks=3000, period_s=0.001)

    executed = {float(row[0]) for row in robot.actions}
    assert leaf.result is not None
    assert (executed, leaf.result.evidence["discarded_chunks"], policy.calls) == ({fresh}, 1, 3)


def test_a_policy_that_is_always_late_ends_as_policy_error(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    policy = ScriptedPolicy([Step(chunk(0.5), delay_s=0.06)])
    robot = RecordingRobot()
    leaf = make(leaves, vla_manifest, blue_in_bowl, policy, robot, max_chunk_latency_s=0.05, max_stale_chunks=3)

    run_tree(leaf, max_ticks=3000, period_s=0.001)

    assert leaf.result is not None
    assert (leaf.result.failure_kind, leaf.result.reason, robot.applied()) == (
        FailureKind.POLICY_ERROR,
        "stale_chunks",
        0,
    )


def test_a_policy_exception_is_policy_error_with_its_traceback(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    policy = ScriptedPolicy([Step(chunk(0.1)), Step(error=RuntimeError("CUDA out of memory"))])
    leaf = make(leaves, vla_manifest, blue_in_bowl, policy, RecordingRobot())

    run = run_tree(leaf, max_ticks=2000, period_s=0.001)

    assert leaf.result is not None
    assert run.status == Status.FAILURE
    assert leaf.result.failure_kind == FailureKind.POLICY_ERROR
    assert "Traceback" in leaf.result.detail
    assert "CUDA out of memory" in leaf.result.detail


def test_a_malformed_chunk_is_policy_error_and_never_reaches_the_robot(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    bad = np.full((10, 7), np.nan)
    robot = RecordingRobot()
    leaf = make(leaves, vla_manifest, blue_in_bowl, ScriptedPolicy([Step(bad)]), robot)

    run_tree(leaf, max_ticks=2000, period_s=0.001)

    assert leaf.result is not None
    assert (leaf.result.failure_kind, leaf.result.reason, robot.applied()) == (
        FailureKind.POLICY_ERROR,
        "bad_actions",
        0,
    )


def test_a_stalled_policy_ends_as_timeout_at_the_deadline_and_the_robot_holds(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    policy = ScriptedPolicy([Step(chunk(0.1)), Step(stall=True)])
    robot = RecordingRobot()
    leaf = make(leaves, vla_manifest, blue_in_bowl, policy, robot, timeout_s=0.5)

    run = run_tree(leaf, max_ticks=500, period_s=0.01)

    assert leaf.result is not None
    assert (run.status, leaf.result.failure_kind, leaf.result.reason) == (
        Status.FAILURE,
        FailureKind.TIMEOUT,
        "deadline_exceeded",
    )
    assert 0.5 <= run.elapsed_s < 2.0
    assert robot.holds >= 1


def test_halting_the_leaf_stops_the_loop_and_records_preempted(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    policy = ScriptedPolicy([Step(chunk(0.1), delay_s=0.002)])
    robot = RecordingRobot()
    leaf = make(leaves, vla_manifest, blue_in_bowl, policy, robot, step_limit=100_000, timeout_s=60)
    run_tree(leaf, max_ticks=1000, period_s=0.005, until=lambda: robot.applied() >= 10)

    leaf.stop(Status.INVALID)
    assert leaf.join(5.0)
    applied_at_stop = robot.applied()

    assert leaf.result is not None
    assert (leaf.result.failure_kind, robot.applied(), robot.holds >= 1) == (
        FailureKind.PREEMPTED,
        applied_at_stop,
        True,
    )


def test_invalid_arguments_fail_before_anything_moves(leaves: list[VlaSkill], vla_manifest: SkillManifest) -> None:
    call = SkillCall(skill=vla_manifest.id, args={"object": "blue_cube"})
    policy = ScriptedPolicy([Step(chunk(0.1))])
    robot = RecordingRobot()
    leaf = make(leaves, vla_manifest, call, policy, robot)

    run_tree(leaf, max_ticks=10, period_s=0.001)

    assert leaf.result is not None
    assert (leaf.result.failure_kind, policy.calls, robot.applied()) == (FailureKind.INVALID_PARAMS, 0, 0)


def test_the_prompt_is_the_template_filled_with_the_call_arguments(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    policy = ScriptedPolicy([Step(chunk(0.1))])
    leaf = make(leaves, vla_manifest, blue_in_bowl, policy, RecordingRobot(), step_limit=3)

    run_tree(leaf, max_ticks=2000, period_s=0.001)

    assert (policy.prompts, policy.observations[0].prompt) == (
        ["put the blue_cube on the bowl"],
        "put the blue_cube on the bowl",
    )


def test_feedback_and_result_are_on_the_blackboard_under_the_key(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall
) -> None:
    leaf = VlaSkill(
        vla_manifest,
        blue_in_bowl,
        RecordingRobot(),
        ScriptedPolicy([Step(chunk(0.1))]),
        VlaOptions(step_limit=12),
        key="step_3",
    )
    leaves.append(leaf)
    reader = py_trees.blackboard.Client(name="reader")
    reader.register_key("/skills/step_3/feedback", access=py_trees.common.Access.READ)
    reader.register_key("/skills/step_3/result", access=py_trees.common.Access.READ)

    run_tree(leaf, max_ticks=2000, period_s=0.001)

    feedback: SkillFeedback = reader.get("/skills/step_3/feedback")
    assert (feedback.phase, reader.get("/skills/step_3/result")) == ("acting", leaf.result)


def test_releasing_a_running_leaf_stops_and_joins_its_worker_and_unregisters_its_entries(
    leaves: list[VlaSkill], vla_manifest: SkillManifest, blue_in_bowl: SkillCall, clean_blackboard: None
) -> None:
    from bt_executive.trees.tree_release import release_subtree

    policy = ScriptedPolicy([Step(chunk(0.1), delay_s=0.002)])
    robot = RecordingRobot()
    leaf = make(leaves, vla_manifest, blue_in_bowl, policy, robot, step_limit=100_000, timeout_s=60)
    run_tree(leaf, max_ticks=1000, period_s=0.005, until=lambda: robot.applied() >= 5)
    worker = leaf._worker
    assert worker is not None

    release_subtree(leaf)  # what a task's release does to each of its behaviours

    assert leaf.result is not None
    assert (worker.is_alive(), leaf.result.failure_kind, robot.holds >= 1, py_trees.blackboard.Blackboard.clients) == (
        False,
        FailureKind.PREEMPTED,
        True,
        {},
    )


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (10.05, 10.1),  # on time: the next grid slot
        (10.17, 10.1),  # a late wake-up (under a period): the grid holds, the next action goes now
        (10.25, 10.25),  # more than a period behind: re-anchored, the missed slot dropped rather than burst
    ],
)
def test_realtime_pacing_keeps_the_grid_unless_a_whole_period_behind(now: float, expected: float) -> None:
    assert _next_slot(10.0, 0.1, now) == pytest.approx(expected)

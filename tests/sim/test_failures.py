"""Every way a skill can fail comes back as a structured SkillResult of the right kind, never as success."""

from __future__ import annotations

import numpy as np
import pytest

from bt_executive.runtime.paths import config_dir
from bt_executive.sim.backend import SimBackend
from bt_executive.sim.faults import FaultConfig, MissedGraspFault
from bt_executive.sim.scene import Scene
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind

pytestmark = pytest.mark.sim


def _kind(result: SkillResult | None) -> tuple[FailureKind | None, str]:
    assert result is not None
    return result.failure_kind, result.reason


def test_an_object_id_not_in_the_scene_is_not_found(backend: SimBackend) -> None:
    assert _kind(backend.run_skill("pick", {"object": "purple_cube"})) == (FailureKind.NOT_FOUND, "unknown_object")


def test_an_object_out_of_the_arms_reach_is_unreachable(backend: SimBackend) -> None:
    backend.set_object_pose("green_cube", (0.95, 0.5, 0.02))
    assert _kind(backend.run_skill("pick", {"object": "green_cube"})) == (FailureKind.UNREACHABLE, "ik_failed")


def test_a_grasp_whose_path_is_blocked_is_unreachable(backend: SimBackend) -> None:
    red = backend.world_state().object("red_cube")
    assert red is not None
    backend.set_object_pose("green_cube", (red.position[0], red.position[1], 0.06))  # a cube on top of it
    for _ in range(25):
        backend.tick()
    assert _kind(backend.run_skill("pick", {"object": "red_cube"})) == (FailureKind.UNREACHABLE, "blocked_path")


def _scene() -> Scene:
    return Scene.from_yaml(config_dir() / "scenes" / "tabletop.yaml")


def test_fingers_closing_on_nothing_is_a_missed_grasp() -> None:
    always_miss = FaultConfig(name="always_miss", missed_grasp=MissedGraspFault(probability=1.0))
    b = SimBackend(_scene(), seed=0, faults=always_miss)
    result = b.run_skill("pick", {"object": "red_cube"})
    assert _kind(result) == (FailureKind.MISSED_GRASP, "fingers_closed_on_nothing")


def test_an_object_too_heavy_to_lift_is_a_missed_grasp() -> None:
    scene = _scene()
    heavy = [o.model_copy(update={"mass": 4.0}) if o.id == "red_cube" else o for o in scene.objects]
    b = SimBackend(scene.model_copy(update={"objects": tuple(heavy)}), seed=0)
    result = b.run_skill("pick", {"object": "red_cube"})
    assert _kind(result) == (FailureKind.MISSED_GRASP, "object_not_lifted")


def test_an_object_appearing_in_the_path_mid_motion_is_a_collision(backend: SimBackend) -> None:
    execution = backend.start_skill("pick", {"object": "red_cube"})
    dropped = False
    while execution.step():
        if execution.progress.phase == "descend" and not dropped:
            red = backend.reader.object_position(backend.index.objects["red_cube"])
            backend.set_object_pose("green_cube", (red[0], red[1], 0.062))
            dropped = True
    assert _kind(execution.result) == (FailureKind.COLLISION, "unexpected_contact")


def test_a_deadline_shorter_than_the_motion_is_a_timeout(backend: SimBackend) -> None:
    result = backend.run_skill("pick", {"object": "red_cube"}, timeout_s=1.0)
    assert _kind(result) == (FailureKind.TIMEOUT, "deadline_exceeded")


def test_a_physics_blow_up_is_an_aborted_sim_error_not_a_success(backend: SimBackend) -> None:
    execution = backend.start_skill("pick", {"object": "red_cube"})
    for _ in range(5):
        execution.step()
    backend.data.qvel[backend.index.objects["blue_cube"].dof] = np.nan  # MuJoCo will auto-reset the state
    execution.run()
    assert _kind(execution.result) == (FailureKind.ABORTED, "sim_error")


def test_a_sim_error_carries_the_mujoco_warning_as_evidence(backend: SimBackend) -> None:
    backend.data.qvel[:] = np.nan
    execution = backend.start_skill("home")
    execution.run()
    assert execution.result is not None
    assert execution.result.evidence["auto_reset"] is True


def test_after_a_sim_error_skills_are_refused_until_reset(backend: SimBackend) -> None:
    backend.data.qvel[:] = np.nan
    backend.run_skill("home")
    refused = backend.run_skill("home")
    backend.reset(0)
    assert (_kind(refused)[0], backend.run_skill("home").success) == (FailureKind.ABORTED, True)


def test_placing_with_an_empty_gripper_is_a_failed_precondition(backend: SimBackend) -> None:
    result = backend.run_skill("place_on", {"target": "plate"})
    assert _kind(result) == (FailureKind.PRECONDITION_FAILED, "gripper_empty")


def test_arguments_that_do_not_match_the_skill_are_invalid_params(backend: SimBackend) -> None:
    result = backend.run_skill("push", {"object": "red_cube", "direction": "up"})
    assert _kind(result) == (FailureKind.INVALID_PARAMS, "invalid_args")


def test_an_unknown_skill_name_is_invalid_params(backend: SimBackend) -> None:
    assert _kind(backend.run_skill("juggle")) == (FailureKind.INVALID_PARAMS, "unknown_skill")


def test_a_failed_grasp_leaves_the_gripper_open_and_the_arm_above_the_object() -> None:
    always_miss = FaultConfig(name="always_miss", missed_grasp=MissedGraspFault(probability=1.0))
    b = SimBackend(_scene(), seed=0, faults=always_miss)
    b.run_skill("pick", {"object": "red_cube"})
    assert (b.world_state().gripper.opening > 0.08, b.reader.grip_pose()[0][2] > 0.1) == (True, True)

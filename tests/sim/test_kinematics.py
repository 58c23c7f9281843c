"""IK reaches the workspace from above and the drawer handle from the front; path checks see what is in the way."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from bt_executive.runtime.paths import config_dir
from bt_executive.sim import arm
from bt_executive.sim.kinematics import ArmKinematics, topdown_rotation
from bt_executive.sim.mjcf import build_mjcf
from bt_executive.sim.model_index import ModelIndex
from bt_executive.sim.scene import Scene
from bt_executive.sim.trajectory import JointTrajectory

pytestmark = pytest.mark.sim


@pytest.fixture(scope="module")
def kinematics() -> ArmKinematics:
    scene = Scene.from_yaml(config_dir() / "scenes" / "tabletop.yaml")
    model = mujoco.MjModel.from_xml_string(build_mjcf(scene))
    data = mujoco.MjData(model)
    index = ModelIndex.build(model, scene)
    data.qpos[index.arm_qpos] = arm.HOME_Q
    mujoco.mj_forward(model, data)
    kin = ArmKinematics(model, index)
    kin.load_world(data.qpos.copy())
    return kin


def test_home_puts_the_grip_site_where_arm_home_grip_says(kinematics: ArmKinematics) -> None:
    position, _ = kinematics.forward(arm.HOME_Q)
    assert position == pytest.approx(arm.HOME_GRIP, abs=1e-6)


@pytest.mark.parametrize("x", [0.2, 0.33, 0.46])
@pytest.mark.parametrize("y", [-0.3, 0.0, 0.3])
@pytest.mark.parametrize("yaw", [0.0, 0.7])
def test_topdown_ik_reaches_the_whole_layout_region(kinematics: ArmKinematics, x: float, y: float, yaw: float) -> None:
    solution = kinematics.solve_topdown((x, y, 0.024), yaw)
    assert solution is not None
    position, rotation = kinematics.forward(solution.q)
    assert (float(np.linalg.norm(position - [x, y, 0.024])) < 0.003, rotation[2, 2] < -0.99) == (True, True)


def test_topdown_ik_refuses_a_point_beyond_reach(kinematics: ArmKinematics) -> None:
    assert kinematics.solve_topdown((0.9, 0.0, 0.02), 0.0) is None


def test_dls_ik_converges_from_a_nearby_seed(kinematics: ArmKinematics) -> None:
    target = np.array([0.35, 0.1, 0.1])
    seed = arm.topdown_seed(target + np.array([0.03, -0.02, 0.03]), 0.0)
    assert seed is not None
    assert kinematics.solve(target, topdown_rotation(0.3), seed).ok


def test_a_path_through_the_table_is_reported_with_the_table_named(kinematics: ArmKinematics) -> None:
    below = arm.topdown_seed((0.3, 0.0, -0.03), 0.0)
    assert below is not None
    hit = kinematics.first_collision(np.array([arm.HOME_Q, below]), finger_opening=0.08)
    assert hit is not None
    assert "table" in hit.owners


def test_a_path_above_everything_is_clear(kinematics: ArmKinematics) -> None:
    above = arm.topdown_seed((0.35, 0.2, 0.25), math.pi / 2)
    assert above is not None
    assert kinematics.first_collision(np.array([arm.HOME_Q, above]), finger_opening=0.08) is None


def test_a_trajectory_starts_and_ends_at_rest_on_its_waypoints() -> None:
    traj = JointTrajectory.joint_move(np.zeros(6), np.ones(6))
    start, v0 = traj.at(0.0)
    end, v1 = traj.at(traj.duration)
    assert (start.tolist(), end.tolist(), float(np.abs(v0).max()), float(np.abs(v1).max())) == (
        [0.0] * 6,
        [1.0] * 6,
        0.0,
        0.0,
    )

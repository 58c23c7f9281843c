"""The sim's robot topics: joint trajectories in, frames when due in sim time, lockstep determinism, refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from bt_executive.sim import arm
from bt_executive.sim.backend import SimBackend
from bt_executive.sim.robot_topics import GRIPPER_JOINT, JOINT_NAMES, SimRobotTopics
from bt_executive.skills.sensor_msgs_conversion import seconds_to_duration
from bt_executive.skills.vla_robot_binding import VlaRobotBinding
from bt_executive.testing import RosHarness

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.ros, pytest.mark.sim]


def trajectory(positions: list[float], seconds: float = 0.1, names: tuple[str, ...] = JOINT_NAMES) -> Any:
    """A one-point JointTrajectory reaching ``positions`` after ``seconds``."""
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

    message = JointTrajectory()
    message.joint_names = list(names)
    message.points = [JointTrajectoryPoint(positions=positions, time_from_start=seconds_to_duration(seconds))]
    return message


def reach(step: int) -> list[float]:
    """Home, with the base turned a little further each step, gripper open."""
    q = list(arm.HOME_Q)
    q[0] += 0.05 * step
    return [*q, arm.MAX_OPENING]


@pytest.fixture
def rig(ros_harness: RosHarness) -> Iterator[tuple[SimRobotTopics, SimBackend, list[Any]]]:
    """Robot topics over a fresh backend, with a subscriber on the front camera (frames render only for one)."""
    from sensor_msgs.msg import Image

    backend = SimBackend.from_files(seed=1)
    node = ros_harness.node("sim")
    frames: list[Any] = []
    topics = SimRobotTopics(node, backend)
    node.create_subscription(Image, "camera/front/image_raw", frames.append, 10)
    # Not spun: the test thread is the only caller, as the callback group makes it in the sim process.
    ros_harness.wait_until(topics._subscribed, 10.0, "the camera subscriber")
    try:
        yield topics, backend, frames
    finally:
        topics.destroy()
        backend.close()


def test_in_lockstep_a_trajectory_advances_sim_time_by_its_duration_and_frames_come_when_due(
    rig: tuple[SimRobotTopics, SimBackend, list[Any]],
) -> None:
    topics, backend, _ = rig
    for step in range(1, 4):
        topics._on_command(trajectory(reach(step)))
    record = topics.records[-1]
    # frames at 0.0 (where the first command starts), 0.1, 0.2 and 0.3 s of sim time
    assert (round(backend.sim_time, 6), topics.frames_rendered, record.accepted, record.duration_s) == (
        0.3,
        4,
        True,
        0.1,
    )


def test_the_same_commands_give_the_same_frames_and_state(ros_harness: RosHarness) -> None:
    runs = []
    for _ in range(2):
        backend = SimBackend.from_files(seed=1)
        topics = SimRobotTopics(ros_harness.node("sim"), backend)
        topics._subscribed = lambda: True  # type: ignore[method-assign]  # render without a subscriber
        for step in range(1, 6):
            topics._on_command(trajectory(reach(step)))
        runs.append((bytes(topics._last_images["front"].data), backend.data.qpos.copy()))
        topics.destroy()
        backend.close()
    (frame_a, qpos_a), (frame_b, qpos_b) = runs
    assert (frame_a == frame_b, np.array_equal(qpos_a, qpos_b)) == (True, True)


def test_a_trajectory_naming_an_unknown_joint_is_refused_and_nothing_moves(
    rig: tuple[SimRobotTopics, SimBackend, list[Any]],
) -> None:
    topics, backend, _ = rig
    topics._on_command(trajectory([0.1, 0.0], names=("elbow_of_another_robot", GRIPPER_JOINT)))
    record = topics.records[-1]
    assert (record.accepted, "elbow_of_another_robot" in record.reason, backend.sim_time) == (False, True, 0.0)


def test_a_command_to_where_the_arm_is_is_recorded_as_a_hold(
    rig: tuple[SimRobotTopics, SimBackend, list[Any]],
) -> None:
    topics, backend, _ = rig
    topics._on_command(trajectory(reach(2)))
    here = [*backend.reader.arm_q(), backend.reader.gripper_opening()]
    topics._on_command(trajectory([float(v) for v in here]))
    assert [r.hold for r in topics.records] == [False, True]


def test_a_vla_manifest_for_the_sim_may_leave_its_joints_out() -> None:
    """A robot block without ``arm_joints`` gets the joints the shipped VLA manifest spells out for the sim (data,
    written apart from the code), which are the arm joints the sim publishes, in order."""
    shipped = yaml.safe_load((REPO / "config" / "skills" / "vla_manipulate.yaml").read_text())["vla"]["robot"]
    defaulted = VlaRobotBinding.model_validate({k: v for k, v in shipped.items() if k != "arm_joints"})
    published = JOINT_NAMES[: len(arm.ARM_JOINTS)]
    assert (defaulted.arm_joints, published) == (tuple(shipped["arm_joints"]), tuple(shipped["arm_joints"]))

"""RosRobot on its own: the action space and gripper range of its binding, no command on stale state, holding."""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np
import pytest

from bt_executive.runtime.tuning import CONTROL_SWITCH_INTERVAL_S
from bt_executive.skills.robot_interface import SensorStale
from bt_executive.skills.ros_robot import RosRobot
from bt_executive.skills.sensor_msgs_conversion import image_message, stamp_to_seconds
from bt_executive.skills.vla_robot_binding import GripperBinding, VlaRobotBinding
from bt_executive.testing import RosHarness

pytestmark = pytest.mark.ros

BINDING = VlaRobotBinding(
    cameras={"front": "cam/front"},
    arm_joints=("a", "b"),
    gripper=GripperBinding(joint="g", range=(0.0, 0.05)),
    action_space="delta_joints",
    max_age_s=0.2,
    stale_timeout_s=0.3,
)


class Rig:
    """A RosRobot and, on another node, a fake robot: a joint-state and camera publisher, a command recorder."""

    def __init__(self, harness: RosHarness, *, answer: bool = False) -> None:
        from sensor_msgs.msg import Image, JointState
        from trajectory_msgs.msg import JointTrajectory

        self.robot = RosRobot(harness.node("executive"), BINDING)
        fake = harness.node("fake_robot")
        self.commands: list[Any] = []
        self.state_pub = fake.create_publisher(JointState, "joint_states", 10)
        self.image_pub = fake.create_publisher(Image, "cam/front", 10)
        fake.create_subscription(
            JointTrajectory, "arm_controller/joint_trajectory", self._answer if answer else self.commands.append, 10
        )
        self.joint_state = JointState
        harness.start()

    def _answer(self, command: Any) -> None:
        """Like a lockstep sim: report the sensors again once a command arrived, the arm at its target."""
        self.commands.append(command)
        self.publish_sensors([float(v) for v in command.points[0].positions])

    def publish_sensors(self, positions: list[float]) -> bool:
        """One joint state (names b, g, a: order must not matter) and one camera frame; whether the robot has any."""
        state = self.joint_state()
        state.name = ["b", "g", "a"]
        state.position = [positions[1], positions[2], positions[0]]
        self.state_pub.publish(state)
        self.image_pub.publish(image_message(np.zeros((4, 4, 3), np.uint8), 0.0, "front"))
        return self.robot.received.get("front", 0) > 0


def test_a_delta_action_is_added_to_the_measured_joints_and_the_gripper_is_clipped(ros_harness: RosHarness) -> None:
    rig = Rig(ros_harness)
    ros_harness.wait_until(
        lambda: rig.publish_sensors([0.5, -0.25, 0.01]),
        10.0,
        "the fake robot's sensors",
    )
    ros_harness.wait_until(lambda: rig.robot._publisher.get_subscription_count() > 0, 10.0, "the command subscriber")
    rig.publish_sensors([0.5, -0.25, 0.01])
    rig.robot.act(np.array([0.1, 0.2, 0.5]), 0.1)
    ros_harness.wait_until(lambda: bool(rig.commands), 10.0, "the command")
    command = rig.commands[-1]
    point = command.points[0]
    assert (list(command.joint_names), np.round(point.positions, 6).tolist(), point.time_from_start.nanosec) == (
        ["a", "b", "g"],
        [0.6, -0.05, 0.05],
        100_000_000,
    )


def test_no_command_goes_out_on_a_stale_joint_state(ros_harness: RosHarness) -> None:
    rig = Rig(ros_harness)
    ros_harness.wait_until(
        lambda: rig.publish_sensors([0.0, 0.0, 0.0]),
        10.0,
        "the fake robot's sensors",
    )
    time.sleep(BINDING.max_age_s + 0.05)  # the robot went quiet
    started = time.monotonic()
    with pytest.raises(SensorStale) as raised:
        rig.robot.act(np.zeros(3), 0.1)
    waited = time.monotonic() - started
    stale = raised.value.evidence["stale"]
    assert (sorted(stale), rig.commands, waited < BINDING.stale_timeout_s + 0.2) == (["front", "joint_state"], [], True)


def test_an_observation_right_after_a_command_shows_the_robots_answer_to_it(ros_harness: RosHarness) -> None:
    rig = Rig(ros_harness, answer=True)
    ros_harness.wait_until(
        lambda: min(p.get_subscription_count() for p in (rig.state_pub, rig.image_pub, rig.robot._publisher)) > 0,
        10.0,
        "both sides' discovery",
    )
    rig.publish_sensors([0.5, -0.25, 0.01])  # once: nothing from before the command is left in flight
    ros_harness.wait_until(lambda: rig.robot.received == {"joint_state": 1, "front": 1}, 10.0, "the state")
    rig.robot.act(np.array([0.1, 0.2, 0.03]), 1.0)  # a long period: up to 0.5 s for the answer, slack for CI
    seen = rig.robot.observe(("front",))
    assert np.round(seen.state, 6).tolist() == [0.6, -0.05, 0.04]


def test_a_hold_keeps_the_target_of_a_command_in_flight_and_later_the_measured_position(
    ros_harness: RosHarness,
) -> None:
    """A joint state older than the last command must not pull the arm back to where it was before it."""
    rig = Rig(ros_harness)
    ros_harness.wait_until(lambda: rig.publish_sensors([0.5, -0.25, 0.01]), 10.0, "the fake robot's sensors")
    ros_harness.wait_until(lambda: rig.robot._publisher.get_subscription_count() > 0, 10.0, "the command subscriber")
    rig.publish_sensors([0.5, -0.25, 0.01])
    rig.robot.act(np.array([0.1, 0.2, 0.02]), 0.6)  # in flight for 0.6 s; the state in hand predates it
    rig.robot.hold()
    ros_harness.wait_until(lambda: len(rig.commands) == 2, 10.0, "the command and the hold")
    time.sleep(0.8)  # the command (and the hold that finishes it) are done: nothing is in flight
    rig.publish_sensors([0.55, -0.1, 0.02])
    ros_harness.wait_until(
        lambda: rig.robot._latest["joint_state"].message.position[0] == -0.1, 10.0, "the new joint state"
    )
    rig.robot.hold()
    ros_harness.wait_until(lambda: len(rig.commands) == 3, 10.0, "the second hold")
    targets = [np.round(c.points[0].positions, 6).tolist() for c in rig.commands]
    within = [round(stamp_to_seconds(c.points[0].time_from_start), 1) for c in rig.commands]
    assert (targets, within[0], 0.3 < within[1] <= 0.6, within[2]) == (
        [[0.6, -0.05, 0.03], [0.6, -0.05, 0.03], [0.55, -0.1, 0.02]],
        0.6,
        True,
        0.1,
    )


def test_a_process_that_drives_a_robot_over_ros_hands_the_gil_over_within_half_a_millisecond(
    ros_harness: RosHarness,
) -> None:
    """The loop thread must wake on time beside rclpy's executor (see CONTROL_SWITCH_INTERVAL_S)."""
    saved = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        RosRobot(ros_harness.node("switch"), BINDING)
        assert sys.getswitchinterval() <= CONTROL_SWITCH_INTERVAL_S
    finally:
        sys.setswitchinterval(saved)

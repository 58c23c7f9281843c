"""RosRobot: a robot arm reached over ROS 2 topics, as the ``RobotInterface`` a VLA loop drives.

::

    camera topics (sensor_msgs/Image) ──┐
    state topic (sensor_msgs/JointState) ┼─► latest message + arrival time ─► observe() ─► policy
    world-state topic (executive cache) ─┘                                              │
    command topic (trajectory_msgs/JointTrajectory) ◄── act(row): one point, one period ◄┘

Every topic comes from the manifest's ``vla.robot`` block
(``VlaRobotBinding``). Observations are assembled from the newest message
of each topic. A message is *fresh* while it arrived within ``max_age_s``
(wall time on this host, which is what matters for acting: the clocks of
the robot and this machine need not agree). ``observe`` and ``act`` wait up
to ``stale_timeout_s`` for every sensor to be fresh, then raise
``SensorStale`` naming the stale ones: no command goes out on stale state.
A sensor that never delivered yet (a subscription just made, still being
discovered) gets ``FIRST_CONTACT_S`` instead.

An observation asked for after a command waits (at most ``UPDATE_WAIT_SHARE``
of the command's period) for every sensor to report once more after that
command: the policy then sees the robot answering its last action, not the
instant before it. The loop asks right after acting, so the wait spends time
it would otherwise sleep until the next slot; a sensor that does not report
in time is used as it is (``max_age_s`` still applies).

``act`` publishes one ``JointTrajectory`` point to reach after one control
period (header stamp: this host's wall clock at publishing, so the robot
side can measure the latency) and returns at once; the loop paces itself.
``hold`` publishes where the arm should stay: while the latest command is
still in flight (its period has not passed) that is the command's own
target, reached no sooner than it asked, since the joint state in hand may
predate it and commanding that would pull the arm back (ros_controllers'
hold uses the desired state for the same reason); otherwise the latest
measured position. It is cheap and never waits, so the tick thread may call
it. One ``RosRobot`` per robot binding lives as long as its node
(subscriptions are not made per task).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from rclpy.callback_groups import CallbackGroup, MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data

from bt_executive.runtime.tuning import use_control_switch_interval
from bt_executive.skills.leaf import WorldStateSource
from bt_executive.skills.robot_interface import RobotObservation, SensorStale
from bt_executive.skills.sensor_msgs_conversion import (
    BadImage,
    image_array,
    joint_positions,
    seconds_to_duration,
    seconds_to_stamp,
    stamp_to_seconds,
)
from bt_executive.skills.vla_robot_binding import VlaRobotBinding
from bt_executive.skills.world_state import WorldState

STATE = "joint_state"
"""The name the joint-state stream goes by in staleness reports."""
HOLD_DURATION_S = 0.1
"""How soon a hold asks to be at its target (at least: a command in flight keeps the time it has left)."""
FIRST_CONTACT_S = 5.0
"""How long to wait for a sensor that never delivered yet (discovery of a new subscription), not stale_timeout_s."""
UPDATE_WAIT_SHARE = 0.5
"""Of a command's period, how long ``observe`` waits for the sensors to report after it (the rest is the policy's)."""


@dataclass(frozen=True)
class _Command:
    sent: float
    """``time.monotonic()`` at publishing."""
    duration_s: float
    target: npt.NDArray[np.float64]
    """The joint targets as published (gripper clipped)."""


@dataclass(frozen=True)
class _Latest:
    message: Any
    arrived: float
    """``time.monotonic()`` on arrival."""


class RosRobot:
    """The VLA loop's robot over ROS 2: subscribes to the binding's sensors, publishes its joint commands."""

    def __init__(
        self,
        node: Node,
        binding: VlaRobotBinding,
        world: WorldStateSource | None = None,
        *,
        callback_group: CallbackGroup | None = None,
    ) -> None:
        from sensor_msgs.msg import Image, JointState
        from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

        use_control_switch_interval()  # the loop's thread must wake on time beside the executor
        self.node = node
        self.binding = binding
        self._world = world
        self._trajectory = JointTrajectory
        self._point = JointTrajectoryPoint
        self._changed = threading.Condition()
        self._latest: dict[str, _Latest] = {}
        self.commands_sent = 0
        self._commanded: _Command | None = None
        """The latest command: when it was sent, its duration and its target."""
        self.received: dict[str, int] = {}
        """Messages received per sensor (``joint_state`` and each camera name)."""
        group = callback_group or MutuallyExclusiveCallbackGroup()
        self._subscriptions = [
            node.create_subscription(
                JointState, binding.state_topic, self._keeper(STATE), qos_profile_sensor_data, callback_group=group
            ),
            *(
                node.create_subscription(
                    Image, topic, self._keeper(camera), qos_profile_sensor_data, callback_group=group
                )
                for camera, topic in binding.cameras.items()
            ),
        ]
        self._publisher = node.create_publisher(JointTrajectory, binding.command_topic, 10)

    def _keeper(self, name: str) -> Any:
        def keep(message: Any) -> None:
            with self._changed:
                self._latest[name] = _Latest(message, time.monotonic())
                self.received[name] = self.received.get(name, 0) + 1
                self._changed.notify_all()

        return keep

    def command_listeners(self) -> int:
        """How many subscriptions the command topic has matched: 0 means a command sent now reaches no driver."""
        return int(self._publisher.get_subscription_count())

    @property
    def action_dim(self) -> int:
        """The arm joints, then the gripper (if the binding has one)."""
        return self.binding.action_dim

    # sensors --------------------------------------------------------------------------------------

    def _fresh(self, sensors: tuple[str, ...]) -> dict[str, _Latest]:
        """The newest message of each sensor once all are fresh; ``SensorStale`` after ``stale_timeout_s``."""
        bound = self.binding.max_age_s
        with self._changed:
            never = any(name not in self._latest for name in sensors)
        wait_s = max(self.binding.stale_timeout_s, FIRST_CONTACT_S) if never else self.binding.stale_timeout_s
        deadline = time.monotonic() + wait_s
        with self._changed:
            while True:
                now = time.monotonic()
                latest = {name: self._latest.get(name) for name in sensors}
                stale = {n: v for n, v in latest.items() if v is None or now - v.arrived > bound}
                if not stale:
                    return {n: v for n, v in latest.items() if v is not None}
                left = deadline - now
                if left <= 0:
                    break
                self._changed.wait(min(left, 0.05))
        ages = {n: (None if v is None else round(now - v.arrived, 3)) for n, v in stale.items()}
        topics = {STATE: self.binding.state_topic, **self.binding.cameras}
        described = ", ".join(
            f"{topics.get(n, n)} ({'nothing received' if a is None else f'{a:.2f} s old'})" for n, a in ages.items()
        )
        raise SensorStale(
            f"no message fresher than {bound:g} s within {wait_s:g} s on {described}",
            {"stale": ages, "max_age_s": bound, "waited_s": wait_s},
        )

    def _await_update(self, sensors: tuple[str, ...]) -> None:
        """Wait (bounded) until each sensor reported after the latest command; return early on none."""
        with self._changed:
            if self._commanded is None:
                return
            sent, duration_s = self._commanded.sent, self._commanded.duration_s
            deadline = sent + duration_s * UPDATE_WAIT_SHARE
            while True:
                behind = [n for n in sensors if n not in self._latest or self._latest[n].arrived <= sent]
                left = deadline - time.monotonic()
                if not behind or left <= 0:
                    return
                self._changed.wait(left)

    def _state(self, latest: _Latest) -> npt.NDArray[np.float64]:
        positions = joint_positions(latest.message.name, latest.message.position, self.binding.joints)
        if positions is None:
            missing = sorted(set(self.binding.joints) - {str(n) for n in latest.message.name})
            raise SensorStale(
                f"{self.binding.state_topic} lacks joints {missing}", {"missing_joints": missing}
            )  # a state that cannot be read is as useless as an old one
        return np.array(positions, dtype=np.float64)

    def observe(self, cameras: Iterable[str]) -> RobotObservation:
        """The newest frame of each camera and the newest joint state, once all are fresh."""
        names = tuple(cameras)
        unknown = [c for c in names if c not in self.binding.cameras]
        if unknown:
            raise ValueError(f"cameras {unknown} have no topic in the manifest's vla.robot.cameras")
        self._await_update((STATE, *names))
        latest = self._fresh((STATE, *names))
        handed = time.monotonic()
        images: dict[str, npt.NDArray[np.uint8]] = {}
        for camera in names:
            try:
                images[camera] = image_array(latest[camera].message)
            except BadImage as err:
                raise ValueError(f"{self.binding.cameras[camera]}: {err}") from err
        state_message = latest[STATE]
        privileged: dict[str, Any] = {}
        if self.binding.privileged_world_state:
            world = self._world() if self._world is not None else None
            if world is not None:
                privileged["world_state"] = world.model_dump(mode="json")
        return RobotObservation(
            images=images,
            state=self._state(state_message),
            stamp=stamp_to_seconds(state_message.message.header.stamp),
            privileged=privileged,
            age_s=max(handed - v.arrived for v in latest.values()),
        )

    # commands -------------------------------------------------------------------------------------

    def act(self, action: npt.NDArray[np.float64], period_s: float) -> None:
        """Publish one action row as a trajectory point one period ahead (after checking the sensors are fresh)."""
        row = np.asarray(action, dtype=np.float64)
        if row.shape != (self.action_dim,):
            raise ValueError(f"an action row has {self.action_dim} values ({self.binding.joints}), got {row.shape}")
        latest = self._fresh((STATE, *self.binding.cameras))
        if self.binding.action_space == "delta_joints":
            row = self._state(latest[STATE]) + row
        self._publish(row, period_s)

    def hold(self) -> None:
        """Command the target of a command still in flight, else the latest measured position (else nothing)."""
        with self._changed:
            latest = self._latest.get(STATE)
            commanded = self._commanded
        left = commanded.sent + commanded.duration_s - time.monotonic() if commanded is not None else 0.0
        if commanded is not None and left > 0:  # finish it no faster than it was asked for, then stay
            self._publish(commanded.target, max(left, HOLD_DURATION_S))
            return
        if latest is None:
            return
        try:
            positions = self._state(latest)
        except SensorStale:
            return
        self._publish(positions, HOLD_DURATION_S)

    def _publish(self, row: npt.NDArray[np.float64], duration_s: float) -> None:
        gripper = self.binding.gripper
        if gripper is not None:
            row = row.copy()
            row[-1] = float(np.clip(row[-1], *gripper.range))
        message = self._trajectory()
        message.header.stamp = seconds_to_stamp(time.time())
        message.joint_names = list(self.binding.joints)
        point = self._point()
        point.positions = [float(v) for v in row]
        point.time_from_start = seconds_to_duration(duration_s)
        message.points = [point]
        self._publisher.publish(message)
        with self._changed:
            self._commanded = _Command(time.monotonic(), duration_s, np.array(row, dtype=np.float64))
        self.commands_sent += 1

    def world_state(self) -> WorldState:
        """The executive's latest world state (the success check's input)."""
        world = self._world() if self._world is not None else None
        if world is None:
            raise RuntimeError("no world state has arrived on the executive's world-state topic")
        return world

    def destroy(self) -> None:
        """Destroy the subscriptions and the publisher."""
        for subscription in self._subscriptions:
            self.node.destroy_subscription(subscription)
        self.node.destroy_publisher(self._publisher)

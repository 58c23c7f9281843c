"""SimRobotTopics: the sim as a ROS 2 arm: camera images and joint states out, joint trajectories in.

::

    camera/front/image_raw, camera/wrist/image_raw   sensor_msgs/Image, rgb8, the scene's size and rate
    joint_states                                     sensor_msgs/JointState: six arm joints, then "gripper"
    arm_controller/joint_trajectory  (subscribed)    trajectory_msgs/JointTrajectory, as ros2_control's
                                                     joint trajectory controller takes it

A trajectory replaces whatever the arm was tracking: each point is reached
at its ``time_from_start``, moving linearly from the previous target with
the matching velocity feed-forward, tick by tick. Joints a message leaves
out keep their targets; an unknown joint or a malformed point refuses the
whole message. The gripper joint is the finger gap in metres.

Time. In ``lockstep`` a trajectory is executed when it arrives, as fast as
the CPU allows: sim time advances by the trajectory's duration and nothing
else moves the arm, so the same messages give the same world, bit for bit.
In ``realtime`` a timer ticks the physics at the control rate (paced to wall
time) and a trajectory is consumed tick by tick. Either way the joint state
is published after every tick and camera frames are rendered when they are
due in *sim* time (every ``1 / camera_streams.rate_hz``), never on a
wall-clock timer, so a frame always shows the world at its stamp.

While nothing advances the sim (lockstep between commands, or a scripted
skill owning the arm), a heartbeat at the camera rate keeps the topics alive
the way a real robot's drivers do: it republishes the latest frames and the
joint state, rendering afresh only if sim time moved since the last frame
(a skill ran). Frames are rendered only while someone subscribes. A fault
file's ``camera_dropout`` silences cameras once sim time passes its
``after_s``, as a dead driver would.

Every command is recorded (``records``, and as JSON lines in ``record_path``):
when it arrived (wall and sim time, its header stamp), the target, the arm's
measured position, whether it was accepted, and whether it was a *hold* (the
target is where the arm already is), which is how tests check that a
preempted VLA skill left the arm holding.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from bt_executive.sim import arm
from bt_executive.sim.backend import BusyError, SimBackend, SimError
from bt_executive.sim.control import TickCommand
from bt_executive.sim.observation import CAMERAS
from bt_executive.skills.sensor_msgs_conversion import (
    image_message,
    seconds_to_stamp,
    stamp_to_seconds,
)

_log = logging.getLogger(__name__)

GRIPPER_JOINT = "gripper"
"""The finger gap's joint name in joint states and commands."""
JOINT_NAMES: tuple[str, ...] = (*arm.ARM_JOINTS, GRIPPER_JOINT)
COMMAND_TOPIC = "arm_controller/joint_trajectory"
STATE_TOPIC = "joint_states"
CAMERA_TOPIC = "camera/{camera}/image_raw"
HOLD_TOLERANCE = 0.02
"""A command whose arm target is within this of the measured position (rad, every joint) is a hold."""
_LIMITS = np.array(arm.JOINT_LIMITS)


@dataclass(frozen=True)
class CommandRecord:
    """One joint-trajectory message as the sim received it."""

    seq: int
    received_wall: float
    """``time.time()`` on arrival."""
    stamp: float
    """The message's header stamp, seconds (the sender's publish time, if it sets one)."""
    sim_time: float
    """Sim time on arrival."""
    measured: tuple[float, ...]
    """Arm joints then gripper gap, measured on arrival."""
    target: tuple[float, ...]
    """Arm joints then gripper gap at the trajectory's last point (the previous targets where it gave none)."""
    duration_s: float
    accepted: bool
    reason: str = ""
    hold: bool = False


class SimRobotTopics:
    """Camera, joint-state and joint-trajectory topics of one ``SimBackend`` on ``node``."""

    def __init__(
        self,
        node: Node,
        backend: SimBackend,
        *,
        cameras: tuple[str, ...] = CAMERAS,
        on_frames: Callable[[], None] | None = None,
        record_path: Path | None = None,
    ) -> None:
        from sensor_msgs.msg import Image, JointState
        from trajectory_msgs.msg import JointTrajectory

        self._node = node
        self._backend = backend
        self._cameras = cameras
        self._on_frames = on_frames
        self._joint_state_type = JointState
        streams = backend.scene.camera_streams
        self.frame_period = 1.0 / streams.rate_hz
        self._last_frame_time = float("-inf")
        self._last_images: dict[str, Any] = {}
        self._last_advance_wall = float("-inf")
        self._queue: deque[TickCommand] = deque()
        self.records: list[CommandRecord] = []
        self._records_lock = threading.Lock()
        self._record_file: TextIO | None = record_path.open("a", encoding="utf-8") if record_path else None
        self.frames_published = 0
        self.frames_rendered = 0

        group = MutuallyExclusiveCallbackGroup()  # commands, ticks and heartbeats never overlap
        sensors = QoSProfile(depth=2, reliability=ReliabilityPolicy.RELIABLE)
        self._image_pubs = {
            camera: node.create_publisher(Image, CAMERA_TOPIC.format(camera=camera), sensors) for camera in cameras
        }
        self._state_pub = node.create_publisher(JointState, STATE_TOPIC, 10)
        self._command_sub = node.create_subscription(
            JointTrajectory, COMMAND_TOPIC, self._on_command, 10, callback_group=group
        )
        self._realtime = backend.clock == "realtime"
        period = backend.control_dt if self._realtime else self.frame_period
        self._timer = node.create_timer(period, self._on_timer, callback_group=group)

    # commands ---------------------------------------------------------------------------------------

    def _on_command(self, message: Any) -> None:
        received = time.time()
        with self._backend.lock:
            start = self._backend.command
            measured = (*self._backend.reader.arm_q(), self._backend.reader.gripper_opening())
            sim_time = self._backend.sim_time
        try:
            segments = self._segments(message, start)
        except ValueError as err:
            self._record(message, received, sim_time, measured, start, 0.0, accepted=False, reason=str(err))
            _log.warning("joint trajectory refused: %s", err)
            return
        duration = sum(ticks for _, ticks in segments) * self._backend.control_dt
        final = segments[-1][0] if segments else start
        hold = bool(np.max(np.abs(final.arm - np.asarray(measured[:6]))) <= HOLD_TOLERANCE)
        commands = list(_interpolate(start, segments, self._backend.control_dt))
        if self._realtime:
            self._queue.clear()  # a new trajectory replaces the rest of the old one
            self._queue.extend(commands)
            self._record(message, received, sim_time, measured, final, duration, accepted=True, hold=hold)
            return
        reason = self._run(commands)
        self._record(
            message, received, sim_time, measured, final, duration, accepted=not reason, reason=reason, hold=hold
        )

    def _segments(self, message: Any, start: TickCommand) -> list[tuple[TickCommand, int]]:
        """The trajectory's points as (target, ticks to reach it) pairs; ValueError naming what is wrong."""
        names = [str(n) for n in message.joint_names]
        unknown = sorted(set(names) - set(JOINT_NAMES))
        if unknown:
            raise ValueError(f"unknown joints {unknown}; this arm has {list(JOINT_NAMES)}")
        if len(set(names)) != len(names):
            raise ValueError("joint_names repeats a joint")
        if not message.points:
            raise ValueError("the trajectory has no points")
        segments: list[tuple[TickCommand, int]] = []
        previous_t = 0.0
        target_arm, target_gap = start.arm.copy(), start.gripper
        for i, point in enumerate(message.points):
            positions = list(point.positions)
            if len(positions) != len(names) or not np.all(np.isfinite(positions)):
                raise ValueError(f"points[{i}].positions: {len(names)} finite values expected")
            t = float(point.time_from_start.sec) + float(point.time_from_start.nanosec) * 1e-9
            if t < previous_t:
                raise ValueError(f"points[{i}].time_from_start goes back in time")
            target_arm = target_arm.copy()
            for name, value in zip(names, positions, strict=True):
                if name == GRIPPER_JOINT:
                    target_gap = float(np.clip(value, 0.0, arm.MAX_OPENING))
                else:
                    target_arm[arm.ARM_JOINTS.index(name)] = value
            target_arm = np.clip(target_arm, _LIMITS[:, 0], _LIMITS[:, 1])
            ticks = max(1, round((t - previous_t) / self._backend.control_dt))
            segments.append((TickCommand.hold(target_arm, target_gap), ticks))
            previous_t = t
        return segments

    def _run(self, commands: list[TickCommand]) -> str:
        """Lockstep: execute a trajectory now, publishing sensors as sim time passes; why not, or ''."""
        if self._frame_due():  # the frame of the instant the trajectory starts from, if it was never shown
            self._publish_frames(render=True)
        for command in commands:
            try:
                self._backend.tick(command)
            except BusyError as err:
                return f"busy: {err}"
            except SimError as err:
                return f"sim_error: {err}"
            self._after_tick()
        return ""

    def _record(
        self,
        message: Any,
        received: float,
        sim_time: float,
        measured: tuple[float, ...],
        final: TickCommand,
        duration: float,
        *,
        accepted: bool,
        reason: str = "",
        hold: bool = False,
    ) -> None:
        with self._records_lock:
            record = CommandRecord(
                seq=len(self.records),
                received_wall=received,
                stamp=stamp_to_seconds(message.header.stamp),
                sim_time=round(sim_time, 6),
                measured=tuple(round(float(v), 6) for v in measured),
                target=(*(round(float(v), 6) for v in final.arm), round(float(final.gripper), 6)),
                duration_s=round(duration, 6),
                accepted=accepted,
                reason=reason,
                hold=hold,
            )
            self.records.append(record)
            if self._record_file is not None:
                self._record_file.write(json.dumps(asdict(record)) + "\n")
                self._record_file.flush()

    # time passing -----------------------------------------------------------------------------------

    def _on_timer(self) -> None:
        if self._realtime:
            command = self._queue.popleft() if self._queue else None
            try:
                self._backend.tick(command)
            except BusyError:  # a scripted skill is ticking the sim: its ticks, our heartbeat
                if command is not None:
                    self._queue.appendleft(command)
            except SimError:
                _log.exception("the sim stopped")
            else:
                self._after_tick()
                return
        if time.monotonic() - self._last_advance_wall >= self.frame_period:
            self._heartbeat()

    def _after_tick(self) -> None:
        """Joint state after every tick; frames when due in sim time."""
        self._last_advance_wall = time.monotonic()
        if self._frame_due():
            self._publish_frames(render=True)
        else:
            self._publish_state()

    def _frame_due(self) -> bool:
        """Whether sim time reached a multiple of the frame period that has no frame yet."""
        now = self._backend.sim_time
        return _frame_index(now, self.frame_period) > _frame_index(self._last_frame_time, self.frame_period)

    def _heartbeat(self) -> None:
        """Nothing advanced the sim for a frame period: republish (render only if a skill moved it)."""
        moved = self._backend.sim_time != self._last_frame_time
        self._publish_frames(render=moved or not self._last_images)

    # publishing -------------------------------------------------------------------------------------

    def _subscribed(self) -> bool:
        return any(pub.get_subscription_count() > 0 for pub in self._image_pubs.values())

    def _publish_frames(self, *, render: bool) -> None:
        render = render and self._subscribed()
        if render:
            observation = self._backend.observation(self._cameras)
            self._last_images = {
                camera: image_message(image, observation.stamp, f"{camera}_camera")
                for camera, image in observation.images.items()
            }
            self._last_frame_time = observation.stamp
            self.frames_rendered += 1
        silent = self._silent_cameras()
        for camera, message in self._last_images.items():
            if camera not in silent:
                self._image_pubs[camera].publish(message)
                self.frames_published += 1
        self._publish_state()
        if render and self._on_frames is not None:
            self._on_frames()

    def _silent_cameras(self) -> tuple[str, ...]:
        """Cameras a ``camera_dropout`` fault has silenced by now."""
        config = self._backend.fault_config
        dropout = config.camera_dropout if config is not None else None
        if dropout is None or self._backend.sim_time < dropout.after_s:
            return ()
        return dropout.cameras

    def _publish_state(self) -> None:
        with self._backend.lock:
            q = self._backend.reader.arm_q()
            gap = self._backend.reader.gripper_opening()
            stamp = self._backend.sim_time
        message = self._joint_state_type()
        message.header.stamp = seconds_to_stamp(stamp)
        message.name = list(JOINT_NAMES)
        message.position = [*(float(v) for v in q), float(gap)]
        self._state_pub.publish(message)

    def destroy(self) -> None:
        """Destroy every ROS entity this object made; close the record file."""
        self._timer.destroy()
        self._command_sub.destroy()
        for pub in self._image_pubs.values():
            pub.destroy()
        self._state_pub.destroy()
        if self._record_file is not None:
            self._record_file.close()
            self._record_file = None


def _frame_index(sim_time: float, period: float) -> float:
    """Which frame period ``sim_time`` falls in (a frame is due when this grows); -inf before any."""
    return float(np.floor(sim_time / period + 1e-6)) if np.isfinite(sim_time) else float("-inf")


def _interpolate(start: TickCommand, segments: list[tuple[TickCommand, int]], dt: float) -> list[TickCommand]:
    """One TickCommand per control tick along the segments, with velocity feed-forward inside each."""
    commands: list[TickCommand] = []
    previous = start
    for target, ticks in segments:
        velocity = (target.arm - previous.arm) / (ticks * dt)
        for k in range(1, ticks + 1):
            share = k / ticks
            commands.append(
                TickCommand(
                    arm=previous.arm + (target.arm - previous.arm) * share,
                    gripper=previous.gripper + (target.gripper - previous.gripper) * share,
                    arm_velocity=velocity if k < ticks else None,
                )
            )
        previous = target
    return commands

"""RobotInterface: the robot as a VLA loop sees it: look, act for one control period, report the world.

::

    frames = robot.observe(("front", "wrist"))   # RobotObservation: images + state
    robot.act(action_row, period_s=0.1)           # one action, held for one control period
    robot.world_state()                           # WorldState, for the success check
    robot.hold()                                  # stop where you are (preemption, failure)

Transport-neutral on purpose. The embedded robot implements it over the
MuJoCo backend (``bt_executive.sim.vla_robot.SimRobot``), where ``act``
advances simulated time by exactly one period (lockstep). On a real robot it
is ROS 2 topics (``bt_executive.skills.ros_robot.RosRobot``): camera images
and joint states in, a joint-trajectory topic out, the world-state topic for
``world_state``; there ``act`` publishes and returns, so the loop paces itself.
A robot whose sensors went quiet raises ``SensorStale`` from ``observe`` or
``act``: the loop fails ``sensor_stale`` rather than act blind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from bt_executive.skills.world_state import WorldState


@dataclass(frozen=True)
class RobotObservation:
    """Camera frames and proprioception from one instant, plus any ground truth a simulator adds."""

    images: Mapping[str, npt.NDArray[np.uint8]]
    state: npt.NDArray[np.float64]
    """Joint positions (rad), then the gripper (finger gap, m)."""
    stamp: float = 0.0
    """Robot (or sim) time of the observation, seconds."""
    privileged: Mapping[str, Any] = field(default_factory=dict)
    """Simulator ground truth for oracle policies (JSON-like); empty on a real robot."""
    age_s: float = 0.0
    """How old its oldest part (frame or joint state) was when handed over, wall seconds (0 in process)."""


class SensorStale(RuntimeError):
    """No fresh enough frame or joint state arrived in time; ``evidence`` names the sensors and their ages."""

    def __init__(self, message: str, evidence: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.evidence: dict[str, Any] = dict(evidence or {})


@runtime_checkable
class RobotInterface(Protocol):
    """What a VLA loop needs from a robot."""

    @property
    def action_dim(self) -> int:
        """Length of one action row (for the tabletop arm: six joint targets, then the finger gap)."""
        ...

    def observe(self, cameras: Iterable[str]) -> RobotObservation:
        """Frames from the named cameras and the proprioceptive state, from the same instant."""
        ...

    def act(self, action: npt.NDArray[np.float64], period_s: float) -> None:
        """Apply one action row for one control period (``period_s``), advancing the robot."""
        ...

    def hold(self) -> None:
        """Stop: track the current position from now on. Cheap, and safe to call from any thread."""
        ...

    def world_state(self) -> WorldState:
        """The robot's current belief about the world (ground truth in the sim)."""
        ...

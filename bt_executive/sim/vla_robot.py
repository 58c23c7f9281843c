"""SimRobot: the MuJoCo tabletop as the ``RobotInterface`` a VLA loop drives.

::

    robot = SimRobot(SimBackend.from_files(seed=3))
    frames = robot.observe(("front", "wrist"))      # 224x224x3 frames, 7-D state
    robot.act(np.array([*q_targets, gap]), 0.1)       # five 20 ms control ticks of the backend

An action row is 7-D: six absolute joint targets (rad, base to hand), then
the finger-gap target (m). Within one period the target moves linearly from
the previous one to the new one, tick by tick, with the matching velocity
feed-forward (as the scripted skills' trajectories do), so a policy's
10 Hz targets become a smooth 50 Hz reference instead of a staircase.

Time is the backend's: in lockstep (the default) ``act`` advances sim time
by one period as fast as the CPU allows; a ``realtime`` backend paces each
tick to wall time. Joint targets are clipped to the joint limits and the gap
to [0, MAX_OPENING], as the servos would.

With ``privileged=True`` (default) every observation carries the sim's
ground-truth ``WorldState`` (as JSON, under ``privileged["world_state"]``) so
the scripted oracle policy can act on it in process or through a policy
server alike.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from bt_executive.sim import arm
from bt_executive.sim.backend import SimBackend
from bt_executive.sim.control import TickCommand
from bt_executive.skills.robot_interface import RobotObservation
from bt_executive.skills.world_state import WorldState

ACTION_DIM = 7
"""Six joint targets, then the finger gap."""
_LIMITS = np.array(arm.JOINT_LIMITS)


class SimRobot:
    """``RobotInterface`` over a ``SimBackend``: camera observations in, joint-target rows out."""

    def __init__(self, backend: SimBackend, *, privileged: bool = True) -> None:
        self.backend = backend
        self.privileged = privileged
        self.actions_applied = 0
        """Action rows applied since construction (tests count them against policy queries)."""

    @property
    def action_dim(self) -> int:
        """Seven: six joint targets and the finger gap."""
        return ACTION_DIM

    def observe(self, cameras: Iterable[str]) -> RobotObservation:
        """Rendered frames and joint state from one sim instant, plus ground truth when ``privileged``."""
        started = time.monotonic()  # the scene is captured first, so the frames are at most this old
        observation = self.backend.observation(tuple(cameras))
        extra = {"world_state": self.backend.world_state().model_dump(mode="json")} if self.privileged else {}
        return RobotObservation(
            images=observation.images,
            state=observation.state,
            stamp=observation.stamp,
            privileged=extra,
            age_s=time.monotonic() - started,
        )

    def act(self, action: npt.NDArray[np.float64], period_s: float) -> None:
        """Track ``action`` for one period: ``period_s`` rounded to whole backend ticks (at least one)."""
        row = np.asarray(action, dtype=np.float64)
        if row.shape != (ACTION_DIM,):
            raise ValueError(f"an action row has {ACTION_DIM} values (6 joints, gap), got shape {row.shape}")
        target = np.clip(row[:6], _LIMITS[:, 0], _LIMITS[:, 1])
        gap = float(np.clip(row[6], 0.0, arm.MAX_OPENING))
        ticks = max(1, round(period_s / self.backend.control_dt))
        start = self.backend.command
        velocity = (target - start.arm) / (ticks * self.backend.control_dt)
        for k in range(1, ticks + 1):
            share = k / ticks
            self.backend.tick(
                TickCommand(
                    arm=start.arm + (target - start.arm) * share,
                    gripper=start.gripper + (gap - start.gripper) * share,
                    arm_velocity=velocity if k < ticks else None,
                )
            )
        self.actions_applied += 1

    def hold(self) -> None:
        """Track the arm's current position, gripper target unchanged."""
        self.backend.hold()

    def world_state(self) -> WorldState:
        """Ground truth from the sim."""
        return self.backend.world_state()

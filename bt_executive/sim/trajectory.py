"""Joint trajectories: a path through joint waypoints, timed by one minimum-jerk profile.

A joint move is a path of two waypoints; a straight Cartesian move is the IK
solutions of points along the line. Either way the arm starts and stops at
rest and passes every waypoint, and the executor samples the trajectory once
per control tick for position targets and velocity feed-forward.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

MAX_JOINT_SPEED = 1.2
"""Peak joint speed of a joint move, rad/s."""
MAX_LINEAR_SPEED = 0.15
"""Peak grip-site speed of a straight-line move, m/s."""
MIN_DURATION = 0.3
"""Shortest motion, seconds."""
_PEAK = 1.875
"""Peak over mean speed of a minimum-jerk profile."""


def min_jerk(tau: float) -> tuple[float, float]:
    """Progress s(tau) and ds/dtau of the minimum-jerk profile on [0, 1]."""
    t = min(1.0, max(0.0, tau))
    return t**3 * (10.0 - 15.0 * t + 6.0 * t * t), 30.0 * t * t * (1.0 - t) ** 2


class JointTrajectory:
    """Waypoints in joint space, traversed at constant path shape with a min-jerk time law."""

    def __init__(self, waypoints: npt.ArrayLike, duration: float) -> None:
        self.waypoints = np.atleast_2d(np.asarray(waypoints, dtype=float))
        self.duration = max(duration, 1e-6)
        seg = np.linalg.norm(np.diff(self.waypoints, axis=0), axis=1)
        total = float(np.sum(seg))
        self._knots = np.concatenate([[0.0], np.cumsum(seg)]) / total if total > 0 else np.zeros(len(self.waypoints))

    @classmethod
    def joint_move(cls, start: npt.ArrayLike, goal: npt.ArrayLike, *, speed_scale: float = 1.0) -> JointTrajectory:
        """A joint-space move from ``start`` to ``goal``, as fast as ``MAX_JOINT_SPEED`` allows."""
        a, b = np.asarray(start, dtype=float), np.asarray(goal, dtype=float)
        span = float(np.max(np.abs(b - a)))
        return cls([a, b], max(MIN_DURATION, _PEAK * span / MAX_JOINT_SPEED) * speed_scale)

    @classmethod
    def through(
        cls, waypoints: npt.ArrayLike, *, length_m: float | None = None, speed_scale: float = 1.0
    ) -> JointTrajectory:
        """A path through ``waypoints``; timed by Cartesian length when given, else by joint span."""
        wp = np.atleast_2d(np.asarray(waypoints, dtype=float))
        if length_m is not None:
            duration = _PEAK * length_m / MAX_LINEAR_SPEED
        else:
            duration = _PEAK * float(np.sum(np.max(np.abs(np.diff(wp, axis=0)), axis=1))) / MAX_JOINT_SPEED
        return cls(wp, max(MIN_DURATION, duration) * speed_scale)

    @property
    def goal(self) -> FloatArray:
        """The last waypoint."""
        return np.array(self.waypoints[-1], dtype=float)

    def at(self, t: float) -> tuple[FloatArray, FloatArray]:
        """Joint position and velocity at time ``t`` (clamped to the ends)."""
        s, ds = min_jerk(t / self.duration)
        if len(self.waypoints) == 1 or self._knots[-1] == 0.0:
            return self.waypoints[-1].copy(), np.zeros(self.waypoints.shape[1])
        i = int(np.searchsorted(self._knots, s, side="right") - 1)
        i = min(max(i, 0), len(self.waypoints) - 2)
        span = self._knots[i + 1] - self._knots[i]
        frac = 0.0 if span <= 0 else (s - self._knots[i]) / span
        a, b = self.waypoints[i], self.waypoints[i + 1]
        q = a + (b - a) * frac
        qd = (b - a) / span * ds / self.duration if span > 0 else np.zeros_like(a)
        return q, qd

    def ticks(self, dt: float) -> int:
        """Control ticks needed to play the whole trajectory."""
        return max(1, math.ceil(self.duration / dt - 1e-9))

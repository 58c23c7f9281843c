"""The embedded arm's geometry: one source of truth for the MJCF, the IK and the world state.

A 6-DoF arm standing on the table at the origin of the robot base frame
(x forward, y left, z up, table top at z = 0), with a two-finger parallel
gripper::

    base ── j1 yaw (z) ── j2 shoulder pitch (y) ── upper arm 0.32 m
         ── j3 elbow pitch (y) ── forearm 0.13 m ── j4 forearm roll (z) ── 0.15 m
         ── j5 wrist pitch (y) ── 0.05 m ── j6 wrist roll (z) ── hand ── fingers

At zero angles the arm points straight up. The "grip" site sits between the
finger pads, ``GRIP_OFFSET`` metres from the wrist-pitch axis; the gripper
approaches along the hand's +z and the fingers close along the hand's y.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from bt_executive.skills.vla_robot_binding import SIM_ARM_JOINTS

ARM_JOINTS: tuple[str, ...] = SIM_ARM_JOINTS
"""Arm joint names, base to hand; also the order of every joint vector in this package.

The names are a VLA manifest's default ``arm_joints`` (skills may not import the sim, so they are written there)."""

FINGER_JOINTS: tuple[str, str] = ("finger_left", "finger_right")
"""Slide joints of the two fingers; each opens by half the finger gap."""

JOINT_LIMITS: tuple[tuple[float, float], ...] = (
    (-2.9, 2.9),
    (-1.9, 1.9),
    (-2.6, 2.6),
    (-2.9, 2.9),
    (-2.2, 2.2),
    (-3.1, 3.1),
)
"""Joint ranges in radians, same order as ``ARM_JOINTS``."""

BASE_HEIGHT = 0.05
"""Height of the yaw joint above the table."""
SHOULDER_HEIGHT = 0.15
"""Height of the shoulder-pitch axis above the table."""
UPPER_ARM = 0.32
"""Shoulder to elbow."""
FOREARM_A = 0.13
"""Elbow to the forearm-roll joint."""
FOREARM_B = 0.15
"""Forearm-roll joint to the wrist-pitch axis."""
FOREARM = FOREARM_A + FOREARM_B
WRIST = 0.05
"""Wrist-pitch axis to the wrist-roll joint (the hand frame)."""
GRIP_IN_HAND = 0.065
"""Hand frame to the grip site, along the approach axis."""
GRIP_OFFSET = WRIST + GRIP_IN_HAND
"""Wrist-pitch axis to the grip site."""
FINGER_BASE_IN_HAND = 0.03
"""Where the fingers start along the approach axis."""
FINGER_LENGTH = 0.05
FINGER_THICKNESS = 0.012
"""Half-extent of a finger across the closing direction (its width is twice this)."""
FINGERTIP_BEYOND_GRIP = FINGER_BASE_IN_HAND + FINGER_LENGTH - GRIP_IN_HAND
"""How far the fingertips reach past the grip site along the approach axis."""

MAX_OPENING = 0.09
"""Largest finger gap, metres."""

HOME_GRIP: tuple[float, float, float] = (0.25, 0.0, 0.30)
"""Where the grip site is at home: pointing down, 0.25 m in front of the base, 0.3 m above the table."""
HOME_TOLERANCE = 0.05
"""Max joint error (rad) for the arm to count as at home."""

MIN_REACH = 0.14
"""Closest horizontal distance from the base axis the gripper works at."""


def wrap_angle(angle: float) -> float:
    """An angle in [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def planar_ik(
    radius: float, height: float, approach_angle: float, *, elbow_up: bool = True
) -> tuple[float, float, float] | None:
    """Shoulder, elbow and wrist pitch placing the grip site at (radius, height) in the arm's vertical plane.

    ``approach_angle`` is the direction of the hand's approach axis measured
    from straight up (pi = pointing down, pi/2 = horizontal, outward). Returns
    None when the wrist point is out of the two-link reach; joint limits are
    the caller's to check.
    """
    wrist_r = radius - GRIP_OFFSET * math.sin(approach_angle)
    wrist_z = height - GRIP_OFFSET * math.cos(approach_angle)
    dr, dz = wrist_r, wrist_z - SHOULDER_HEIGHT
    dist_sq = dr * dr + dz * dz
    cos_elbow = (dist_sq - UPPER_ARM**2 - FOREARM**2) / (2.0 * UPPER_ARM * FOREARM)
    if not -1.0 <= cos_elbow <= 1.0:
        return None
    elbow = math.acos(cos_elbow) * (1.0 if elbow_up else -1.0)
    to_wrist = math.atan2(dr, dz)
    shoulder = to_wrist - math.atan2(FOREARM * math.sin(elbow), UPPER_ARM + FOREARM * math.cos(elbow))
    wrist = approach_angle - shoulder - elbow
    return shoulder, elbow, wrist_wrap(wrist)


def wrist_wrap(angle: float) -> float:
    """Wrist pitch folded into (-pi, pi]."""
    return -wrap_angle(-angle)


def within_limits(q: npt.ArrayLike, margin: float = 0.0) -> bool:
    """Whether every arm joint is inside its range (shrunk by ``margin``)."""
    arr = np.asarray(q, dtype=float)
    return all(lo + margin <= v <= hi - margin for v, (lo, hi) in zip(arr, JOINT_LIMITS, strict=True))


def topdown_seed(position: npt.ArrayLike, finger_yaw: float) -> npt.NDArray[np.float64] | None:
    """Joint angles for a pointing-down grasp at ``position`` with the fingers closing along ``finger_yaw``.

    The closed form of the planar arm (forearm roll at zero); None when the
    point is out of reach or a joint would leave its range. The finger
    direction is only defined modulo pi: the wrist roll closest to zero is
    chosen.
    """
    x, y, z = (float(v) for v in np.asarray(position, dtype=float))
    radius = math.hypot(x, y)
    if radius < 1e-6:
        return None
    yaw = math.atan2(y, x)
    pitches = planar_ik(radius, z, math.pi)
    if pitches is None:
        return None
    roll = wrap_angle(yaw + math.pi / 2.0 - finger_yaw)
    if abs(roll) > math.pi / 2.0:
        roll = wrap_angle(roll + math.pi)
    q = np.array([yaw, pitches[0], pitches[1], 0.0, pitches[2], roll])
    return q if within_limits(q) else None


def horizontal_seed(position: npt.ArrayLike) -> npt.NDArray[np.float64] | None:
    """Joint angles for a horizontal, radially outward approach at ``position``, fingers closing sideways."""
    x, y, z = (float(v) for v in np.asarray(position, dtype=float))
    radius = math.hypot(x, y)
    if radius < 1e-6:
        return None
    pitches = planar_ik(radius, z, math.pi / 2.0)
    if pitches is None:
        return None
    q = np.array([math.atan2(y, x), pitches[0], pitches[1], 0.0, pitches[2], 0.0])
    return q if within_limits(q) else None


def _home_q() -> tuple[float, ...]:
    q = topdown_seed(HOME_GRIP, math.pi / 2.0)
    if q is None:
        raise RuntimeError(f"home grip position {HOME_GRIP} is out of the arm's reach")
    return tuple(round(float(v), 6) for v in q)


HOME_Q: tuple[float, ...] = _home_q()
"""Home joint angles: the closed-form solution for ``HOME_GRIP`` with the fingers closing along y."""

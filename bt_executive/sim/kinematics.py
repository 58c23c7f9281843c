"""Inverse kinematics and path collision checks, computed on a spare MjData, never the live one.

IK is damped least squares on ``mj_jacSite`` at the grip site, seeded by the
arm's closed form (``arm.topdown_seed`` / ``arm.horizontal_seed``) so it
converges in a few iterations to the same branch every time (elbow up,
forearm roll near zero). A path is checked by sampling it densely in joint
space, running kinematics and the collision pipeline on the spare data, and
reporting the first contact between the robot (or what it holds) and
anything not explicitly allowed.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import mujoco
import numpy as np
import numpy.typing as npt
from pydantic import JsonValue

from bt_executive.sim import arm
from bt_executive.sim.model_index import ModelIndex

FloatArray = npt.NDArray[np.float64]

POSITION_TOLERANCE = 0.003
"""Largest IK position error accepted, metres."""
ROTATION_TOLERANCE = 0.05
"""Largest IK orientation error accepted, radians."""
CLEARANCE = 0.004
"""A planned path keeps the robot (and what it holds) this far from anything it may not touch, metres:
the real arm lags its reference a little, and a path that only grazes an obstacle in the planner
bumps it in the physics."""
SELF_PENETRATION = 0.0005
"""Two links of the arm collide when they overlap by more than this (no clearance asked between links)."""
CLEARANCE_SLACK = 0.001
"""How much closer than at the start a path may bring a pair that already starts too close."""
PATH_STEP = 0.02
"""Largest joint change between two checked configurations along a path, radians."""

_LIMITS = np.array(arm.JOINT_LIMITS)
_MOVER = 8
"""Planning-model collision bit of the robot and what it holds; the rest of the world only has affinity for it."""


@dataclass(frozen=True)
class IkSolution:
    """Joint angles for a grip-site target, and how far they miss it."""

    q: FloatArray
    position_error: float
    rotation_error: float

    @property
    def ok(self) -> bool:
        """Whether the solution hits the target within tolerance."""
        return self.position_error <= POSITION_TOLERANCE and self.rotation_error <= ROTATION_TOLERANCE


@dataclass(frozen=True)
class HeldObject:
    """An object carried in the gripper: its free joint and where it sits in the grip-site frame."""

    body: int
    qpos: int
    position_in_grip: FloatArray
    quat_in_grip: FloatArray


@dataclass(frozen=True)
class PathCollision:
    """The first forbidden contact found along a path."""

    fraction: float
    geoms: tuple[str, str]
    owners: tuple[str, str]
    position: tuple[float, float, float]
    depth: float
    """Penetration in metres; negative: still apart by that much, but closer than ``CLEARANCE``."""

    def evidence(self) -> dict[str, JsonValue]:
        """JSON-friendly description for a SkillResult."""
        return {
            "at_fraction": round(self.fraction, 3),
            "geoms": list(self.geoms),
            "between": list(self.owners),
            "contact_position": [round(v, 4) for v in self.position],
            "penetration_m": round(self.depth, 4),
            "required_clearance_m": CLEARANCE,
        }


def rotation_error(current: FloatArray, target: FloatArray) -> FloatArray:
    """Small-angle rotation vector taking ``current`` to ``target`` (3x3 matrices, world frame)."""
    return 0.5 * (
        np.cross(current[:, 0], target[:, 0])
        + np.cross(current[:, 1], target[:, 1])
        + np.cross(current[:, 2], target[:, 2])
    )


def topdown_rotation(finger_yaw: float) -> FloatArray:
    """Grip-site orientation pointing straight down with the fingers closing along ``finger_yaw``."""
    y = np.array([math.cos(finger_yaw), math.sin(finger_yaw), 0.0])
    z = np.array([0.0, 0.0, -1.0])
    return np.column_stack([np.cross(y, z), y, z])


def horizontal_rotation(approach: FloatArray) -> FloatArray:
    """Grip-site orientation pointing along the horizontal ``approach``, fingers closing sideways."""
    z = np.array([approach[0], approach[1], 0.0])
    z /= np.linalg.norm(z)
    y = np.array([-z[1], z[0], 0.0])
    return np.column_stack([np.cross(y, z), y, z])


class ArmKinematics:
    """IK, forward kinematics and collision checks for the arm, on its own MjData."""

    def __init__(self, model: mujoco.MjModel, index: ModelIndex) -> None:
        # A private copy whose collision masks only let the robot touch things: the world's own
        # resting contacts (cubes on the table) would otherwise cost most of every path check.
        self.model = copy.deepcopy(model)
        self.index = index
        self._robot_geoms = np.isin(self.model.geom_bodyid, list(index.robot_bodies))
        self._mask_collisions(held_body=None)
        self.data = mujoco.MjData(self.model)
        self._jacp = np.zeros((3, model.nv))
        self._jacr = np.zeros((3, model.nv))

    def _mask_collisions(self, held_body: int | None) -> None:
        mover = self._robot_geoms.copy()
        if held_body is not None:
            mover |= self.model.geom_bodyid == held_body
        collides = (self.model.geom_contype != 0) | (self.model.geom_conaffinity != 0)
        self.model.geom_contype[:] = np.where(collides & mover, _MOVER, 0)
        self.model.geom_conaffinity[:] = np.where(collides, _MOVER, 0)
        # Contacts are generated up to the margin, so near misses show up as (positive) distances.
        self.model.geom_margin[:] = np.where(collides & mover, CLEARANCE, 0.0)

    def load_world(self, qpos: FloatArray) -> None:
        """Copy the live joint state (objects, drawer, fingers, arm) into the spare data."""
        self.data.qpos[:] = qpos
        self.data.qvel[:] = 0.0

    def _set_arm(self, q: FloatArray) -> None:
        self.data.qpos[self.index.arm_qpos] = q
        mujoco.mj_kinematics(self.model, self.data)

    def forward(self, q: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Grip-site position and orientation (3x3) for joint angles ``q``."""
        self._set_arm(np.asarray(q, dtype=float))
        site = self.index.grip_site
        return self.data.site_xpos[site].copy(), self.data.site_xmat[site].reshape(3, 3).copy()

    def solve(
        self,
        position: npt.ArrayLike,
        rotation: FloatArray | None,
        seed: npt.ArrayLike,
        *,
        locked: Iterable[int] = (),
        max_iter: int = 60,
        damping: float = 0.02,
    ) -> IkSolution:
        """Damped least squares from ``seed`` towards the target; joints in ``locked`` stay at the seed."""
        target = np.asarray(position, dtype=float)
        q = np.clip(np.asarray(seed, dtype=float).copy(), _LIMITS[:, 0], _LIMITS[:, 1])
        free = np.ones(len(arm.ARM_JOINTS), dtype=bool)
        free[list(locked)] = False
        site = self.index.grip_site
        rot_weight = 0.5
        pos_err = rot_err = math.inf
        for _ in range(max_iter):
            self._set_arm(q)
            e_pos = target - self.data.site_xpos[site]
            cur = self.data.site_xmat[site].reshape(3, 3)
            e_rot = rotation_error(cur, rotation) if rotation is not None else np.zeros(3)
            pos_err, rot_err = float(np.linalg.norm(e_pos)), float(np.linalg.norm(e_rot))
            if pos_err < POSITION_TOLERANCE * 0.1 and rot_err < ROTATION_TOLERANCE * 0.1:
                break
            mujoco.mj_comPos(self.model, self.data)
            mujoco.mj_jacSite(self.model, self.data, self._jacp, self._jacr, site)
            rows = [self._jacp[:, self.index.arm_dof]]
            err = [e_pos]
            if rotation is not None:
                rows.append(rot_weight * self._jacr[:, self.index.arm_dof])
                err.append(rot_weight * e_rot)
            jac = np.vstack(rows) * free
            e = np.concatenate(err)
            dq = jac.T @ np.linalg.solve(jac @ jac.T + damping**2 * np.eye(jac.shape[0]), e)
            step = float(np.max(np.abs(dq)))
            if step > 0.2:
                dq *= 0.2 / step
            q = np.clip(q + dq, _LIMITS[:, 0], _LIMITS[:, 1])
        return IkSolution(q=q, position_error=pos_err, rotation_error=rot_err)

    def solve_topdown(self, position: npt.ArrayLike, finger_yaw: float) -> IkSolution | None:
        """A pointing-down grasp at ``position``; None when out of reach or outside the joint limits."""
        seed = arm.topdown_seed(position, finger_yaw)
        if seed is None:
            return None
        # The seed's own orientation is exactly "down" with the chosen finger direction (modulo pi).
        _, rot = self.forward(seed)
        solution = self.solve(position, rot, seed, locked=(3,))
        return solution if solution.ok else None

    def solve_horizontal(self, position: npt.ArrayLike, approach: FloatArray) -> IkSolution | None:
        """A horizontal approach along ``approach`` at ``position``; None when unreachable."""
        seed = arm.horizontal_seed(position)
        if seed is None:
            return None
        solution = self.solve(position, horizontal_rotation(approach), seed, max_iter=100)
        return solution if solution.ok else None

    def held_object(self, live: mujoco.MjData, body: int, qpos: int) -> HeldObject:
        """Where a held object sits relative to the grip site, read from the live data."""
        site = self.index.grip_site
        site_pos = live.site_xpos[site]
        site_mat = live.site_xmat[site].reshape(3, 3)
        site_quat = np.zeros(4)
        mujoco.mju_mat2Quat(site_quat, live.site_xmat[site])
        inv = np.zeros(4)
        mujoco.mju_negQuat(inv, site_quat)
        rel_quat = np.zeros(4)
        mujoco.mju_mulQuat(rel_quat, inv, live.xquat[body])
        rel_pos = site_mat.T @ (live.xpos[body] - site_pos)
        return HeldObject(body=body, qpos=qpos, position_in_grip=rel_pos, quat_in_grip=rel_quat)

    def _place_held(self, held: HeldObject) -> None:
        site = self.index.grip_site
        mat = self.data.site_xmat[site].reshape(3, 3)
        pos = self.data.site_xpos[site] + mat @ held.position_in_grip
        site_quat = np.zeros(4)
        mujoco.mju_mat2Quat(site_quat, self.data.site_xmat[site])
        quat = np.zeros(4)
        mujoco.mju_mulQuat(quat, site_quat, held.quat_in_grip)
        self.data.qpos[held.qpos : held.qpos + 3] = pos
        self.data.qpos[held.qpos + 3 : held.qpos + 7] = quat
        mujoco.mj_kinematics(self.model, self.data)

    def first_collision(
        self,
        waypoints: FloatArray,
        *,
        held: HeldObject | None = None,
        allowed: frozenset[int] = frozenset(),
        finger_opening: float | None = None,
    ) -> PathCollision | None:
        """The first forbidden contact along the piecewise-linear joint path through ``waypoints``.

        Forbidden: coming closer than ``CLEARANCE`` between a robot body (or
        the held object) and a body outside the robot, the held object and
        ``allowed``, or two robot links overlapping. Contacts among the world's own
        objects (a cube resting on the plate) are ignored, and so are pairs
        already that close at the start, as long as they get no closer.
        """
        if finger_opening is not None:
            self.data.qpos[self.index.finger_qpos] = finger_opening / 2
        configs = _densify(np.atleast_2d(waypoints))
        self._mask_collisions(held.body if held is not None else None)
        robot = self.index.robot_bodies
        mover = robot | ({held.body} if held is not None else frozenset())
        ignore = mover | allowed
        model, data = self.model, self.data
        # Contacts already there at the start (say, after a push left the hand against an object)
        # may stay as long as they get no deeper: moving out of them is allowed.
        tolerated: dict[tuple[int, int], float] = {}
        for i, q in enumerate(configs):
            self._set_arm(q)
            if held is not None:
                self._place_held(held)
            mujoco.mj_collision(model, data)
            n = data.ncon
            if n == 0:
                continue
            contacts = data.contact
            for k in np.flatnonzero(contacts.dist[:n] < CLEARANCE):
                g1, g2 = int(contacts.geom1[k]), int(contacts.geom2[k])
                b1, b2 = int(model.geom_bodyid[g1]), int(model.geom_bodyid[g2])
                in1, in2 = b1 in mover, b2 in mover
                if not (in1 or in2):
                    continue  # the world touching itself
                depth = float(-contacts.dist[k])
                if in1 and in2:
                    if held is not None and held.body in (b1, b2):
                        continue  # the held object touches the hand by design
                    if depth < SELF_PENETRATION:
                        continue  # links pass close to each other by design; only overlap counts
                elif (b2 if in1 else b1) in ignore:
                    continue
                if i == 0:
                    tolerated[(g1, g2)] = max(depth, tolerated.get((g1, g2), -CLEARANCE))
                    continue
                if (g1, g2) in tolerated and depth <= tolerated[(g1, g2)] + CLEARANCE_SLACK:
                    continue
                pos = contacts.pos[k]
                return PathCollision(
                    fraction=i / max(1, len(configs) - 1),
                    geoms=(_geom_name(model, g1), _geom_name(model, g2)),
                    owners=(self.index.owner_of_geom(model, g1), self.index.owner_of_geom(model, g2)),
                    position=(float(pos[0]), float(pos[1]), float(pos[2])),
                    depth=depth,
                )
        return None


def _geom_name(model: mujoco.MjModel, geom: int) -> str:
    name = model.geom(geom).name
    return str(name) if name else f"geom{geom}"


def _densify(waypoints: FloatArray) -> FloatArray:
    """Joint configurations along the path, no two more than ``PATH_STEP`` apart."""
    out = [waypoints[0]]
    for a, b in itertools.pairwise(waypoints):
        n = max(1, math.ceil(float(np.max(np.abs(b - a))) / PATH_STEP))
        out.extend(a + (b - a) * (k / n) for k in range(1, n + 1))
    return np.array(out)

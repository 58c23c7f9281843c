"""SkillContext: what a scripted skill may use, and the motion primitives it is built from.

A skill gets one context per call. Through it the skill reads the sim
(``reader``), plans on the spare MjData (IK on lines and poses, path
collision checks, transits that go over the top when the direct way is
blocked), and moves: ``play`` follows trajectories, ``move_gripper`` opens
or closes, ``wait`` holds still, each yielding one ``TickCommand`` per
control tick. The context also tells the execution's collision monitor what
the current motion is allowed to touch, and reports the skill's phase and
progress.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING

import mujoco
import numpy as np
import numpy.typing as npt
from pydantic import JsonValue

from bt_executive.sim.control import TickCommand
from bt_executive.sim.execution import SkillFailure
from bt_executive.sim.kinematics import HeldObject, PathCollision
from bt_executive.sim.model_index import DrawerHandle, ObjectHandle
from bt_executive.sim.trajectory import JointTrajectory
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind

if TYPE_CHECKING:
    from bt_executive.sim.backend import SimBackend

FloatArray = npt.NDArray[np.float64]
Motion = Generator[TickCommand, None, None]
"""A motion primitive: one command per control tick."""

SAFE_HEIGHT = 0.26
"""Grip-site height at which transits clear the cabinet and every object."""
LINE_STEP = 0.02
"""Spacing of IK samples along a straight-line move, metres."""
SETTLE_TOLERANCE = 0.01
"""Largest joint tracking error (rad) at which a motion counts as arrived."""
SETTLE_TIME = 0.4
"""Longest wait for the arm to settle after a motion, seconds."""


def rounded(values: Iterable[float] | npt.ArrayLike, digits: int = 4) -> list[JsonValue]:
    """Numbers as a short JSON list, for evidence."""
    return [round(float(v), digits) for v in np.asarray(values, dtype=float).ravel()]


def up(dz: float) -> FloatArray:
    """A vertical offset, to add to a point."""
    return np.array([0.0, 0.0, dz])


def postcondition(
    outcome: str, evidence: dict[str, JsonValue], *, failed: bool, reason: str, detail: str
) -> SkillResult:
    """How a skill ends once it has moved: ``outcome``, or ``postcondition_failed`` where its effect is not there."""
    if failed:
        raise SkillFailure(FailureKind.POSTCONDITION_FAILED, reason, detail=detail, evidence=evidence)
    return SkillResult.ok(outcome, evidence=evidence)


def finger_yaw(rot: FloatArray) -> float:
    """Direction the fingers close along, from a grip-site orientation."""
    return math.atan2(float(rot[1, 1]), float(rot[0, 1]))


class SkillContext:
    """What a skill may use: sim queries, planning on the spare data, and tick-by-tick motion primitives."""

    def __init__(self, backend: SimBackend, skill: str, phases: tuple[str, ...]) -> None:
        self.backend = backend
        self.reader = backend.reader
        self.kin = backend.kinematics
        self.index = backend.index
        self.dt = backend.control_dt
        self.skill = skill
        self.phases = phases
        self._phase_index = 0
        self._phase_fraction = 0.0
        self.speed_scale = backend.faults.slowdown
        self.gripper = backend.command.gripper
        self.allowed: frozenset[int] = frozenset()
        self.carrying: int | None = None
        self._robot_mask = np.zeros(backend.model.nbody, dtype=bool)
        self._robot_mask[list(self.index.robot_bodies)] = True
        self._force = np.zeros(6)

    # -- progress ------------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """The phase running now."""
        return self.phases[self._phase_index]

    def enter(self, phase: str) -> None:
        """Start a named phase (one of ``phases``)."""
        self._phase_index = self.phases.index(phase)
        self._phase_fraction = 0.0

    def progress(self) -> tuple[str, float]:
        """Current phase and overall fraction done (phases count equally)."""
        return self.phase, (self._phase_index + self._phase_fraction) / len(self.phases)

    # -- looking things up ---------------------------------------------------------------------

    def find_object(self, object_id: str) -> ObjectHandle:
        """A movable object by id, or ``not_found``."""
        handle = self.index.objects.get(object_id)
        if handle is None or object_id in self.backend.removed_objects:
            raise self._not_found("object", object_id)
        return handle

    def find_drawer(self, drawer_id: str) -> DrawerHandle:
        """The drawer by id, or ``not_found``."""
        drawer = self.index.drawer
        if drawer is None or drawer.spec.drawer_id != drawer_id:
            raise self._not_found("drawer", drawer_id)
        return drawer

    def _not_found(self, what: str, wanted: str) -> SkillFailure:
        """``not_found`` for a ``what`` (object, drawer) the scene lacks, with the ids it has."""
        return SkillFailure(
            FailureKind.NOT_FOUND,
            f"unknown_{what}",
            detail=f"no {what} {wanted!r} in the scene",
            evidence={what: wanted, "known": list(self.backend.present_ids())},
        )

    def holding(self) -> str | None:
        """The object in the gripper, or None."""
        return self.reader.holding()

    def require_empty_gripper(self) -> None:
        """``precondition_failed`` when the gripper holds something."""
        held = self.holding()
        if held is not None:
            raise SkillFailure(
                FailureKind.PRECONDITION_FAILED,
                "gripper_not_empty",
                detail=f"{self.skill} needs an empty gripper; it holds {held}",
                evidence={"holding": held},
            )

    # -- planning on the spare data ------------------------------------------------------------

    def sync_planner(self) -> None:
        """Copy the live state into the spare MjData the planner works on."""
        self.kin.load_world(self.backend.data.qpos.copy())

    def unreachable(self, what: str, target: npt.ArrayLike, why: str) -> SkillFailure:
        """An ``unreachable`` failure for a pose the arm cannot take."""
        return SkillFailure(
            FailureKind.UNREACHABLE,
            "ik_failed",
            detail=f"no arm pose reaches the {what} at {rounded(target, 3)}: {why}",
            evidence={"what": what, "target": rounded(target), "why": why},
        )

    def ik_topdown(self, position: FloatArray, finger_yaw: float, what: str) -> FloatArray:
        """Joint angles for a pointing-down grip at ``position``, or ``unreachable``."""
        solution = self.kin.solve_topdown(position, finger_yaw)
        if solution is None:
            raise self.unreachable(what, position, "outside the arm's workspace or joint limits")
        return solution.q

    def line(
        self, start_q: FloatArray, end: FloatArray, what: str, *, locked: tuple[int, ...] = (3,)
    ) -> tuple[FloatArray, float]:
        """IK samples along the straight line from where ``start_q`` puts the grip to ``end``, same orientation."""
        start, rot = self.kin.forward(start_q)
        length = float(np.linalg.norm(end - start))
        n = max(2, math.ceil(length / LINE_STEP) + 1)
        q = start_q.copy()
        samples = [q]
        for s in np.linspace(0.0, 1.0, n)[1:]:
            solution = self.kin.solve(start + (end - start) * s, rot, q, locked=locked)
            if not solution.ok:
                raise self.unreachable(what, end, f"the straight line leaves the workspace at {s:.0%}")
            q = solution.q
            samples.append(q)
        return np.array(samples), length

    def check(
        self,
        waypoints: FloatArray,
        what: str,
        *,
        opening: float,
        allowed: Iterable[int] = (),
        held: HeldObject | None = None,
    ) -> None:
        """``unreachable`` (blocked path) when the joint path hits something it may not touch."""
        hit = self.kin.first_collision(waypoints, held=held, allowed=frozenset(allowed), finger_opening=opening)
        if hit is not None:
            raise self._blocked(what, hit)

    def _blocked(self, what: str, hit: PathCollision) -> SkillFailure:
        return SkillFailure(
            FailureKind.UNREACHABLE,
            "blocked_path",
            detail=f"the path to the {what} hits {hit.owners[0]}/{hit.owners[1]} ({hit.geoms[0]}, {hit.geoms[1]})",
            evidence={"what": what, **hit.evidence()},
        )

    def transit(
        self,
        goal: FloatArray,
        what: str,
        *,
        opening: float,
        held: HeldObject | None = None,
        allowed: Iterable[int] = (),
    ) -> list[JointTrajectory]:
        """A collision-free joint move to ``goal``: direct if clear, else up to a safe height, across, and down."""
        start = self.reader.arm_q()
        allowed = frozenset(allowed)
        direct = np.array([start, goal])
        hit = self.kin.first_collision(direct, held=held, allowed=allowed, finger_opening=opening)
        if hit is None:
            return [JointTrajectory.joint_move(start, goal, speed_scale=self.speed_scale)]
        p0, r0 = self.kin.forward(start)
        pg, rg = self.kin.forward(goal)
        up0 = self.kin.solve([p0[0], p0[1], max(p0[2], SAFE_HEIGHT)], r0, start)
        upg = self.kin.solve([pg[0], pg[1], max(pg[2], SAFE_HEIGHT)], rg, goal)
        if not (up0.ok and upg.ok):
            raise self._blocked(what, hit)
        path = np.array([start, up0.q, upg.q, goal])
        via_hit = self.kin.first_collision(path, held=held, allowed=allowed, finger_opening=opening)
        if via_hit is not None:
            raise self._blocked(what, via_hit)
        return [
            JointTrajectory.joint_move(a, b, speed_scale=self.speed_scale)
            for a, b in itertools.pairwise(path)
            if float(np.max(np.abs(b - a))) > 1e-4
        ]

    def straight(self, waypoints: FloatArray, length_m: float) -> JointTrajectory:
        """A timed straight-line move through IK samples."""
        return JointTrajectory.through(waypoints, length_m=length_m, speed_scale=self.speed_scale)

    def held_object(self, object_id: str) -> HeldObject:
        """The held object's pose relative to the grip site, from the live state."""
        handle = self.index.objects[object_id]
        return self.kin.held_object(self.backend.data, handle.body, handle.qpos)

    # -- motion primitives (each yields one command per control tick) --------------------------

    def play(
        self,
        trajectories: JointTrajectory | list[JointTrajectory],
        *,
        allowed: Iterable[int] = (),
        carrying: int | None = None,
        settle: bool = True,
    ) -> Motion:
        """Follow trajectories tick by tick, then wait for the arm to settle on the goal."""
        trajs = trajectories if isinstance(trajectories, list) else [trajectories]
        self.allowed = frozenset(allowed)
        self.carrying = carrying
        total = sum(t.ticks(self.dt) for t in trajs)
        done = 0
        goal = self.reader.arm_q()
        for traj in trajs:
            for k in range(1, traj.ticks(self.dt) + 1):
                q, qd = traj.at(k * self.dt)
                done += 1
                self._phase_fraction = 0.9 * done / max(1, total)
                yield TickCommand(arm=q, gripper=self.gripper, arm_velocity=qd)
            goal = traj.goal
        if settle:
            for _ in range(math.ceil(SETTLE_TIME / self.dt)):
                if float(np.max(np.abs(self.reader.arm_q() - goal))) < SETTLE_TOLERANCE:
                    break
                yield TickCommand.hold(goal, self.gripper)
        self._phase_fraction = 1.0

    def move_gripper(
        self, opening: float, *, allowed: Iterable[int] = (), carrying: int | None = None, duration: float = 0.35
    ) -> Motion:
        """Ramp the finger gap to ``opening`` with the arm held still, then let the fingers settle."""
        self.allowed = frozenset(allowed)
        self.carrying = carrying
        hold = self.backend.command.arm
        start = self.gripper
        n = max(1, math.ceil(duration * self.speed_scale / self.dt))
        for k in range(1, n + 1):
            self.gripper = start + (opening - start) * k / n
            self._phase_fraction = 0.7 * k / n
            yield TickCommand.hold(hold, self.gripper)
        for k in range(math.ceil(0.2 / self.dt)):
            self._phase_fraction = 0.7 + 0.3 * k / 10
            yield TickCommand.hold(hold, self.gripper)
        self._phase_fraction = 1.0

    def wait(self, seconds: float, *, allowed: Iterable[int] | None = None) -> Motion:
        """Hold still for a while (objects settle, a pour drains)."""
        if allowed is not None:
            self.allowed = frozenset(allowed)
        hold = self.backend.command.arm
        n = max(1, math.ceil(seconds / self.dt))
        for k in range(n):
            self._phase_fraction = k / n
            yield TickCommand.hold(hold, self.gripper)
        self._phase_fraction = 1.0

    # -- the collision monitor -----------------------------------------------------------------

    def unexpected_contact(self, threshold: float) -> dict[str, JsonValue] | None:
        """The strongest contact between the robot (or what it carries) and something the motion did not allow."""
        model, data = self.backend.model, self.backend.data
        n = data.ncon
        if n == 0:
            return None
        mover = self._robot_mask.copy()
        if self.carrying is not None:
            mover[self.carrying] = True
        contacts = data.contact
        b1 = model.geom_bodyid[contacts.geom1[:n]]
        b2 = model.geom_bodyid[contacts.geom2[:n]]
        m1, m2 = mover[b1], mover[b2]
        worst: dict[str, JsonValue] | None = None
        worst_force = threshold
        for k in np.flatnonzero(m1 ^ m2):
            other = int(b2[k] if m1[k] else b1[k])
            if other in self.allowed:
                continue
            mujoco.mj_contactForce(model, data, int(k), self._force)
            force = abs(float(self._force[0]))
            if force <= worst_force:
                continue
            g1, g2 = int(contacts.geom1[k]), int(contacts.geom2[k])
            worst_force = force
            worst = {
                "between": [self.index.owner_of_geom(model, g1), self.index.owner_of_geom(model, g2)],
                "geoms": [str(model.geom(g1).name), str(model.geom(g2).name)],
                "contact_position": rounded(contacts.pos[k]),
                "force_n": round(force, 2),
            }
        return worst

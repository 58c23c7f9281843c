"""OraclePolicy: a scripted "VLA" for the sim that cheats by reading ground truth, so the loop can be tested.

It speaks exactly the ``Policy`` protocol a learned model would (frames and
state in, a (T, 7) chunk of joint targets out) but decides from
``observation.privileged["world_state"]``, the sim's ground truth that
``SimRobot`` attaches. It works the same in process and behind
``bt-executive policy-server`` because everything it reads travels in the
observation. Installed as the ``oracle`` entry point of ``bt_executive.policies``.

From the prompt ("put the blue cube in the bowl", "put the red_cube on the
plate") it takes the first object mentioned as what to move and the next as
where to put it, then plans a pick-and-place in joint space with the arm's
closed-form top-down IK (``arm.topdown_seed``), one row per control period::

    open + transit above the cube -> descend -> close -> lift -> carry above the target
    -> lower -> open -> retreat up

The plan is indexed by sim time (the world state's stamp), not by how many
chunks were asked for, so re-queries every few steps and discarded stale
chunks both land on the right row. It re-plans from where the arm is when
the prompt changes, when time runs backwards (a new episode), when the arm
is far from where the plan expected it, or when the grasp failed (nothing
held once lifting should have started).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from bt_executive.sim import arm
from bt_executive.skills.policy import ActionChunk, PolicyError, PolicyObservation
from bt_executive.skills.world_state import ObjectState, WorldState

FloatArray = npt.NDArray[np.float64]

JOINT_STEP = 0.08
"""Largest joint change per row in free transits, rad (0.8 rad/s at 10 Hz)."""
LINE_STEP = 0.01
"""Grip travel per row on straight vertical moves, m (0.1 m/s at 10 Hz)."""
APPROACH_HEIGHT = 0.12
"""Above the grasp point, where the descent starts."""
CARRY_HEIGHT = 0.24
"""Grip height for carrying: clear of the cabinet, the bowl and every cube."""
RETREAT = 0.10
DEVIATION = 0.3
"""Joint error (rad) beyond which the arm is not where the plan expected: plan again from there."""
MAX_REPLANS = 3
_IGNORED = frozenset({"table", "cabinet", "drawer"})


@dataclass(frozen=True)
class _Plan:
    prompt: str
    t0: float
    rows: FloatArray
    """(N, 7): row i is the target for time t0 + i * dt; row 0 is where the arm was."""
    object_id: str
    grasped_from: int
    """From this row on, the object should be in the gripper."""
    released_from: int


def _yaw(obj: ObjectState) -> float:
    w, _, _, z = obj.orientation
    return 2.0 * math.atan2(z, w)


def mentioned_objects(prompt: str, world: WorldState) -> list[ObjectState]:
    """Objects the prompt names (by id, or the id with spaces), in the order it names them."""
    text = prompt.lower()
    found: list[tuple[int, ObjectState]] = []
    for obj in world.objects:
        if obj.id in _IGNORED:
            continue
        hits = [i for i in (text.find(obj.id), text.find(obj.id.replace("_", " "))) if i >= 0]
        if hits:
            found.append((min(hits), obj))
    return [obj for _, obj in sorted(found, key=lambda pair: pair[0])]


class OraclePolicy:
    """Pick-and-place from privileged sim state, as a ``Policy`` emitting 7-D joint-target chunks."""

    def __init__(self, control_rate_hz: float = 10.0, horizon: int = 10) -> None:
        if control_rate_hz <= 0 or horizon < 1:
            raise ValueError("control_rate_hz must be positive and horizon at least 1")
        self.dt = 1.0 / control_rate_hz
        self.horizon = horizon
        self.metadata: Mapping[str, Any] = {
            "policy": "oracle",
            "action_dim": 7,
            "action_horizon": horizon,
            "control_rate_hz": control_rate_hz,
            "needs_privileged": True,
        }
        self.calls = 0
        """``infer`` calls since construction."""
        self.seen_image_shapes: dict[str, tuple[int, ...]] = {}
        """Shape of the latest frame per camera (tests check frames really arrive)."""
        self._plan: _Plan | None = None
        self._replans = 0

    def reset(self, prompt: str) -> None:
        """Forget the plan; the next observation starts a new one."""
        del prompt  # the prompt travels with every observation, and that one is authoritative
        self._plan = None
        self._replans = 0

    def infer(self, observation: PolicyObservation) -> ActionChunk:
        """The next ``horizon`` rows of the plan for the observation's sim time."""
        self.calls += 1
        self.seen_image_shapes = {name: tuple(image.shape) for name, image in observation.images.items()}
        raw = observation.privileged.get("world_state")
        if raw is None:
            raise PolicyError("the oracle needs privileged['world_state'] (run it on SimRobot with privileged=True)")
        world = WorldState.model_validate(raw)
        state = np.asarray(observation.state, dtype=np.float64)
        plan = self._plan
        if plan is None or self._must_replan(plan, observation.prompt, world, state):
            plan = self._plan = self._make_plan(observation.prompt, world, state)
        index = self._index(plan, world.stamp)
        rows = plan.rows[index + 1 : index + 1 + self.horizon]
        if len(rows) < self.horizon:  # past the end: hold the last pose
            rows = np.vstack([rows, np.repeat(plan.rows[-1:], self.horizon - len(rows), axis=0)])
        return rows.copy()

    # -- planning ---------------------------------------------------------------------------------

    def _index(self, plan: _Plan, stamp: float) -> int:
        return min(len(plan.rows) - 1, max(0, round((stamp - plan.t0) / self.dt)))

    def _must_replan(self, plan: _Plan, prompt: str, world: WorldState, state: FloatArray) -> bool:
        if prompt != plan.prompt or world.stamp < plan.t0 - 1e-6:
            return True  # another task, or a new episode
        if self._replans >= MAX_REPLANS:
            return False
        index = self._index(plan, world.stamp)
        lost = plan.grasped_from <= index < plan.released_from and world.gripper.holding != plan.object_id
        off_course = float(np.max(np.abs(state[:6] - plan.rows[index, :6]))) > DEVIATION
        if lost or off_course:
            self._replans += 1
            return True
        return False

    def _make_plan(self, prompt: str, world: WorldState, state: FloatArray) -> _Plan:
        named = mentioned_objects(prompt, world)
        movable = [obj for obj in named if obj.category == "cube"]
        if not movable or len(named) < 2:
            known = ", ".join(o.id for o in world.objects if o.id not in _IGNORED)
            raise PolicyError(f"cannot tell what to move where from {prompt!r} (objects: {known})")
        obj = movable[0]
        target = next(o for o in named if o.id != obj.id)
        half = obj.size[2] / 2.0
        ox, oy, oz = obj.position
        grasp = np.array([ox, oy, oz + half - min(0.016, 0.4 * obj.size[2])])
        grip_above_centre = grasp[2] - oz
        yaw = self._finger_yaw(_yaw(obj), grasp)
        release_gap = 0.02 if target.category == "bowl" else 0.01
        tx, ty, tz = target.position
        release = np.array([tx, ty, tz + target.size[2] / 2.0 + half + release_gap + grip_above_centre])

        rows: list[FloatArray] = [state.copy()]

        def add(q_next: FloatArray, gap_next: float) -> None:
            rows.append(np.concatenate([q_next, [gap_next]]))

        def transit(goal: FloatArray, gap_to: float) -> None:
            start = rows[-1]
            n = max(1, math.ceil(float(np.max(np.abs(goal - start[:6]))) / JOINT_STEP))
            for k in range(1, n + 1):
                add(start[:6] + (goal - start[:6]) * k / n, start[6] + (gap_to - start[6]) * k / n)

        def line(a: FloatArray, b: FloatArray, gap_at: float) -> None:
            n = max(1, math.ceil(float(np.linalg.norm(b - a)) / LINE_STEP))
            for k in range(1, n + 1):
                add(self._ik(a + (b - a) * k / n, yaw), gap_at)

        def settle(count: int) -> None:
            for _ in range(count):
                rows.append(rows[-1].copy())

        def grip(to: float, ramp: int = 5) -> None:
            start = rows[-1]
            for k in range(1, ramp + 1):
                add(start[:6], start[6] + (to - start[6]) * k / ramp)
            settle(3)

        pre = grasp + np.array([0.0, 0.0, APPROACH_HEIGHT])
        lifted = np.array([grasp[0], grasp[1], CARRY_HEIGHT])
        above = np.array([release[0], release[1], CARRY_HEIGHT])
        transit(self._ik(pre, yaw), arm.MAX_OPENING)
        settle(3)
        line(pre, grasp, arm.MAX_OPENING)
        settle(3)
        grip(0.0)
        grasped_from = len(rows) + 2
        line(grasp, lifted, 0.0)
        transit(self._ik(above, yaw), 0.0)
        settle(3)
        line(above, release, 0.0)
        settle(3)
        released_from = len(rows)
        grip(arm.MAX_OPENING)
        line(release, release + np.array([0.0, 0.0, RETREAT]), arm.MAX_OPENING)
        return _Plan(
            prompt=prompt,
            t0=world.stamp,
            rows=np.array(rows),
            object_id=obj.id,
            grasped_from=grasped_from,
            released_from=released_from,
        )

    @staticmethod
    def _finger_yaw(object_yaw: float, position: FloatArray) -> float:
        """Of the two face-aligned finger directions, the one needing the least wrist roll."""
        best, best_roll = object_yaw, math.inf
        for yaw in (object_yaw, object_yaw + math.pi / 2):
            seed = arm.topdown_seed(position, yaw)
            if seed is not None and abs(seed[5]) < best_roll:
                best, best_roll = yaw, abs(float(seed[5]))
        return best

    @staticmethod
    def _ik(position: FloatArray, finger_yaw: float) -> FloatArray:
        q = arm.topdown_seed(position, finger_yaw)
        if q is None:
            where = ", ".join(f"{v:.3f}" for v in position)
            raise PolicyError(f"({where}) is out of the arm's reach for a top-down grip")
        return q

"""The scripted skills of the embedded robot, as generators that yield one control tick at a time.

Each skill validates its arguments, finds what it needs in the sim state,
plans every motion on the spare MjData before moving (IK plus a collision
check along the joint path), then plays the motions tick by tick and checks
its effect from the sim state. The building blocks (planning, motion
primitives, what a motion may touch) are ``SkillContext``'s, in
``skill_context.py``::

    pick(object)                 open, approach above, descend, close, lift
    place_on(target)             carry above the target, lower, open, retreat
    stack(object, base)          pick, then place_on the base
    push(object, direction)      closed fingers beside it, slide it along
    tap(object)                  touch its top with the fingertips, come back up
    pour(source, target)         carry the held source above the target, tilt, untilt
    open_drawer(drawer)          grasp the handle from the front, pull, let go
    close_drawer(drawer)         push the handle back in with closed fingers
    home()                       back to the home pose, keeping what it holds

Failures are raised as ``SkillFailure`` with a kind from the project's
taxonomy: ``not_found`` (no such id), ``unreachable`` (IK misses or every
path is blocked), ``missed_grasp`` (fingers closed on nothing, or the object
stayed behind), ``precondition_failed`` (e.g. place with an empty gripper),
``postcondition_failed`` (moved, but the effect is not there). ``collision``,
``timeout`` and ``aborted``/``sim_error`` come from the execution's monitors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterator
from typing import Literal

import mujoco
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from bt_executive.sim import arm, mjcf
from bt_executive.sim.control import TickCommand
from bt_executive.sim.execution import SkillFailure, SkillGenerator
from bt_executive.sim.model_index import ObjectHandle
from bt_executive.sim.skill_context import SkillContext, finger_yaw, rounded, up
from bt_executive.sim.trajectory import JointTrajectory
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind

FloatArray = npt.NDArray[np.float64]

FINGERTIP_BEYOND_GRIP = arm.FINGER_BASE_IN_HAND + arm.FINGER_LENGTH - arm.GRIP_IN_HAND
"""How far the fingertips reach past the grip site along the approach axis."""
HANDLE_RADIUS = 0.008

DEFAULT_TIMEOUTS: dict[str, float] = {
    "pick": 30.0,
    "place_on": 30.0,
    "push": 30.0,
    "home": 20.0,
    "pour": 40.0,
    "tap": 20.0,
    "open_drawer": 40.0,
    "close_drawer": 40.0,
    "stack": 60.0,
}
"""Sim-time deadlines when the caller gives none (the manifests' timeout_s)."""


# -- arguments --------------------------------------------------------------------------------------


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GraspArgs(_Args):
    """How a pick approaches and lifts."""

    approach_height: float = Field(default=0.12, ge=0.02, le=0.3)
    lift_height: float = Field(default=0.15, ge=0.02, le=0.3)


class PickArgs(_Args):
    """Arguments of ``pick``."""

    object: str = Field(min_length=1)
    grasp: GraspArgs = GraspArgs()


class PlaceOnArgs(_Args):
    """Arguments of ``place_on``."""

    target: str = Field(min_length=1)
    release_height: float = Field(default=0.01, ge=0.0, le=0.1)


class StackArgs(_Args):
    """Arguments of ``stack``."""

    object: str = Field(min_length=1)
    base: str = Field(min_length=1)


class PushArgs(_Args):
    """Arguments of ``push``."""

    object: str = Field(min_length=1)
    direction: Literal["forward", "back", "left", "right"]
    distance: float = Field(default=0.05, ge=0.01, le=0.2)


class TapArgs(_Args):
    """Arguments of ``tap``."""

    object: str = Field(min_length=1)


class PourArgs(_Args):
    """Arguments of ``pour``."""

    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    tilt_deg: float = Field(default=100.0, ge=30.0, le=150.0)


class DrawerArgs(_Args):
    """Arguments of ``open_drawer`` and ``close_drawer``."""

    drawer: str = Field(default="drawer", min_length=1)


class HomeArgs(_Args):
    """``home`` takes no arguments."""


# -- pick and place ---------------------------------------------------------------------------------

PICK_PHASES = ("plan", "approach", "descend", "close", "lift")
PLACE_PHASES = ("plan", "transit", "lower", "release", "retreat")


def _grasp_yaw(object_yaw: float, position: FloatArray) -> float:
    """Of the two face-aligned finger directions, the one needing the least wrist roll."""
    best, best_roll = object_yaw, math.inf
    for yaw in (object_yaw, object_yaw + math.pi / 2):
        seed = arm.topdown_seed(position, yaw)
        if seed is not None and abs(seed[5]) < best_roll:
            best, best_roll = yaw, abs(seed[5])
    return best


def _pick(ctx: SkillContext, args: PickArgs, prefix: str = "") -> Generator[TickCommand, None, dict[str, JsonValue]]:
    ctx.enter(prefix + "plan")
    handle = ctx.find_object(args.object)
    if handle.spec.category != "cube":
        raise SkillFailure(
            FailureKind.PRECONDITION_FAILED,
            "not_graspable",
            detail=f"{args.object} is a {handle.spec.category}; the gripper picks cubes",
            evidence={"object": args.object, "category": handle.spec.category},
        )
    ctx.require_empty_gripper()
    reader = ctx.reader
    ctx.sync_planner()
    true_pos = reader.object_position(handle)
    support = _support_body(ctx, handle)
    top = reader.object_top(handle)
    grasp = np.array([true_pos[0], true_pos[1], top - min(0.016, 0.4 * handle.spec.size[2])])
    grasp_yaw = _grasp_yaw(reader.object_yaw(handle), grasp)
    approach = args.grasp.approach_height

    def usable(offset: tuple[float, float]) -> bool:
        """Whether a grasp shifted by ``offset`` could still be planned (so a fault shows as a missed grasp)."""
        shifted = grasp + np.array([offset[0], offset[1], 0.0])
        poses = [ctx.kin.solve_topdown(shifted + up(dz), grasp_yaw) for dz in (approach, 0.0)]
        if any(p is None for p in poses):
            return False
        path = np.array([p.q for p in poses if p is not None])
        return ctx.kin.first_collision(path, allowed=frozenset({handle.body}), finger_opening=arm.MAX_OPENING) is None

    offset = ctx.backend.faults.grasp_offset(ctx.skill, grasp_yaw, ctx.backend.sim_time, usable)
    if offset is not None:
        grasp[:2] += offset  # what a miscalibrated camera would report
    pre = grasp + up(approach)
    q_pre = ctx.ik_topdown(pre, grasp_yaw, f"approach pose above {args.object}")
    descend, descend_len = ctx.line(q_pre, grasp, f"grasp pose of {args.object}")
    lift, lift_len = ctx.line(descend[-1], grasp + up(args.grasp.lift_height), f"lift above {args.object}")
    to_pre = ctx.transit(q_pre, f"approach pose above {args.object}", opening=arm.MAX_OPENING)
    ctx.check(descend, f"grasp pose of {args.object}", opening=arm.MAX_OPENING, allowed={handle.body})
    ctx.check(lift, f"lift of {args.object}", opening=handle.spec.size[0], allowed={handle.body, *support})

    ctx.enter(prefix + "approach")
    ctx.gripper = arm.MAX_OPENING
    yield from ctx.play(to_pre)
    ctx.enter(prefix + "descend")
    yield from ctx.play(ctx.straight(descend, descend_len), allowed={handle.body})
    ctx.enter(prefix + "close")
    yield from ctx.move_gripper(0.0, allowed={handle.body, *support})
    gap = reader.gripper_opening()
    width = min(handle.spec.size[0], handle.spec.size[1])
    held = reader.holding()
    if gap < 0.5 * width or held != args.object:
        evidence: dict[str, JsonValue] = {
            "object": args.object,
            "finger_gap": round(gap, 4),
            "object_width": width,
            "grasp_target": rounded(grasp),
            "object_position": rounded(reader.object_position(handle)),
            "holding": held,
        }
        # Leave it safe for a retry: fingers open, hand back up where it came from.
        yield from ctx.move_gripper(arm.MAX_OPENING, allowed={handle.body, *support})
        back = ctx.straight(descend[::-1].copy(), descend_len)
        yield from ctx.play(back, allowed={handle.body})
        raise SkillFailure(
            FailureKind.MISSED_GRASP,
            "fingers_closed_on_nothing" if gap < 0.5 * width else "not_between_fingers",
            detail=f"finger gap {gap * 1000:.1f} mm after closing on a {width * 1000:.0f} mm {args.object}",
            evidence=evidence,
        )
    z0 = float(reader.object_position(handle)[2])
    ctx.enter(prefix + "lift")
    yield from ctx.play(ctx.straight(lift, lift_len), allowed=set(support), carrying=handle.body)
    rise = float(reader.object_position(handle)[2]) - z0
    if rise < 0.5 * args.grasp.lift_height or reader.holding() != args.object:
        yield from ctx.move_gripper(arm.MAX_OPENING)
        raise SkillFailure(
            FailureKind.MISSED_GRASP,
            "object_not_lifted",
            detail=f"{args.object} rose {rise * 1000:.0f} mm of {args.grasp.lift_height * 1000:.0f} mm",
            evidence={
                "object": args.object,
                "rise_m": round(rise, 4),
                "finger_gap": round(reader.gripper_opening(), 4),
            },
        )
    return {
        "object": args.object,
        "object_position": rounded(reader.object_position(handle)),
        "finger_gap": round(reader.gripper_opening(), 4),
    }


def _support_body(ctx: SkillContext, handle: ObjectHandle) -> set[int]:
    """Bodies the object rests on now (world body 0 for the table)."""
    contacts = ctx.reader.contacts()
    owner = ctx.reader.supported_by(handle, contacts, held=None)
    if owner is None:
        return set()
    if owner == "table":
        return {0}
    if owner in ctx.index.objects:
        return {ctx.index.objects[owner].body}
    drawer = ctx.index.drawer
    if drawer is not None and owner == drawer.spec.drawer_id:
        return {drawer.body}
    if drawer is not None and owner == drawer.spec.id:
        return {drawer.cabinet_body}
    return set()


def pick(ctx: SkillContext, args: PickArgs) -> SkillGenerator:
    """Grasp an object from above and lift it; success means it is held, off its support."""
    evidence = yield from _pick(ctx, args)
    return SkillResult.ok("holding", evidence=evidence)


def _place_target(
    ctx: SkillContext, target: str, held: str, release_height: float
) -> tuple[FloatArray, set[int], float | None, str]:
    """Where the held object's centre should end up, what it may touch there, a yaw to align with, and the kind."""
    reader = ctx.reader
    held_spec = ctx.index.objects[held].spec
    half = held_spec.size[2] / 2
    if target == held:
        raise SkillFailure(
            FailureKind.PRECONDITION_FAILED, "target_is_held", detail=f"cannot place {held} on itself", evidence={}
        )
    if target == "table":
        spot = _free_table_spot(ctx, held)
        return np.array([spot[0], spot[1], half + release_height]), {0}, None, "table"
    drawer = ctx.index.drawer
    if drawer is not None and target == drawer.spec.drawer_id:
        fraction = reader.drawer_fraction(drawer)
        if fraction < 0.6:
            raise SkillFailure(
                FailureKind.PRECONDITION_FAILED,
                "drawer_closed",
                detail=f"{target} is {fraction:.0%} open; open it before placing into it",
                evidence={"drawer": target, "open_fraction": round(fraction, 3)},
            )
        lo, hi = mjcf.drawer_box(drawer.spec)
        exposed = hi[0] - 0.5 * drawer.spec.drawer_travel * fraction
        local = np.array([exposed, 0.5 * (lo[1] + hi[1]), hi[2] + half + 0.02])
        mat = ctx.backend.data.xmat[drawer.body].reshape(3, 3)
        return ctx.backend.data.xpos[drawer.body] + mat @ local, {drawer.body}, None, "drawer"
    handle = ctx.find_object(target)
    pos = reader.object_position(handle)
    top = reader.object_top(handle)
    if handle.spec.category == "bowl":
        return np.array([pos[0], pos[1], top + half + 0.02]), {handle.body}, None, "bowl"
    align = reader.object_yaw(handle) if handle.spec.category == "cube" else None
    return np.array([pos[0], pos[1], top + half + release_height]), {handle.body}, align, handle.spec.category


def _free_table_spot(ctx: SkillContext, held: str) -> tuple[float, float]:
    """The reachable free spot on the table nearest the gripper, for place_on(table)."""
    reader = ctx.reader
    grip, _ = reader.grip_pose()
    held_radius = ctx.index.objects[held].spec.footprint_radius
    others = [
        (reader.object_position(h), h.spec.footprint_radius)
        for h in ctx.index.objects.values()
        if h.spec.id != held and h.spec.id not in ctx.backend.removed_objects
    ]
    rnd = ctx.index.scene.randomisation
    best: tuple[float, float] | None = None
    best_d = math.inf
    for x in np.arange(rnd.x[0], rnd.x[1] + 1e-9, 0.02):
        for y in np.arange(rnd.y[0], rnd.y[1] + 1e-9, 0.02):
            if any(math.hypot(x - p[0], y - p[1]) < held_radius + r + 0.03 for p, r in others):
                continue
            d = math.hypot(x - grip[0], y - grip[1])
            if d < best_d and arm.topdown_seed((x, y, 0.1), 0.0) is not None:
                best, best_d = (float(x), float(y)), d
    if best is None:
        raise SkillFailure(
            FailureKind.UNREACHABLE, "no_free_spot", detail="no free reachable spot on the table", evidence={}
        )
    return best


def _place(
    ctx: SkillContext, args: PlaceOnArgs, prefix: str = ""
) -> Generator[TickCommand, None, dict[str, JsonValue]]:
    ctx.enter(prefix + "plan")
    reader = ctx.reader
    held = reader.holding()
    if held is None:
        raise SkillFailure(
            FailureKind.PRECONDITION_FAILED,
            "gripper_empty",
            detail=f"place_on({args.target}) needs an object in the gripper",
            evidence={"target": args.target},
        )
    centre, allowed, align, kind = _place_target(ctx, args.target, held, args.release_height)
    handle = ctx.index.objects[held]
    ctx.sync_planner()
    held_pose = ctx.held_object(held)
    q_now = reader.arm_q()
    _, rot_now = reader.grip_pose()
    yaw_now = finger_yaw(rot_now)
    yaw = yaw_now
    if align is not None:
        quarter = math.pi / 2
        yaw = yaw_now + ((align - yaw_now + quarter / 2) % quarter - quarter / 2)
    grip = centre.copy()
    q_place = q_now
    for _ in range(3):  # the grip target depends on the orientation IK picks (roll modulo pi)
        q_place = ctx.ik_topdown(grip, yaw, f"place pose over {args.target}")
        _, rot = ctx.kin.forward(q_place)
        grip = centre - rot @ held_pose.position_in_grip
    q_place = ctx.ik_topdown(grip, yaw, f"place pose over {args.target}")
    pre = grip + up(0.10)
    q_pre = ctx.ik_topdown(pre, yaw, f"approach pose over {args.target}")
    lower, lower_len = ctx.line(q_pre, grip, f"place pose over {args.target}")
    ctx.sync_planner()
    transit = ctx.transit(q_pre, f"approach pose over {args.target}", opening=reader.gripper_opening(), held=held_pose)
    ctx.check(
        lower, f"place pose over {args.target}", opening=reader.gripper_opening(), held=held_pose, allowed=allowed
    )

    ctx.enter(prefix + "transit")
    yield from ctx.play(transit, carrying=handle.body)
    ctx.enter(prefix + "lower")
    yield from ctx.play(ctx.straight(lower, lower_len), allowed=allowed, carrying=handle.body)
    ctx.enter(prefix + "release")
    yield from ctx.move_gripper(arm.MAX_OPENING, allowed={*allowed, handle.body})
    ctx.enter(prefix + "retreat")
    rise = ctx.straight(lower[::-1].copy(), lower_len)
    yield from ctx.play(rise, allowed={*allowed, handle.body})
    yield from ctx.wait(0.2)
    contacts = reader.contacts()
    still_held = reader.holding(contacts)
    on = reader.supported_by(handle, contacts, still_held)
    inside = reader.inside(handle, ctx.backend.removed_objects)
    evidence: dict[str, JsonValue] = {
        "object": held,
        "target": args.target,
        "object_position": rounded(reader.object_position(handle)),
        "supported_by": on,
        "inside": inside,
    }
    expected = "table" if kind == "table" else args.target
    if still_held is not None or (on != expected and inside != expected):
        raise SkillFailure(
            FailureKind.POSTCONDITION_FAILED,
            "not_on_target",
            detail=f"{held} ended on {on or 'nothing'} (inside {inside or 'nothing'}), not {expected}",
            evidence=evidence,
        )
    return evidence


def place_on(ctx: SkillContext, args: PlaceOnArgs) -> SkillGenerator:
    """Put the held object on (or into) a target and let go; success means it rests there."""
    evidence = yield from _place(ctx, args)
    return SkillResult.ok("placed", evidence=evidence)


def stack(ctx: SkillContext, args: StackArgs) -> SkillGenerator:
    """Pick one object and place it on another in one call."""
    ctx.find_object(args.base)
    picked = yield from _pick(ctx, PickArgs(object=args.object), prefix="pick:")
    placed = yield from _place(ctx, PlaceOnArgs(target=args.base), prefix="place:")
    return SkillResult.ok("stacked", evidence={"pick": picked, "place": placed})


# -- home ---------------------------------------------------------------------------------------------


def home(ctx: SkillContext, args: HomeArgs) -> SkillGenerator:
    """Return to the home pose, keeping whatever is held."""
    ctx.enter("plan")
    goal = np.array(arm.HOME_Q)
    held = ctx.holding()
    ctx.sync_planner()
    held_pose = ctx.held_object(held) if held is not None else None
    carrying = ctx.index.objects[held].body if held is not None else None
    plan = ctx.transit(goal, "home pose", opening=ctx.reader.gripper_opening(), held=held_pose)
    ctx.enter("move")
    yield from ctx.play(plan, carrying=carrying)
    error = float(np.max(np.abs(ctx.reader.arm_q() - goal)))
    if not ctx.reader.at_home():
        raise SkillFailure(
            FailureKind.POSTCONDITION_FAILED,
            "not_at_home",
            detail=f"largest joint error {error:.3f} rad after the move",
            evidence={"joint_error": round(error, 4)},
        )
    return SkillResult.ok("at_home", evidence={"joint_error": round(error, 4), "holding": held})


# -- push and tap ---------------------------------------------------------------------------------------

_DIRECTIONS: dict[str, tuple[float, float]] = {
    "forward": (1.0, 0.0),
    "back": (-1.0, 0.0),
    "left": (0.0, 1.0),
    "right": (0.0, -1.0),
}


def push(ctx: SkillContext, args: PushArgs) -> SkillGenerator:
    """Slide an object along the table with closed fingers; success means it moved about that far that way."""
    ctx.enter("plan")
    handle = ctx.find_object(args.object)
    ctx.require_empty_gripper()
    reader = ctx.reader
    ctx.sync_planner()
    direction = np.array([*_DIRECTIONS[args.direction], 0.0])
    pos0 = reader.object_position(handle)
    rel = math.atan2(direction[1], direction[0]) - reader.object_yaw(handle)
    half = 0.5 * handle.spec.size[0] * (abs(math.cos(rel)) + abs(math.sin(rel)))
    gap = 0.025
    height = reader.object_bottom(handle) + FINGERTIP_BEYOND_GRIP + 0.006
    start = np.array([pos0[0], pos0[1], height]) - direction * (half + arm.FINGER_THICKNESS + gap)
    end = start + direction * (args.distance + gap)
    yaw = math.atan2(direction[1], direction[0]) + math.pi / 2
    q_pre = ctx.ik_topdown(start + up(0.10), yaw, f"approach pose beside {args.object}")
    down, down_len = ctx.line(q_pre, start, f"start of the push of {args.object}")
    stroke, stroke_len = ctx.line(down[-1], end, f"end of the push of {args.object}")
    retreat, retreat_len = ctx.line(stroke[-1], end + up(0.10), f"retreat after pushing {args.object}")
    transit = ctx.transit(q_pre, f"approach pose beside {args.object}", opening=0.0)
    ctx.check(down, f"start of the push of {args.object}", opening=0.0)
    ctx.check(stroke, f"push of {args.object}", opening=0.0, allowed={handle.body})

    ctx.enter("approach")
    ctx.gripper = 0.0
    yield from ctx.play(transit)
    yield from ctx.play(ctx.straight(down, down_len))
    ctx.enter("push")
    yield from ctx.play(ctx.straight(stroke, stroke_len), allowed={handle.body})
    ctx.enter("retreat")
    yield from ctx.play(ctx.straight(retreat, retreat_len), allowed={handle.body})
    yield from ctx.wait(0.2)
    moved = reader.object_position(handle) - pos0
    along = float(moved @ direction)
    across = float(np.linalg.norm(moved[:2] - along * direction[:2]))
    evidence: dict[str, JsonValue] = {
        "object": args.object,
        "direction": args.direction,
        "moved_along_m": round(along, 4),
        "moved_across_m": round(across, 4),
        "object_position": rounded(reader.object_position(handle)),
    }
    if along < 0.5 * args.distance or across > 0.03:
        raise SkillFailure(
            FailureKind.POSTCONDITION_FAILED,
            "object_not_moved",
            detail=f"{args.object} moved {along * 1000:.0f} mm {args.direction} (wanted {args.distance * 1000:.0f})",
            evidence=evidence,
        )
    return SkillResult.ok("pushed", evidence=evidence)


def tap(ctx: SkillContext, args: TapArgs) -> SkillGenerator:
    """Touch an object's top with the closed fingertips and come back; success means touched, not moved."""
    ctx.enter("plan")
    handle = ctx.find_object(args.object)
    reader = ctx.reader
    ctx.sync_planner()
    pos0 = reader.object_position(handle)
    touch = np.array([pos0[0], pos0[1], reader.object_top(handle) + FINGERTIP_BEYOND_GRIP - 0.003])
    yaw = _grasp_yaw(reader.object_yaw(handle), touch)
    q_pre = ctx.ik_topdown(touch + up(0.10), yaw, f"pose above {args.object}")
    down, down_len = ctx.line(q_pre, touch, f"top of {args.object}")
    transit = ctx.transit(q_pre, f"pose above {args.object}", opening=0.0)
    ctx.check(down, f"top of {args.object}", opening=0.0, allowed={handle.body})

    ctx.enter("approach")
    ctx.gripper = 0.0
    yield from ctx.play(transit)
    ctx.enter("touch")
    touched = 0.0
    for command in ctx.play(ctx.straight(down, down_len), allowed={handle.body}, settle=False):
        yield command
        touched = max(touched, _finger_force_on(ctx, handle))
    for command in ctx.wait(0.15):
        yield command
        touched = max(touched, _finger_force_on(ctx, handle))
    ctx.enter("retreat")
    yield from ctx.play(ctx.straight(down[::-1].copy(), down_len), allowed={handle.body})
    moved = float(np.linalg.norm(reader.object_position(handle) - pos0))
    evidence: dict[str, JsonValue] = {
        "object": args.object,
        "contact_force_n": round(touched, 2),
        "moved_m": round(moved, 4),
    }
    if moved > 0.015:
        raise SkillFailure(
            FailureKind.COLLISION,
            "object_disturbed",
            detail=f"{args.object} moved {moved * 1000:.0f} mm when tapped",
            evidence=evidence,
        )
    if touched <= 0.0:
        raise SkillFailure(
            FailureKind.POSTCONDITION_FAILED, "no_contact", detail=f"never touched {args.object}", evidence=evidence
        )
    return SkillResult.ok("tapped", evidence=evidence)


def _finger_force_on(ctx: SkillContext, handle: ObjectHandle) -> float:
    """Normal force between the finger pads and an object, from the live contacts."""
    model, data = ctx.backend.model, ctx.backend.data
    total = 0.0
    force = np.zeros(6)
    for k in range(data.ncon):
        g1, g2 = int(data.contact.geom1[k]), int(data.contact.geom2[k])
        b1, b2 = int(model.geom_bodyid[g1]), int(model.geom_bodyid[g2])
        if (b1 == handle.body and g2 in ctx.index.finger_geoms) or (b2 == handle.body and g1 in ctx.index.finger_geoms):
            mujoco.mj_contactForce(model, data, k, force)
            total += abs(float(force[0]))
    return total


# -- pour -----------------------------------------------------------------------------------------------


def _axis_rotation(axis: FloatArray, angle: float) -> FloatArray:
    """Rotation matrix of ``angle`` radians about the unit ``axis`` (Rodrigues)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.asarray(np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k), dtype=float)


def _tilt_paths(ctx: SkillContext, q_upright: FloatArray, grip: FloatArray, tilt: float) -> Iterator[FloatArray]:
    """Joint samples turning the hand by ``tilt`` about a horizontal axis through the grip point.

    Yields, in order of preference, the tilts IK can follow smoothly inside
    the joint limits: across the arm (in its vertical plane, outward then
    inward), then along it (the forearm roll does the work).
    """
    _, upright = ctx.kin.forward(q_upright)
    radial = np.array([grip[0], grip[1], 0.0]) / max(1e-9, math.hypot(grip[0], grip[1]))
    across = np.array([-radial[1], radial[0], 0.0])
    for axis in (across, -across, radial, -radial):
        q = q_upright
        samples = [q]
        for s in np.linspace(0.0, 1.0, 10)[1:]:
            target = _axis_rotation(axis, s * tilt) @ upright
            solution = ctx.kin.solve(grip, target, q, max_iter=100)
            if not solution.ok or not arm.within_limits(solution.q, margin=0.02):
                break
            if float(np.max(np.abs(solution.q - q))) > 0.8:  # a jump: IK switched branch
                break
            q = solution.q
            samples.append(q)
        else:
            yield np.array(samples)


def pour(ctx: SkillContext, args: PourArgs) -> SkillGenerator:
    """Hold the source above the target, tilt it, hold, and bring it upright; success means still held."""
    ctx.enter("plan")
    reader = ctx.reader
    source = ctx.find_object(args.source)
    if reader.holding() != args.source:
        raise SkillFailure(
            FailureKind.PRECONDITION_FAILED,
            "not_holding_source",
            detail=f"pour needs {args.source} in the gripper (holding {reader.holding() or 'nothing'})",
            evidence={"source": args.source, "holding": reader.holding()},
        )
    target = ctx.find_object(args.target)
    if target.spec.id == source.spec.id:
        raise SkillFailure(FailureKind.PRECONDITION_FAILED, "target_is_source", detail="cannot pour into itself")
    ctx.sync_planner()
    held_pose = ctx.held_object(args.source)
    tpos = reader.object_position(target)
    _, rot_now = reader.grip_pose()
    yaw = finger_yaw(rot_now)
    grip = np.array([tpos[0], tpos[1], reader.object_top(target) + source.spec.size[2] + 0.08])
    q_above = ctx.ik_topdown(grip, yaw, f"pose above {args.target}")
    transit = ctx.transit(q_above, f"pose above {args.target}", opening=reader.gripper_opening(), held=held_pose)
    what = f"{args.tilt_deg:g} degree tilt over {args.target}"
    tilt: FloatArray | None = None
    blocked: SkillFailure | None = None
    for candidate in _tilt_paths(ctx, q_above, grip, math.radians(args.tilt_deg)):
        try:
            ctx.check(candidate, what, opening=reader.gripper_opening(), held=held_pose)
        except SkillFailure as failure:
            blocked = blocked or failure
            continue
        tilt = candidate
        break
    if tilt is None:
        raise blocked or ctx.unreachable(what, grip, "the wrist cannot tilt that far here")

    ctx.enter("transit")
    yield from ctx.play(transit, carrying=source.body)
    ctx.enter("tilt")
    tilt_traj = JointTrajectory.through(tilt, speed_scale=ctx.speed_scale)
    max_tilt = 0.0
    for command in ctx.play(tilt_traj, carrying=source.body):
        yield command
        max_tilt = max(max_tilt, reader.object_tilt(source))
    ctx.enter("hold")
    yield from ctx.wait(0.5)
    ctx.enter("untilt")
    yield from ctx.play(JointTrajectory.through(tilt[::-1].copy(), speed_scale=ctx.speed_scale), carrying=source.body)
    spos = reader.object_position(source)
    evidence: dict[str, JsonValue] = {
        "source": args.source,
        "target": args.target,
        "max_tilt_deg": round(math.degrees(max_tilt), 1),
        "over_target_m": round(math.hypot(spos[0] - tpos[0], spos[1] - tpos[1]), 4),
        "holding": reader.holding(),
    }
    if reader.holding() != args.source:
        raise SkillFailure(
            FailureKind.POSTCONDITION_FAILED, "dropped_source", detail=f"{args.source} fell out", evidence=evidence
        )
    return SkillResult.ok("poured", evidence=evidence)


# -- the drawer -----------------------------------------------------------------------------------------


def open_drawer(ctx: SkillContext, args: DrawerArgs) -> SkillGenerator:
    """Grasp the handle from the front, pull the drawer out, let go and back off; success means open."""
    ctx.enter("plan")
    drawer = ctx.find_drawer(args.drawer)
    reader = ctx.reader
    fraction = reader.drawer_fraction(drawer)
    if fraction >= 0.9:
        return SkillResult.ok("already_open", evidence={"drawer": args.drawer, "open_fraction": round(fraction, 3)})
    ctx.require_empty_gripper()
    ctx.sync_planner()
    handle = reader.handle_position(drawer)
    axis = reader.drawer_axis(drawer)
    grasp = handle.copy()
    offset = ctx.backend.faults.grasp_offset(ctx.skill, 0.0, ctx.backend.sim_time)
    if offset is not None:
        grasp[2] += math.hypot(*offset)  # a perception error upwards: the fingers close above the handle
    travel = drawer.spec.drawer_travel * (0.97 - fraction)
    pre = grasp + axis * 0.08
    q_pre = _ik_horizontal(ctx, pre, -axis, f"approach pose in front of {args.drawer}")
    reach, reach_len = ctx.line(q_pre, grasp, f"handle of {args.drawer}", locked=())
    pull, pull_len = ctx.line(reach[-1], grasp + axis * travel, f"pull of {args.drawer}", locked=())
    bodies = {drawer.body}
    transit = ctx.transit(q_pre, f"approach pose in front of {args.drawer}", opening=arm.MAX_OPENING)
    ctx.check(reach, f"handle of {args.drawer}", opening=arm.MAX_OPENING, allowed=bodies)
    ctx.check(pull, f"pull of {args.drawer}", opening=2 * HANDLE_RADIUS, allowed=bodies)

    ctx.enter("approach")
    ctx.gripper = arm.MAX_OPENING
    yield from ctx.play(transit)
    yield from ctx.play(ctx.straight(reach, reach_len), allowed=bodies)
    ctx.enter("grasp")
    yield from ctx.move_gripper(0.0, allowed=bodies)
    gap = reader.gripper_opening()
    if gap < HANDLE_RADIUS:
        yield from ctx.move_gripper(arm.MAX_OPENING, allowed=bodies)
        yield from ctx.play(ctx.straight(reach[::-1].copy(), reach_len), allowed=bodies)
        raise SkillFailure(
            FailureKind.MISSED_GRASP,
            "fingers_closed_on_nothing",
            detail=f"finger gap {gap * 1000:.1f} mm after closing on the {args.drawer} handle",
            evidence={"drawer": args.drawer, "finger_gap": round(gap, 4), "grasp_target": rounded(grasp)},
        )
    ctx.enter("pull")
    yield from ctx.play(ctx.straight(pull, pull_len), allowed=bodies)
    ctx.enter("release")
    yield from ctx.move_gripper(arm.MAX_OPENING, allowed=bodies)
    ctx.enter("retreat")
    back, back_len = ctx.line(
        reader.arm_q(), reader.grip_pose()[0] + axis * 0.06, f"retreat from {args.drawer}", locked=()
    )
    yield from ctx.play(ctx.straight(back, back_len), allowed=bodies)
    fraction = reader.drawer_fraction(drawer)
    evidence: dict[str, JsonValue] = {"drawer": args.drawer, "open_fraction": round(fraction, 3)}
    if fraction < 0.8:
        raise SkillFailure(
            FailureKind.POSTCONDITION_FAILED,
            "drawer_not_open",
            detail=f"{args.drawer} is {fraction:.0%} open after pulling",
            evidence=evidence,
        )
    return SkillResult.ok("opened", evidence=evidence)


def close_drawer(ctx: SkillContext, args: DrawerArgs) -> SkillGenerator:
    """Push the drawer shut with closed fingertips against the handle; success means closed."""
    ctx.enter("plan")
    drawer = ctx.find_drawer(args.drawer)
    reader = ctx.reader
    fraction = reader.drawer_fraction(drawer)
    if fraction <= 0.05:
        return SkillResult.ok("already_closed", evidence={"drawer": args.drawer, "open_fraction": round(fraction, 3)})
    ctx.sync_planner()
    handle = reader.handle_position(drawer)
    axis = reader.drawer_axis(drawer)
    standoff = FINGERTIP_BEYOND_GRIP + HANDLE_RADIUS
    start = handle + axis * (standoff + 0.02)
    end = handle - axis * (float(ctx.backend.data.qpos[drawer.qpos]) - standoff + 0.004)
    q_pre = _ik_horizontal(ctx, start + axis * 0.05, -axis, f"pose in front of {args.drawer}")
    reach, reach_len = ctx.line(q_pre, start, f"handle of {args.drawer}", locked=())
    stroke, stroke_len = ctx.line(reach[-1], end, f"push of {args.drawer}", locked=())
    bodies = {drawer.body}
    transit = ctx.transit(q_pre, f"pose in front of {args.drawer}", opening=0.0)
    ctx.check(reach, f"handle of {args.drawer}", opening=0.0)
    # The planner's snapshot has the drawer standing still; in fact it slides ahead of the hand,
    # carrying what is in it, so those objects are no obstacle to the push.
    riding = {
        h.body for h in ctx.index.objects.values() if reader.inside(h, ctx.backend.removed_objects) == args.drawer
    }
    ctx.check(stroke, f"push of {args.drawer}", opening=0.0, allowed=bodies | riding)

    ctx.enter("approach")
    ctx.gripper = 0.0
    yield from ctx.play(transit)
    yield from ctx.play(ctx.straight(reach, reach_len))
    ctx.enter("push")
    yield from ctx.play(ctx.straight(stroke, stroke_len), allowed=bodies)
    ctx.enter("retreat")
    back, back_len = ctx.line(
        reader.arm_q(), reader.grip_pose()[0] + axis * 0.08, f"retreat from {args.drawer}", locked=()
    )
    yield from ctx.play(ctx.straight(back, back_len), allowed=bodies)
    fraction = reader.drawer_fraction(drawer)
    evidence: dict[str, JsonValue] = {"drawer": args.drawer, "open_fraction": round(fraction, 3)}
    if fraction > 0.05:
        raise SkillFailure(
            FailureKind.POSTCONDITION_FAILED,
            "drawer_not_closed",
            detail=f"{args.drawer} is still {fraction:.0%} open after pushing",
            evidence=evidence,
        )
    return SkillResult.ok("closed", evidence=evidence)


def _ik_horizontal(ctx: SkillContext, position: FloatArray, approach: FloatArray, what: str) -> FloatArray:
    solution = ctx.kin.solve_horizontal(position, approach)
    if solution is None:
        raise ctx.unreachable(what, position, "no horizontal approach reaches it")
    return solution.q


# -- the registry -----------------------------------------------------------------------------------------

SkillBody = Callable[[SkillContext, BaseModel], SkillGenerator]


class SkillSpec:
    """A skill's name, argument model, phases (for progress) and body."""

    def __init__(self, name: str, args: type[BaseModel], phases: tuple[str, ...], body: Callable[..., SkillGenerator]):
        self.name = name
        self.args = args
        self.phases = phases
        self.body = body

    def parse(self, raw: dict[str, JsonValue]) -> BaseModel:
        """Validated arguments, or ``invalid_params`` naming the bad field."""
        try:
            return self.args.model_validate(raw)
        except ValidationError as err:
            first = err.errors(include_url=False)[0]
            field = ".".join(str(p) for p in first["loc"]) or "(args)"
            raise SkillFailure(
                FailureKind.INVALID_PARAMS,
                "invalid_args",
                detail=f"{self.name}: {field}: {first['msg']}",
                evidence={"field": field, "message": str(first["msg"])},
            ) from None


SKILLS: dict[str, SkillSpec] = {
    spec.name: spec
    for spec in (
        SkillSpec("pick", PickArgs, PICK_PHASES, pick),
        SkillSpec("place_on", PlaceOnArgs, PLACE_PHASES, place_on),
        SkillSpec(
            "stack",
            StackArgs,
            tuple(f"pick:{p}" for p in PICK_PHASES) + tuple(f"place:{p}" for p in PLACE_PHASES),
            stack,
        ),
        SkillSpec("home", HomeArgs, ("plan", "move"), home),
        SkillSpec("push", PushArgs, ("plan", "approach", "push", "retreat"), push),
        SkillSpec("tap", TapArgs, ("plan", "approach", "touch", "retreat"), tap),
        SkillSpec("pour", PourArgs, ("plan", "transit", "tilt", "hold", "untilt"), pour),
        SkillSpec("open_drawer", DrawerArgs, ("plan", "approach", "grasp", "pull", "release", "retreat"), open_drawer),
        SkillSpec("close_drawer", DrawerArgs, ("plan", "approach", "push", "retreat"), close_drawer),
    )
}
"""Every scripted skill by name (the part after ``tabletop/`` in a manifest id)."""

"""Grasping: ``pick``, ``place_on`` and ``stack``, and what they share.

A pick approaches from above with the fingers open, descends, closes on the
object and lifts it; a place carries what is held above the target (a cube,
a plate, a bowl, the open drawer or a free spot on the table), lowers it,
opens and retreats; a stack is a pick and a place in one call, the place
taking the base as its target, each with its manifest's defaults::

    pick(object)         plan, approach, descend, close, lift
    place_on(target)     plan, transit, lower, release, retreat
    stack(object, base)  pick:<pick's phases>, then place:<place's phases>

``aligned_grasp_yaw`` (which of a cube's two face-aligned finger
directions needs the least wrist roll) is also how ``tap`` lines its
fingertips up.
"""

from __future__ import annotations

import math
from collections.abc import Generator

import numpy as np
import numpy.typing as npt
from pydantic import JsonValue

from bt_executive.sim import arm, mjcf
from bt_executive.sim.control import TickCommand
from bt_executive.sim.execution import SkillFailure, SkillGenerator
from bt_executive.sim.model_index import ObjectHandle
from bt_executive.sim.motions.arguments import ArgumentView, read_arguments, scripted_manifest
from bt_executive.sim.skill_context import SkillContext, finger_yaw, rounded, up
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind

FloatArray = npt.NDArray[np.float64]


class GraspArgs(ArgumentView):
    """How a pick approaches and lifts."""

    approach_height: float
    lift_height: float


class PickArgs(ArgumentView):
    """Arguments of ``pick``."""

    object: str
    grasp: GraspArgs


class PlaceOnArgs(ArgumentView):
    """Arguments of ``place_on``."""

    target: str
    release_height: float


class StackArgs(ArgumentView):
    """Arguments of ``stack``."""

    object: str
    base: str


PICK_PHASES = ("plan", "approach", "descend", "close", "lift")
PLACE_PHASES = ("plan", "transit", "lower", "release", "retreat")


def aligned_grasp_yaw(object_yaw: float, position: FloatArray) -> float:
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
    grasp_yaw = aligned_grasp_yaw(reader.object_yaw(handle), grasp)
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
    pick_args = read_arguments("pick", scripted_manifest("pick", PickArgs), PickArgs, {"object": args.object})
    place_args = read_arguments(
        "place_on", scripted_manifest("place_on", PlaceOnArgs), PlaceOnArgs, {"target": args.base}
    )
    picked = yield from _pick(ctx, pick_args, prefix="pick:")
    placed = yield from _place(ctx, place_args, prefix="place:")
    return SkillResult.ok("stacked", evidence={"pick": picked, "place": placed})

"""Contact without a grasp: ``push`` slides an object, ``tap`` touches its top.

Both close the fingers first and use the fingertips: a push lowers them
beside the object and slides it along the table in one of four directions
(as seen from the robot); a tap lowers them onto the top, measures the
contact force from the live contacts, and comes back up. A tap that moves
the object is a collision, not a tap.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
from pydantic import JsonValue

from bt_executive.sim import arm
from bt_executive.sim.arm import FINGERTIP_BEYOND_GRIP
from bt_executive.sim.execution import SkillFailure, SkillGenerator
from bt_executive.sim.model_index import ObjectHandle
from bt_executive.sim.motions.arguments import ArgumentView
from bt_executive.sim.motions.grasping import aligned_grasp_yaw
from bt_executive.sim.skill_context import SkillContext, postcondition, rounded, up
from bt_executive.skills.failures import FailureKind


class PushArgs(ArgumentView):
    """Arguments of ``push``."""

    object: str
    direction: str
    distance: float


class TapArgs(ArgumentView):
    """Arguments of ``tap``."""

    object: str


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
    return postcondition(
        "pushed",
        evidence,
        failed=along < 0.5 * args.distance or across > 0.03,
        reason="object_not_moved",
        detail=f"{args.object} moved {along * 1000:.0f} mm {args.direction} (wanted {args.distance * 1000:.0f})",
    )


def tap(ctx: SkillContext, args: TapArgs) -> SkillGenerator:
    """Touch an object's top with the closed fingertips and come back; success means touched, not moved."""
    ctx.enter("plan")
    handle = ctx.find_object(args.object)
    reader = ctx.reader
    ctx.sync_planner()
    pos0 = reader.object_position(handle)
    touch = np.array([pos0[0], pos0[1], reader.object_top(handle) + FINGERTIP_BEYOND_GRIP - 0.003])
    yaw = aligned_grasp_yaw(reader.object_yaw(handle), touch)
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
    return postcondition(
        "tapped", evidence, failed=touched <= 0.0, reason="no_contact", detail=f"never touched {args.object}"
    )


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

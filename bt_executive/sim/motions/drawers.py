"""The cabinet drawer: ``open_drawer`` pulls it by the handle, ``close_drawer`` pushes it shut.

Both approach the handle horizontally from the front. Opening grasps the
handle with open fingers, pulls along the slide and lets go; closing pushes
the handle back with closed fingertips, the objects riding in the drawer
being no obstacle. Each ends with a check of how far open the drawer is, and
a drawer already in the wanted state is a success without a move.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from pydantic import JsonValue

from bt_executive.sim import arm
from bt_executive.sim.arm import FINGERTIP_BEYOND_GRIP
from bt_executive.sim.execution import SkillFailure, SkillGenerator
from bt_executive.sim.model_index import DrawerHandle
from bt_executive.sim.motions.arguments import ArgumentView
from bt_executive.sim.skill_context import SkillContext, postcondition, rounded
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind

FloatArray = npt.NDArray[np.float64]

HANDLE_RADIUS = 0.008


@dataclass(frozen=True)
class _Wanted:
    """Where a drawer skill wants the drawer: the outcome it reports there, and the failure where it is not."""

    outcome: str
    reason: str
    missed: Callable[[float], bool]
    """Whether the open fraction after the move misses the goal."""
    detail: str
    """The failure's detail, formatted with ``drawer`` and ``fraction``."""


_OPENED = _Wanted("opened", "drawer_not_open", lambda f: f < 0.8, "{drawer} is {fraction:.0%} open after pulling")
_CLOSED = _Wanted(
    "closed", "drawer_not_closed", lambda f: f > 0.05, "{drawer} is still {fraction:.0%} open after pushing"
)


class DrawerArgs(ArgumentView):
    """Arguments of ``open_drawer`` and ``close_drawer``."""

    drawer: str


def open_drawer(ctx: SkillContext, args: DrawerArgs) -> SkillGenerator:
    """Grasp the handle from the front, pull the drawer out, let go and back off; success means open."""
    ctx.enter("plan")
    drawer = ctx.find_drawer(args.drawer)
    reader = ctx.reader
    fraction = reader.drawer_fraction(drawer)
    if fraction >= 0.9:
        return SkillResult.ok("already_open", evidence=_opening(args.drawer, fraction))
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
    return (yield from _back_off(ctx, drawer, axis * 0.06, bodies, _OPENED))


def close_drawer(ctx: SkillContext, args: DrawerArgs) -> SkillGenerator:
    """Push the drawer shut with closed fingertips against the handle; success means closed."""
    ctx.enter("plan")
    drawer = ctx.find_drawer(args.drawer)
    reader = ctx.reader
    fraction = reader.drawer_fraction(drawer)
    if fraction <= 0.05:
        return SkillResult.ok("already_closed", evidence=_opening(args.drawer, fraction))
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
    return (yield from _back_off(ctx, drawer, axis * 0.08, bodies, _CLOSED))


def _back_off(
    ctx: SkillContext, drawer: DrawerHandle, offset: FloatArray, bodies: set[int], wanted: _Wanted
) -> SkillGenerator:
    """Back the hand ``offset`` away from the handle in a straight line; then the outcome, if the drawer is there."""
    ctx.enter("retreat")
    reader = ctx.reader
    drawer_id = drawer.spec.drawer_id
    back, back_len = ctx.line(reader.arm_q(), reader.grip_pose()[0] + offset, f"retreat from {drawer_id}", locked=())
    yield from ctx.play(ctx.straight(back, back_len), allowed=bodies)
    fraction = reader.drawer_fraction(drawer)
    return postcondition(
        wanted.outcome,
        _opening(drawer_id, fraction),
        failed=wanted.missed(fraction),
        reason=wanted.reason,
        detail=wanted.detail.format(drawer=drawer_id, fraction=fraction),
    )


def _opening(drawer_id: str, fraction: float) -> dict[str, JsonValue]:
    """The evidence of every drawer outcome: which drawer, and how far open it is."""
    return {"drawer": drawer_id, "open_fraction": round(fraction, 3)}


def _ik_horizontal(ctx: SkillContext, position: FloatArray, approach: FloatArray, what: str) -> FloatArray:
    solution = ctx.kin.solve_horizontal(position, approach)
    if solution is None:
        raise ctx.unreachable(what, position, "no horizontal approach reaches it")
    return solution.q

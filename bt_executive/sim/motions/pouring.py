"""``pour``: hold the source above a container, tilt the wrist, hold, bring it upright.

The tilt is planned as joint samples that turn the hand about a horizontal
axis through the grip point, trying across the arm before along it, and the
first path that is collision-free is played; success means the source is
still held afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
from pydantic import JsonValue

from bt_executive.sim import arm
from bt_executive.sim.execution import SkillFailure, SkillGenerator
from bt_executive.sim.motions.arguments import ArgumentView
from bt_executive.sim.skill_context import SkillContext, finger_yaw, postcondition
from bt_executive.sim.trajectory import JointTrajectory
from bt_executive.skills.failures import FailureKind

FloatArray = npt.NDArray[np.float64]


class PourArgs(ArgumentView):
    """Arguments of ``pour``."""

    source: str
    target: str
    tilt_deg: float


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
    return postcondition(
        "poured",
        evidence,
        failed=reader.holding() != args.source,
        reason="dropped_source",
        detail=f"{args.source} fell out",
    )

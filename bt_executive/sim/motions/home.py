"""``home``: back to the home pose above the table, keeping whatever is held.

Safe to call at any time, which makes it the usual recovery step: it plans
a transit (over the top when the direct way is blocked) and checks that the
arm arrived.
"""

from __future__ import annotations

import numpy as np

from bt_executive.sim import arm
from bt_executive.sim.execution import SkillFailure, SkillGenerator
from bt_executive.sim.motions.arguments import ArgumentView
from bt_executive.sim.skill_context import SkillContext
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind


class HomeArgs(ArgumentView):
    """``home`` takes no arguments."""


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

"""The task's goal, checked in the world after a plan's last step: ``done`` only when it holds.

::

    Plan #0                                      Sequence(memory)
    ├─ Step 1 · pick(red_cube)
    ├─ Step 2 · place_on(plate)
    └─ Goal · on(red_cube, plate)                Selector(memory)
       ├─ Goal? on(red_cube, plate)              GoalHolds: the plan's goal in the latest world state
       └─ Replan: goal not met                   replan within the budget, or end the task

Every step can succeed while the task is not done (a cube rolled off the
plate after the gripper opened). The plan's goal (``Plan.goal``) is the
task's own test; when it fails the planner is asked again with "goal not
met" as a failed attempt, within the replan budget. Without any world state
(no publisher) the goal cannot be checked: the outcome says so
(``goal_held`` None) rather than guessing, as Done?/Pre? do.
"""

from __future__ import annotations

import py_trees
from py_trees.common import Status

from bt_executive.llm.plan import Plan
from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.conditions import first_unmet
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.predicates import Predicate, parse_predicate
from bt_executive.trees.task_context import TaskContext

GOAL_NOT_MET = "goal_not_met"
"""The reason of the attempt a failed goal check records (what the replanner reads)."""

GOAL_CALL = SkillCall(skill="task/goal")
"""The call an empty plan's goal-check attempt names (an attempt needs one; no skill has this id)."""


def goal_label(goal: tuple[str, ...]) -> str:
    """``on(red_cube, plate), at_home`` for node names and summaries."""
    return ", ".join(str(parse_predicate(g)) for g in goal)


class GoalHolds(py_trees.behaviour.Behaviour):
    """SUCCESS when every predicate of the plan's goal holds in the latest world state; else FAILURE, recorded."""

    def __init__(self, context: TaskContext, plan: Plan, plan_index: int) -> None:
        super().__init__(f"Goal? {goal_label(plan.goal)}")
        self.context = context
        self.plan = plan
        self.plan_index = plan_index
        self.goal: list[Predicate] = [parse_predicate(g) for g in plan.goal]

    def update(self) -> Status:
        """Wait for a world state newer than the last result, then test the goal on it."""
        if self.context.world_is_stale():
            return Status.RUNNING
        world = self.context.current_world()
        if world is None:  # no world state at all (none published): nothing to check it on, as for Done?/Pre?
            self.feedback_message = "goal not checked: no world state"
            self.context.emit("goal_check", plan=self.plan_index, goal=list(self.plan.goal), held=None)
            return Status.SUCCESS
        unmet = first_unmet(self.goal, world)
        self.context.goal_held = unmet is None
        if unmet is None:
            self.feedback_message = "goal holds"
            self.context.emit("goal_check", plan=self.plan_index, goal=list(self.plan.goal), held=True)
            return Status.SUCCESS
        why = f"{unmet} does not hold"
        self.feedback_message = f"goal not met: {why}"
        self.context.goal_unmet = why
        self.context.emit("goal_check", plan=self.plan_index, goal=list(self.plan.goal), held=False, unmet=why)
        call = self.plan.steps[-1] if self.plan.steps else GOAL_CALL
        result = SkillResult.failed(
            FailureKind.POSTCONDITION_FAILED,
            GOAL_NOT_MET,
            detail=f"the task's goal is not met after the plan's last step: {why}",
            evidence={"goal": list(self.plan.goal), "unmet": str(unmet)},
        )
        self.context.attempts.append(
            AttemptRecord(plan_index=self.plan_index, step=len(self.plan.steps), call=call, result=result)
        )
        return Status.FAILURE

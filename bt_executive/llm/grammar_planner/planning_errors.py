"""The errors the grammar planner raises: refusals of a task, and steps it cannot plan."""

from __future__ import annotations

from bt_executive.llm.plan import PlannerError, PlannerRefused, RefusalKind


class MissingSkill(PlannerRefused):
    """The task needs a skill this robot's registry does not have."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, RefusalKind.MISSING_SKILL)


class NotAfforded(PlannerRefused):
    """The task asks for something an object does not allow (pick up the table)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, RefusalKind.NOT_AFFORDED)


class UndoesGoal(PlannerRefused):
    """A clause would take apart what an earlier clause of the task built ("put the red cube on the blue cube and
    the blue cube on the green cube": the blue cube must be cleared first, and the red cube is what is on it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, RefusalKind.AMBIGUOUS)


class UnplannableStep(PlannerError):
    """A step's precondition cannot hold where the plan would run it (unreachable object, nothing held...)."""


class SameObjectTwice(UnplannableStep):
    """A put names one object as both what moves and where it goes ("put the red cube on the red cube")."""


class RetriesExhausted(PlannerError):
    """A call failed again after its careful retry; replanning it once more would loop."""

"""The ExecuteTask intake: what a goal must be before the executive plans it, or starts anything for it.

A goal's ``task`` goes into a prompt, a run directory, log lines and the
viewer; its ``planner_profile`` names a profile. Both come from any client on
the robot's network, so both are checked first, before the running task is
preempted and before a run directory is made:

- ``task``: not empty or whitespace only, at most ``MAX_TASK_CHARS``
  characters, and prose text (tab and newline, no other control character:
  ``skills.text_rules``);
- ``planner_profile``: empty (the default) or one line of at most
  ``MAX_PROFILE_CHARS`` characters without control characters (an unknown
  name is the planner factory's ``planner_error``).

A bad goal is accepted and ends at once, aborted with final reason
``invalid_goal`` and a detail naming the field and what is wrong. ROS 2 has
no way to say why a goal was *rejected* (the client only sees
``accepted: false``), so rejecting would leave the user guessing; the result
can name the problem, and the running task is left alone either way. The
refusal never repeats the offending text (it may be 100 kB, or hold an
escape sequence), only where and what the problem is.
"""

from __future__ import annotations

from dataclasses import dataclass

from bt_executive.llm.plan import MAX_TASK_CHARS
from bt_executive.skills.text_rules import PROSE_WHITESPACE, control_character_problem

INVALID_GOAL = "invalid_goal"
"""The final reason of a goal refused at intake."""
INACTIVE = "inactive"
"""The final reason of a goal sent while the executive's lifecycle state is not ``active`` (same answer:
accepted, ended at once, the detail naming the state)."""

MAX_PROFILE_CHARS = 64
"""The longest profile name ``config/llm.yaml`` accepts."""


@dataclass(frozen=True)
class GoalRefusal:
    """Why a goal was refused: the goal field and the reason."""

    field: str
    reason: str

    def __str__(self) -> str:
        return f"goal.{self.field}: {self.reason}"


def check_goal(task: str, planner_profile: str = "") -> GoalRefusal | None:
    """The first problem with an ExecuteTask goal, or None when it may be planned."""
    if len(task) > MAX_TASK_CHARS:
        return GoalRefusal("task", f"{len(task)} characters; a task is at most {MAX_TASK_CHARS}")
    problem = control_character_problem(task, PROSE_WHITESPACE)
    if problem is not None:
        return GoalRefusal("task", problem)
    if not task.strip():
        return GoalRefusal("task", "empty: say what the robot should do" if not task else "only whitespace")
    if len(planner_profile) > MAX_PROFILE_CHARS:
        return GoalRefusal(
            "planner_profile", f"{len(planner_profile)} characters; a profile name is at most {MAX_PROFILE_CHARS}"
        )
    problem = control_character_problem(planner_profile)
    if problem is not None:
        return GoalRefusal("planner_profile", problem)
    return None

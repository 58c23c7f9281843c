"""``refuse(kind, reason)``: how a model says no, in both output modes.

A model that can only answer with skill calls plans *something* for every
task: asked for an object that is not there, it picked the table. So the
palette offers one more call, ``refuse``, with a kind from the closed
``RefusalKind`` set and a short reason. In tools mode it is a tool; in
structured mode it is one more ``oneOf`` branch of a step
(``{"skill": "refuse", "args": {"kind": "no_such_object", "reason": "..."}}``),
so a grammar-constrained model can choose it at the first step. A reply
holding a ``refuse`` call anywhere is a refusal of the whole task, never a
partial plan: the planner raises ``PlannerRefused`` and the task ends
``planner_refused`` with the model's reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bt_executive.llm.model.plan_validation import ProposedStep
from bt_executive.llm.plan import PlannerRefused, RefusalKind

REFUSE = "refuse"
"""The pseudo-skill and tool name (registry ids are ``owner/name``, so it can never name a real skill)."""

MAX_REASON = 200

REFUSE_DESCRIPTION = (
    "Refuse the whole task instead of planning it, when it is not a task for this robot, names an object that "
    "is not in the world, asks an object for what it cannot do, needs a skill the robot lacks, or is unsafe."
)


def refuse_args_schema() -> dict[str, Any]:
    """The JSON Schema of ``refuse``'s arguments."""
    return {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": [k.value for k in RefusalKind]},
            "reason": {"type": "string", "minLength": 1, "maxLength": MAX_REASON},
        },
        "required": ["kind", "reason"],
        "additionalProperties": False,
    }


def refuse_step_schema() -> dict[str, Any]:
    """The structured-mode step branch that refuses."""
    return {
        "type": "object",
        "properties": {"skill": {"const": REFUSE}, "args": refuse_args_schema()},
        "required": ["skill", "args"],
        "additionalProperties": False,
    }


def refuse_tool() -> dict[str, Any]:
    """The tools-mode tool that refuses, in the OpenAI format."""
    return {
        "type": "function",
        "function": {"name": REFUSE, "description": REFUSE_DESCRIPTION, "parameters": refuse_args_schema()},
    }


def refusal_in(steps: Sequence[ProposedStep]) -> PlannerRefused | str | None:
    """The refusal a reply's steps hold: PlannerRefused, a problem text for malformed arguments, or None."""
    for step in steps:
        if step.skill != REFUSE:
            continue
        kind, reason = step.args.get("kind"), step.args.get("reason")
        kinds = [k.value for k in RefusalKind]
        if kind not in kinds or not isinstance(reason, str) or not reason.strip():
            return f"refuse needs kind (one of {', '.join(kinds)}) and a non-empty reason"
        return PlannerRefused(f"the model refused: {' '.join(reason.split())[:MAX_REASON]}", RefusalKind(kind))
    return None

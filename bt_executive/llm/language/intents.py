"""The intent model: what a parsed task says, one intent per clause, and the error for a task outside the forms.

Everything downstream of the grammar (the grammar planner, the rewrite grammar, faithfulness checks)
reads a task through these types, so they live apart from the regular expressions that produce them::

    Intent(action=PUT, object="the red cube", target="the plate", relation="on", condition=Condition(...))
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.llm.language.lexicon import Order
from bt_executive.llm.language.quantities import Quantity
from bt_executive.llm.plan import PlannerError

GRAMMAR: tuple[str, ...] = (
    "pick (up) the X",
    "pick (up) the X (and|then|,) (put|place) (it) on|in (the) Y",
    "put|place the X on|onto|in|into (the) Y",
    "stack the X on (top of) the Y",
    "push the X forward|back|left|right|away from you|towards you",
    "pour the X into the Y",
    "tap|press|poke|touch the X",
    "open|close the D",
    "(go) home",
)
"""Every form the deterministic planner understands (verb synonyms in config/lexicon.yaml); X may be a
list ("the red and the blue cube") or quantified ("all the cubes"); chain forms with 'then', ',' or 'and'."""

LLM_PLANNER_HINT = "For free-form tasks use an LLM profile (--planner auto falls back to one, or --planner local)"

Direction = Literal["forward", "back", "left", "right"]


class IntentAction(StrEnum):
    """What one clause of a task asks for."""

    PICK = "pick"
    PUT = "put"  # pick (unless held) then place_on
    STACK = "stack"
    PUSH = "push"
    POUR = "pour"
    TAP = "tap"
    OPEN = "open"
    CLOSE = "close"
    HOME = "home"
    ACT = "act"  # any other verb: the skill is chosen from the manifests by the verb and the objects


class Condition(BaseModel):
    """What an "if" before a clause asks of the world ("if the drawer is closed, open it"): the planner
    checks it in the world as its steps leave it, and drops the clause when it does not hold."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: str | None = Field(description="the object phrase it is about; None: the robot's gripper")
    state: Literal["open", "closed", "holding", "empty"]
    clause: str = Field(description="the condition as written (normalised), for notes and errors")


class Intent(BaseModel):
    """One clause of a task, with its object phrases in the user's words.

    ``object`` is None for a pronoun ("put it on the plate"): the object of the
    previous clause, or the one in the gripper. It may name several objects
    ("the red and the blue cube", "all the cubes"); the planner expands those.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: IntentAction
    clause: str = Field(description="the clause as written (normalised), for notes and errors")
    object: str | None = None
    target: str | None = None
    relation: Literal["on", "in"] | None = None
    direction: Direction | None = None
    tower: bool = Field(default=False, description="stack the objects on each other (no target named)")
    excluding: str | None = Field(default=None, description="objects left out of a plural ('except the red one')")
    top: str | None = Field(default=None, description="the object a tower ends with ('with the red cube on top')")
    verb: str | None = Field(default=None, description="the verb phrase as said ('go to', 'fetch')")
    bare: bool = Field(default=False, description="the act verb stands alone: nothing named ('undock', 'wait')")
    there: bool = Field(default=False, description="the act is where the clause before acted ('take a photo there')")
    in_place: bool = Field(default=False, description="the task says not to move the base ('without moving, ...')")
    quantities: tuple[Quantity, ...] = Field(default=(), description="amounts the clause names ('10 cm', 'twice')")
    joined: str | None = Field(
        default=None,
        description="object and target as one phrase ('the label on the shelf'), for a skill that takes no target",
    )
    order: Order | None = Field(
        default=None, description="the order to take the objects of a plural in ('going from your left to your right')"
    )
    condition: Condition | None = Field(default=None, description="the 'if' the clause is said under, if any")
    verify: bool = Field(default=False, description="the stated goal is checked, not made so ('check that ...')")


class TaskNotUnderstood(PlannerError):
    """A task (or one clause of it) is outside the grammar."""

    def __init__(self, task: str, clause: str, verbs: Sequence[str] = ()) -> None:
        self.task = task
        self.clause = clause
        where = "" if clause == task else f" (the part {clause!r})"
        if verbs:  # what this robot's skills are asked with, not the tabletop's forms
            forms = f"'<verb> the X (on|in|to the Y)' with this robot's verbs: {', '.join(verbs)}"
        else:
            forms = "; ".join(GRAMMAR)
        self.forms = f"it reads {forms}"
        super().__init__(
            f"the task grammar cannot parse {task!r}{where}. It understands: {forms}; "
            f"chained with 'then', ',' or 'and'. {LLM_PLANNER_HINT}."
        )

    def for_robot(self, verbs: Sequence[str]) -> TaskNotUnderstood:
        """The same error, listing the verbs of the robot's own skills."""
        return TaskNotUnderstood(self.task, self.clause, verbs)

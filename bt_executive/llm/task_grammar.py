"""The stub planner's task grammar: a task sentence parsed into a list of intents.

An intent is one thing the user asked for ("put the red cube on the green
plate"), with the object phrases still in the user's words; matching them to
world-state ids is ``object_matching``'s job, and turning intents into skill
calls is ``stub_planner``'s. The grammar is small and closed, on purpose: a
task outside it is refused with a message that lists every form and points at
the LLM planner, rather than guessed at::

    "Pick up the red block, then put it in the bowl and go home."
      -> PICK(red block) ; PUT(it -> bowl) ; HOME
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.llm.plan import PlannerError

GRAMMAR: tuple[str, ...] = (
    "pick (up) the X",
    "pick (up) the X (and|then|,) (put|place) (it) on|in (the) Y",
    "put|place the X on|onto|in|into (the) Y",
    "stack the X on (top of) the Y",
    "push the X forward|back|left|right",
    "pour the X into the Y",
    "tap|press|poke|touch the X",
    "open|close the D",
    "(go) home",
)
"""Every form the stub planner understands; chain them with 'then', ',' or 'and then'."""

LLM_PLANNER_HINT = "For free-form tasks use the LLM planner (--planner local, or another LLM profile)"

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


class Intent(BaseModel):
    """One clause of a task, with its object phrases in the user's words.

    ``object`` is None for a pronoun ("put it on the plate"): the object of the
    previous clause, or the one in the gripper.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: IntentAction
    clause: str = Field(description="the clause as written (normalised), for notes and errors")
    object: str | None = None
    target: str | None = None
    relation: Literal["on", "in"] | None = None
    direction: Direction | None = None


class TaskNotUnderstood(PlannerError):
    """A task (or one clause of it) is outside the stub planner's grammar."""

    def __init__(self, task: str, clause: str) -> None:
        self.task = task
        self.clause = clause
        forms = "; ".join(GRAMMAR)
        where = "" if clause == task else f" (the part {clause!r})"
        super().__init__(
            f"the stub planner cannot parse {task!r}{where}. It understands: {forms}; "
            f"chained with 'then', ',' or 'and then'. {LLM_PLANNER_HINT}."
        )


_VERBS = (
    "pick|grab|grasp|take|lift|put|place|set|drop|move|stack|push|slide|nudge|pour|tap|press|poke|touch"
    "|open|close|shut|go|return|head|home"
)
# "and" joins clauses only when a verb follows ("pick up the cube and put it ..."), so "and" inside a
# phrase is left to the object matcher (which then refuses it with a clear message).
_SEPARATOR = re.compile(
    rf"\s*(?:,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+then\s+|\s+then\s+|\s+and\s+(?=(?:{_VERBS})\b))\s*"
)
_POLITE_PREFIX = re.compile(r"^(?:(?:please|now|first|next|finally|then|and|can you|could you|would you)\s+)+")
_POLITE_SUFFIX = re.compile(r"\s+please$")
_ARTICLE = re.compile(r"^(?:the|a|an|that|this)\s+")
_PRONOUN = frozenset({"it", "that", "this", "them", "one"})

_OBJ = r"(?P<x>.+?)"
_TGT = r"(?P<y>.+)"
_ON = r"(?P<rel>on top of|onto|on|into|inside|in)"
_CLAUSES: tuple[tuple[IntentAction, re.Pattern[str]], ...] = (
    (
        IntentAction.HOME,
        re.compile(
            r"^(?:(?:go|move|return|head)\s+)?(?:back\s+)?(?:to\s+)?(?:the\s+)?home"
            r"(?:\s+(?:position|pose))?(?:\s+the\s+(?:arm|robot))?$"
        ),
    ),
    (IntentAction.STACK, re.compile(rf"^stack\s+{_OBJ}\s+(?:on top of|onto|on|upon)\s+{_TGT}$")),
    (IntentAction.PICK, re.compile(rf"^(?:pick|grab|grasp|take|lift)(?:\s+up)?\s+{_OBJ}(?:\s+up)?$")),
    (IntentAction.PUT, re.compile(rf"^(?:put|place|set|drop|move)(?:\s+{_OBJ})?(?:\s+down)?\s+{_ON}\s+{_TGT}$")),
    (
        IntentAction.PUSH,
        re.compile(
            rf"^(?:push|slide|nudge)\s+{_OBJ}\s+(?:(?:to|towards|toward)\s+(?:the\s+)?)?"
            r"(?P<d>forwards?|away|backwards?|back|closer|left|right)$"
        ),
    ),
    (
        IntentAction.POUR,
        re.compile(rf"^pour\s+(?:(?:the\s+)?contents\s+of\s+|from\s+)?{_OBJ}\s+(?:into|in|over)\s+{_TGT}$"),
    ),
    (IntentAction.TAP, re.compile(r"^(?:tap|press|poke|touch)\s+(?:on\s+)?(?P<x>.+)$")),
    (IntentAction.OPEN, re.compile(r"^open\s+(?P<x>.+)$")),
    (IntentAction.CLOSE, re.compile(r"^(?:close|shut)\s+(?P<x>.+)$")),
)

_DIRECTIONS: dict[str, Direction] = {
    "forward": "forward",
    "forwards": "forward",
    "away": "forward",
    "back": "back",
    "backward": "back",
    "backwards": "back",
    "closer": "back",
    "left": "left",
    "right": "right",
}


def normalise_task(task: str) -> str:
    """Lower case, one space between words, clause punctuation reduced to commas, no final stop."""
    text = task.lower().replace("\u2019", "'")
    text = re.sub(r"[;:!?]", ",", text)
    text = re.sub(r"\.(?=\s|$)", ",", text)  # a full stop ends a clause; "0.5" keeps its dot
    text = re.sub(r"[\"'()\[\]]", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,")
    return re.sub(r"\s*,(?:\s*,)*\s*", ", ", text)


def split_clauses(task: str) -> list[str]:
    """The clauses of a normalised task, split at 'then', ',', 'and then' and 'and <verb>'."""
    parts = _SEPARATOR.split(task) if task else []
    clauses = []
    for part in parts:
        clause = _POLITE_SUFFIX.sub("", _POLITE_PREFIX.sub("", part.strip())).strip()
        if clause:
            clauses.append(clause)
    return clauses


def object_phrase(text: str | None) -> str | None:
    """An object phrase as written ("the red cube"); None for a pronoun ("it")."""
    if text is None:
        return None
    phrase = text.strip()
    bare = _ARTICLE.sub("", phrase).strip()
    return None if not bare or bare in _PRONOUN else phrase


def parse_clause(clause: str) -> Intent | None:
    """The intent of one clause, or None when no form of the grammar matches it."""
    for action, pattern in _CLAUSES:
        match = pattern.match(clause)
        if match is None:
            continue
        groups = match.groupdict()
        obj = object_phrase(groups.get("x"))
        target = object_phrase(groups.get("y"))
        # The object may be a pronoun ("then put it on the plate"): the planner knows what it refers to.
        # A pronoun destination ("pour the cup into it") is not a form of the grammar.
        if "y" in groups and target is None:
            return None
        rel = groups.get("rel")
        relation: Literal["on", "in"] | None = None
        if rel is not None:
            relation = "in" if rel in ("in", "into", "inside") else "on"
        d = groups.get("d")
        return Intent(
            action=action,
            clause=clause,
            object=obj,
            target=target,
            relation=relation,
            direction=_DIRECTIONS[d] if d else None,
        )
    return None


def parse_task(task: str) -> tuple[Intent, ...]:
    """Parse a task into intents; TaskNotUnderstood (listing the grammar) if any clause is outside it."""
    text = normalise_task(task)
    clauses = split_clauses(text)
    if not clauses:
        raise TaskNotUnderstood(task, task)
    intents: list[Intent] = []
    for clause in clauses:
        intent = parse_clause(clause)
        if intent is None:
            raise TaskNotUnderstood(task, clause)
        if intents and (merged := merge_pick(intents[-1], intent)) is not None:
            intents[-1] = merged
        else:
            intents.append(intent)
    return tuple(intents)


_NEEDS_GRASP = (IntentAction.PUT, IntentAction.POUR, IntentAction.STACK)


def merge_pick(first: Intent, second: Intent) -> Intent | None:
    """ "pick the X, then put it on the Y" as one intent: the pick is the means, the placement the goal.

    Kept apart, a replan after the placement would see "pick the X" undone (the X is on the Y now, not
    in the gripper) and pick it again. None when the two clauses are not such a pair.
    """
    if first.action is not IntentAction.PICK or second.action not in _NEEDS_GRASP:
        return None
    if second.object is not None and second.object != first.object:
        return None
    return second.model_copy(update={"object": first.object, "clause": f"{first.clause}, {second.clause}"})

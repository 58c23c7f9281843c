"""The predicate language of preconditions, effects and success checks.

A predicate is ``name(arg, ...)`` or a bare ``name``, optionally prefixed by
``not``: ``holding(object)``, ``on(object, target)``, ``not drawer_open(drawer)``,
``gripper_empty``. Arguments are either a parameter name of the skill (bound
to the call's argument when the step runs) or a literal world-state id. The
vocabulary is closed, with fixed arities, so a typo in a manifest is refused
when it loads rather than silently never holding at run time.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

ARITY: dict[str, int] = {
    "holding": 1,  # the gripper holds x
    "on": 2,  # x rests on y
    "in": 2,  # x is inside container y
    "at": 2,  # x is in named region y
    "gripper_empty": 0,
    "drawer_open": 1,
    "reachable": 1,  # x is inside the arm's workspace
    "exists": 1,  # x is present in the world state
    "at_home": 0,  # the arm is at its home configuration
    "clear": 1,  # nothing rests on top of x
    # Affordances (skills/affordances.py): what an object lets the robot do with it.
    "graspable": 1,
    "support": 1,
    "container": 1,
    "openable": 1,
    "pushable": 1,
}
"""Every predicate name the language knows, with its number of arguments."""

_PREDICATE = re.compile(
    r"^(?P<neg>not\s+)?(?P<name>[a-z_][a-z0-9_]*)\s*(?:\((?P<args>[^()]*)\))?$",
)
_ARG = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


class Predicate(BaseModel):
    """A parsed predicate: its name, argument names and whether it is negated."""

    model_config = ConfigDict(frozen=True)

    name: str
    args: tuple[str, ...] = ()
    negated: bool = False

    def __str__(self) -> str:
        call = f"{self.name}({', '.join(self.args)})" if self.args else self.name
        return f"not {call}" if self.negated else call


@lru_cache(maxsize=4096)  # a compiled step parses the same few manifest texts again; Predicate is frozen
def parse_predicate(text: str) -> Predicate:
    """Parse one predicate, or raise ValueError naming what is wrong with it."""
    match = _PREDICATE.match(text.strip())
    if match is None:
        raise ValueError(f"cannot parse predicate {text!r}; expected e.g. holding(object)")
    name = match.group("name")
    if name not in ARITY:
        known = ", ".join(sorted(ARITY))
        raise ValueError(f"unknown predicate {name!r}; known: {known}")
    raw = match.group("args")
    args = tuple(a.strip() for a in raw.split(",")) if raw and raw.strip() else ()
    for arg in args:
        if not _ARG.match(arg):
            raise ValueError(f"predicate {text!r}: argument {arg!r} is not a name or id")
    if len(args) != ARITY[name]:
        raise ValueError(f"predicate {name!r} takes {ARITY[name]} argument(s), got {len(args)}")
    return Predicate(name=name, args=args, negated=match.group("neg") is not None)


def _normalise(text: str) -> str:
    return str(parse_predicate(text))


PredicateText = Annotated[str, AfterValidator(_normalise)]
"""A predicate kept as its canonical text in contracts, checked when validated."""

"""WorldCondition: a condition node that asks whether a predicate holds on the latest world state.

::

    Selector "make sure the cube is held"
    ├─ holding(red_cube)?        WorldCondition: SUCCESS if it holds now, else FAILURE
    └─ pick(red_cube)

It is the guard half of a fallback: cheap, decided within the tick, never
RUNNING. Unlike ``builtin/check`` (a skill leaf, with a ``SkillResult`` a
recovery policy reads), a condition is plumbing between composites: it keeps
no result, only a ``feedback_message`` saying what it saw. No world state
(yet) is FAILURE: a routine must not act on a belief it does not have.
"""

from __future__ import annotations

import py_trees

from bt_executive.skills.conditions import holds
from bt_executive.skills.leaf import WorldStateSource
from bt_executive.skills.predicates import Predicate, parse_predicate


class WorldCondition(py_trees.behaviour.Behaviour):
    """SUCCESS when ``predicate`` holds on the world state ``world`` returns, FAILURE otherwise."""

    def __init__(self, predicate: Predicate | str, world: WorldStateSource, *, name: str | None = None) -> None:
        self.predicate = parse_predicate(predicate) if isinstance(predicate, str) else predicate
        super().__init__(name or default_condition_name(self.predicate))
        self.world = world

    def update(self) -> py_trees.common.Status:
        """Evaluate the predicate on the latest world state, within this tick."""
        world = self.world()
        if world is None:
            self.feedback_message = "no world state yet"
            return py_trees.common.Status.FAILURE
        if holds(self.predicate, world):
            self.feedback_message = f"holds: {self.predicate}"
            return py_trees.common.Status.SUCCESS
        self.feedback_message = f"does not hold: {self.predicate}"
        return py_trees.common.Status.FAILURE


def default_condition_name(predicate: Predicate) -> str:
    """A condition's name when none is given: the predicate with a question mark, ``holding(red_cube)?``."""
    return f"{predicate}?"

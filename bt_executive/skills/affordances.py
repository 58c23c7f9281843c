"""Affordances: what an object lets the robot do with it, so a plan is checked before anything moves.

A table cannot be picked, a cube is no container, a cabinet does not open
(its drawer does). The world state carries each object's affordances (the
sim reads them from its scene file; a perception stack states them too), and
manifests name them as preconditions (``graspable(object)``,
``container(target)``), so ``pick(table)`` is refused by the symbolic check
rather than by the robot. A publisher that says nothing about an object's
affordances gets its category's defaults below; an unknown category affords
nothing, so an unrecognised thing is never grasped on a guess.
"""

from __future__ import annotations

from enum import StrEnum


class Affordance(StrEnum):
    """The closed affordance vocabulary; each is also a one-argument predicate of the same name."""

    GRASPABLE = "graspable"  # fits the gripper and may be lifted
    SUPPORT = "support"  # things can be placed on top of it
    CONTAINER = "container"  # things can be put inside it
    OPENABLE = "openable"  # it opens and closes (a drawer, a door, a lid)
    PUSHABLE = "pushable"  # it may be slid across its support


A = Affordance

CATEGORY_AFFORDANCES: dict[str, frozenset[Affordance]] = {
    "cube": frozenset({A.GRASPABLE, A.SUPPORT, A.PUSHABLE}),
    "block": frozenset({A.GRASPABLE, A.SUPPORT, A.PUSHABLE}),
    "cup": frozenset({A.GRASPABLE, A.CONTAINER, A.PUSHABLE}),
    "plate": frozenset({A.SUPPORT, A.PUSHABLE}),
    "bowl": frozenset({A.CONTAINER, A.SUPPORT, A.PUSHABLE}),
    "table": frozenset({A.SUPPORT}),
    "drawer": frozenset({A.OPENABLE, A.CONTAINER, A.SUPPORT}),  # things are placed into it
    "cabinet": frozenset({A.SUPPORT}),
}
"""Defaults for a category when the world-state publisher states no affordances for an object."""

AFFORDANCE_NAMES: frozenset[str] = frozenset(a.value for a in Affordance)
"""The affordance predicate names (all of arity 1)."""


def default_affordances(category: str) -> frozenset[Affordance]:
    """The affordances a category has when nobody said otherwise (none for an unknown category)."""
    return CATEGORY_AFFORDANCES.get(category, frozenset())

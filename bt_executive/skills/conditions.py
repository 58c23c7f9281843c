"""Evaluating predicates: against a live world state, and symbolically over a plan.

Manifests write preconditions, effects and success checks in the closed
predicate language of ``predicates``. Here a predicate is *bound* to a call
(parameter names replaced by the call's arguments), then *evaluated* against
a ``WorldState`` (PPA checks and VLA success checks at run time), or applied
to a ``SymbolicState`` (checking a whole plan before anything moves: each
step's preconditions must hold in the state its predecessors' effects leave).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from pydantic import JsonValue

from bt_executive.skills.parameters import schema_defaults
from bt_executive.skills.predicates import Predicate, parse_predicate
from bt_executive.skills.world_state import ObjectState, WorldState

if TYPE_CHECKING:
    from bt_executive.skills.manifest import SkillManifest

DRAWER_OPEN_FRACTION = 0.6
"""A drawer counts as open from this fraction of its travel (the sim's place-into check agrees)."""

Atom = tuple[str, tuple[str, ...]]
"""A ground predicate without negation: name and literal ids."""


HELD = "held"
"""A name an effect may use for the object the gripper holds when the step runs (``on(held, target)``).

``place_on`` takes no ``object`` argument: what it places is whatever was
picked. ``bind_held`` fills it in at run time (from the world state, else the
object the task last held) and symbolically (the imagined gripper), so the
step's ``Done?`` check can skip it once the held object rests on the target.
"""


def bind(predicate: Predicate | str, args: Mapping[str, JsonValue]) -> Predicate:
    """Replace parameter names by the call's argument values; other names are literal ids."""
    parsed = parse_predicate(predicate) if isinstance(predicate, str) else predicate
    bound = tuple(str(args[a]) if isinstance(args.get(a), str | int | float) else a for a in parsed.args)
    return _with_args(parsed, bound)


@lru_cache(maxsize=4096)
def _with_args(parsed: Predicate, args: tuple[str, ...]) -> Predicate:
    """``parsed`` with ``args`` (cached: compiling a plan binds the same few predicates to the same ids)."""
    return parsed if parsed.args == args else parsed.model_copy(update={"args": args})


def bind_held(predicate: Predicate, held: str | None) -> Predicate | None:
    """Bind ``held`` to the held object's id; None when it names ``held`` and nothing is known to be held."""
    if HELD not in predicate.args:
        return predicate
    if held is None:
        return None
    return predicate.model_copy(update={"args": tuple(held if a == HELD else a for a in predicate.args)})


def call_args(manifest: SkillManifest, args: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """The call's arguments with each one it leaves out at its schema default: what the skill will use."""
    return {**schema_defaults(manifest.parameters or {}), **args}


def bound_to_call(texts: Iterable[str], manifest: SkillManifest, args: Mapping[str, JsonValue]) -> list[Predicate]:
    """Predicates of ``manifest`` bound to a call (a parameter it leaves out at its default); one that names a
    parameter with no value and no default is left out: it says nothing known (``in(rack, storage)`` is not a
    rack in a place called "storage")."""
    full = call_args(manifest, args)
    unset = set((manifest.parameters or {}).get("properties", {})) - set(full)
    return [bind(text, full) for text in texts if not unset.intersection(parse_predicate(text).args)]


def goal_predicates(manifest: SkillManifest, args: Mapping[str, JsonValue]) -> list[Predicate]:
    """The goal effects of a call (``goal_effects``), bound to it as ``bound_to_call`` binds."""
    return bound_to_call(goal_effects(manifest.effects, args), manifest, args)


def goal_effects(effects: Iterable[str], args: Mapping[str, JsonValue]) -> tuple[str, ...]:
    """The effects that can prove a step done: only those naming one of the call's arguments.

    ``place_on``'s only effect, ``gripper_empty``, holds before it ever ran
    if the object was dropped; skipping on it would call the task done. An
    effect bound to an argument (``holding(object)``, ``drawer_open(drawer)``)
    says the step's own goal holds.
    """
    return tuple(e for e in effects if set(args).intersection(parse_predicate(e).args))


def atom_holds(name: str, args: tuple[str, ...], world: WorldState) -> bool:
    """Whether one ground, non-negated atom holds in ``world`` (``held``: what the gripper holds now)."""
    if HELD in args:
        if world.gripper.holding is None:
            return False
        args = tuple(world.gripper.holding if a == HELD else a for a in args)
    obj = world.object(args[0]) if args else None
    match name:
        case "holding":
            return world.gripper.holding == args[0]
        case "gripper_empty":
            return world.gripper.holding is None
        case "on":
            return obj is not None and obj.supported_by == args[1]
        case "in":
            return obj is not None and obj.inside == args[1]
        case "at":
            box = world.regions.get(args[1])
            if obj is None or box is None:
                return False
            lo, hi = box
            x, y, _ = obj.position
            return lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]
        case "drawer_open":
            return world.drawers.get(args[0], 0.0) >= DRAWER_OPEN_FRACTION
        case "reachable":
            return obj is not None and obj.reachable
        case "exists":
            return obj is not None
        case "at_home":
            return world.at_home
        case "clear":
            return not any(o.supported_by == args[0] for o in world.objects)
        case "graspable" | "support" | "container" | "openable" | "pushable":
            return _affords(world, args[0], name)
    raise ValueError(f"no evaluator for predicate {name!r}")


def _affords(world: WorldState, object_id: str, affordance: str) -> bool:
    """An object's affordance; a drawer listed only in ``drawers`` opens and holds things."""
    obj = world.object(object_id)
    if obj is not None:
        return obj.affords(affordance)
    return object_id in world.drawers and affordance in ("openable", "container")


def holds(predicate: Predicate, world: WorldState) -> bool:
    """Whether a bound predicate holds in ``world`` (negation included)."""
    return atom_holds(predicate.name, predicate.args, world) != predicate.negated


def first_unmet(predicates: Iterable[Predicate], world: WorldState) -> Predicate | None:
    """The first of these bound predicates that does not hold in ``world``, or None when all do."""
    return next((p for p in predicates if not holds(p, world)), None)


class SymbolicState:
    """A world state as a planner imagines it after some steps: what effects set, over the real world.

    The gripper and what each object rests on or is inside are tracked
    explicitly so effects stay consistent (holding one thing means not
    holding another; a held object rests on nothing). Every other atom an
    effect sets overrides the world; the rest are read from the world state
    the plan starts in. What is set down on a container is in it.

    An effect ``reachable(x)`` moves the base to ``x``: what was in reach
    where the plan started (or at an earlier stop) is no longer, except
    ``x`` and what the gripper holds. So a mobile robot that fetches a mug
    and then a second one approaches the bin again for the second drop.
    """

    def __init__(self, world: WorldState) -> None:
        self._world = world
        self._held: str | None = world.gripper.holding
        self._support: dict[str, str | None] = {}
        self._inside: dict[str, str | None] = {}
        self._facts: dict[Atom, bool] = {}
        self._base_moved = False
        self._robot_somewhere_else = False  # a step moved the base to no place it names: at(robot, X) is unknown

    @property
    def held(self) -> str | None:
        """The id of what the imagined gripper holds (None when empty or holding something unnamed)."""
        return None if self._held == _SOMETHING else self._held

    def holds(self, predicate: Predicate) -> bool:
        """Whether a bound predicate holds in the imagined state (``held``: what the imagined gripper holds)."""
        grounded = bind_held(predicate, self.held)
        if grounded is None:
            return predicate.negated  # nothing named is held: on(held, x) cannot be shown to hold
        predicate = grounded
        name, args = predicate.name, predicate.args
        if name == "holding":
            value = self._held == args[0]
        elif name == "gripper_empty":
            value = self._held is None
        elif name == "on" and args[0] in self._support:
            value = self._support[args[0]] == args[1]
        elif name == "in" and args[0] in self._inside:
            value = self._inside[args[0]] == args[1]
        elif name == "clear":
            value = not any(self._resting_on(o.id) == args[0] for o in self._world.objects)
        elif (name, args) in self._facts:
            value = self._facts[(name, args)]
        elif name == "at" and args[:1] == ("robot",) and self._robot_somewhere_else:
            value = False  # not known to be there: a step that goes there is not skipped
        elif name == "reachable" and self._base_moved:
            value = self._held == args[0]
        else:
            value = atom_holds(name, args, self._world)
        return value != predicate.negated

    def outcome(self) -> tuple[object, ...]:
        """What the imagined steps changed, comparable between two plans from one world: two plans with the
        same outcome leave the world alike (a stack, or a pick and a place on the same support)."""

        def changed(table: dict[str, str | None], before: Callable[[ObjectState], str | None]) -> tuple[object, ...]:
            def was(key: str) -> str | None:
                obj = self._world.object(key)
                return before(obj) if obj is not None else None

            return tuple(sorted((k, v or "") for k, v in table.items() if v != was(k)))

        return (
            self._held,
            changed(self._support, lambda o: o.supported_by),
            changed(self._inside, lambda o: o.inside),
            tuple(sorted(self._facts.items())),
        )

    def _resting_on(self, object_id: str) -> str | None:
        """What an object rests on in the imagined state (nothing while held)."""
        if self._held == object_id:
            return None
        if object_id in self._support:
            return self._support[object_id]
        obj = self._world.object(object_id)
        return obj.supported_by if obj is not None else None

    def apply(self, effect: Predicate) -> None:
        """Make a bound effect true (or false, when negated), keeping the gripper consistent."""
        grounded = bind_held(effect, self.held)
        if grounded is None:
            return  # on(held, x) with nothing named in the gripper: nothing known moved
        effect = grounded
        name, args, value = effect.name, effect.args, not effect.negated
        if name == "holding":
            if value:
                self._held = args[0]
                self._support[args[0]] = None
                self._inside[args[0]] = None
            elif self._held == args[0]:
                self._held = None
        elif name == "gripper_empty":
            self._held = None if value else _SOMETHING
        elif name in ("on", "in"):
            table = self._support if name == "on" else self._inside
            if value:
                table[args[0]] = args[1]
                if self._held == args[0]:
                    self._held = None
                if name == "on" and self.holds(Predicate(name="container", args=(args[1],))):
                    self._inside[args[0]] = args[1]  # set down on a container (the bowl) is set down in it
            elif self.holds(effect.model_copy(update={"negated": False})):
                table[args[0]] = None
        else:
            if name == "reachable" and value:
                self._facts = {atom: v for atom, v in self._facts.items() if atom[0] != "reachable"}
                self._base_moved = True
            if name == "at" and args[:1] == ("robot",) and value:  # the robot is in one place at a time
                self.moved_somewhere_else()
            self._facts[(name, args)] = value

    def moved_somewhere_else(self) -> None:
        """The base moved: where the robot was (``at(robot, X)``) no longer holds, until an effect says again."""
        self._facts = {
            atom: v for atom, v in self._facts.items() if not (atom[0] == "at" and atom[1][:1] == ("robot",))
        }
        self._robot_somewhere_else = True


_SOMETHING = "\x00held"
"""What an effect ``not gripper_empty`` leaves in the gripper: something, but no known id."""


def apply_step(
    state: SymbolicState, manifest: SkillManifest, args: Mapping[str, JsonValue], held: str | None = None
) -> None:
    """One step's effects on an imagined state: the one rule every plan simulator follows.

    The plan check, the planner eval and the grammar planner all imagine a
    plan's steps with this, so the eval never scores a plan the tree would
    refuse. ``held`` (default: what the state holds) is what ``held`` names
    in the effects: the gripper's object as the step begins. A skill that
    moves the arm (it requires ``arm``) and says nothing of ``at_home``
    leaves the arm away from its home pose; one that moves the base (it requires
    ``mobile_base``) and says nothing of ``at`` leaves the robot where no
    ``at(robot, X)`` is known to hold.
    """
    named = state.held if held is None else held
    for bound in bound_to_call(manifest.effects, manifest, args):
        effect = bind_held(bound, named)
        if effect is not None:
            state.apply(effect)
    if "arm" in manifest.requires and all(parse_predicate(text).name != "at_home" for text in manifest.effects):
        state.apply(Predicate(name="at_home", negated=True))
    if "mobile_base" in manifest.requires and all(parse_predicate(text).name != "at" for text in manifest.effects):
        state.moved_somewhere_else()  # "vacuum the kitchen" ends in the kitchen, a fetch by the person: not here

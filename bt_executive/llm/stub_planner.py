"""StubPlanner: a deterministic planner that needs no model, for demos, tests and CI.

It parses the task with the small grammar of ``task_grammar``, resolves each
object phrase against the world state (``object_matching``), and expands each
intent into skill calls while it imagines the world step by step
(``SymbolicState``): a step whose effect already holds is left out (the cube
is already held, already on the plate; the arm is already home), a gripper
that must be empty is emptied onto the table first, and every step's
manifest preconditions are checked before it is emitted, so a plan it returns
is symbolically executable. Only skills in the registry are emitted, with
arguments valid against their schemas::

    "put the red cube on the green plate"
      -> pick(red_cube), place_on(plate)      "green plate" -> plate (words)
      -> vla_manipulate(red_cube, plate)      on a robot whose profile leaves out pick/place

On a replan it reads the attempt records (``attempt_history``): an object
that was not found or not reachable is ruled out, so the phrase resolves to
another match if there is one; a call that failed otherwise gets a trip home
before its retry, and failing again after that ends the loop with an error
saying what was tried. An empty plan means the task is already done.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence

from pydantic import JsonValue

from bt_executive.llm.attempt_history import AttemptHistory, RetryState, call_key
from bt_executive.llm.object_matching import resolve_object
from bt_executive.llm.plan import Plan, PlannerError
from bt_executive.llm.task_grammar import Intent, IntentAction, parse_task
from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.conditions import SymbolicState, bind
from bt_executive.skills.parameters import InvalidArguments, validate_arguments
from bt_executive.skills.predicates import Predicate
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.skills.world_state import WorldState

PLANNER_NAME = "stub"
VLA_PUT = "vla_manipulate"
"""What "put X on Y" becomes on a robot without pick and place_on skills (a VLA-driven arm)."""
PARKING_SURFACE = "table"
"""Where a held object is put down when the next step needs an empty gripper."""

_NOTES_LIMIT = 4000
_RATIONALE_LIMIT = 200


class MissingSkill(PlannerError):
    """The task needs a skill this robot's registry does not have."""


class UnplannableStep(PlannerError):
    """A step's precondition cannot hold where the plan would run it (unreachable object, nothing held...)."""


class RetriesExhausted(PlannerError):
    """A call failed again after its careful retry; replanning it once more would loop."""


def _atom(name: str, *args: str, negated: bool = False) -> Predicate:
    return Predicate(name=name, args=args, negated=negated)


class StubPlanner:
    """Grammar-driven planner implementing the ``Planner`` protocol; same input, same plan."""

    name = PLANNER_NAME

    def __init__(self, registry: SkillRegistry, *, owner: str = "tabletop") -> None:
        self._registry = registry
        self._owner = owner

    def plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord] = ()) -> Plan:
        """Plan ``task`` from ``world_state``, learning from ``prior_attempts``; PlannerError if it cannot."""
        intents = parse_task(task)
        history = AttemptHistory.from_attempts(prior_attempts)
        builder = _PlanBuilder(self._registry, self._owner, world_state, history)
        for intent in intents:
            builder.add(intent)
        return builder.finish(len(intents))


class _PlanBuilder:
    """One planning pass: the imagined world, the steps so far and the notes explaining them."""

    def __init__(self, registry: SkillRegistry, owner: str, world: WorldState, history: AttemptHistory) -> None:
        self.registry = registry
        self.owner = owner
        self.world = world
        self.history = history
        self.state = SymbolicState(world)
        self.steps: list[SkillCall] = []
        self.notes: list[str] = []
        self.last_object: str | None = None
        # Calls that succeeded in earlier attempts, so a replan does not repeat them (see already_done).
        self.done_left: Counter[str] = Counter(history.succeeded)
        if history.replan_number:
            lines = list(history.summary()) or ["no failure to learn from"]
            self.notes.append(f"replan {history.replan_number}: {'; '.join(lines)}")

    # -- the imagined world ---------------------------------------------------------------------

    def holds(self, name: str, *args: str, negated: bool = False) -> bool:
        """Whether an atom holds in the imagined world after the steps so far."""
        return self.state.holds(_atom(name, *args, negated=negated))

    def held(self) -> str | None:
        """The object in the gripper after the steps so far, if any."""
        return next((i for i in self.world.ids() if self.holds("holding", i)), None)

    # -- object phrases ---------------------------------------------------------------------------

    def resolve(self, phrase: str | None, intent: Intent, *, among: Collection[str] | None = None) -> str:
        """The id a phrase names; a pronoun is the previous clause's object, else the held one."""
        if phrase is None:
            referent = self.last_object or self.held()
            if referent is None:
                raise UnplannableStep(
                    f"'it' in {intent.clause!r} refers to nothing: no object earlier in the task "
                    "and the gripper is empty"
                )
            if among is not None and referent not in among:
                raise UnplannableStep(f"'it' in {intent.clause!r} refers to {referent}, which cannot be used there")
            return referent
        match = resolve_object(phrase, self.world, exclude=self.history.excluded, among=among)
        object_id = match.ids[0]
        if match.rule != "exact":
            self.notes.append(f"{phrase!r} -> {object_id} ({match.rule})")
        return object_id

    # -- emitting calls ---------------------------------------------------------------------------

    def skill_id(self, name: str) -> str:
        """The registry id of a skill of this planner's owner."""
        return f"{self.owner}/{name}"

    def has_skill(self, name: str) -> bool:
        """Whether the registry has this skill of the owner."""
        return self.skill_id(name) in self.registry

    def already_done(self, name: str, args: dict[str, JsonValue]) -> bool:
        """Whether this intent's call already succeeded in an earlier attempt (using that success up).

        For calls whose effect the world cannot show (tap, push, pour) or a later step may undo (pick,
        open, close); placements and going home are judged by the world state alone.
        """
        key = call_key(self.skill_id(name), args)
        if self.done_left[key] > 0:
            self.done_left[key] -= 1
            label = SkillCall(skill=self.skill_id(name), args=args).label()
            self.notes.append(f"skip {label}: done in an earlier attempt")
            return True
        return False

    def emit(
        self, name: str, args: dict[str, JsonValue], rationale: str, extra_effects: Iterable[Predicate] = ()
    ) -> None:
        """Append a validated call whose preconditions hold now, then imagine its effects."""
        skill = self.skill_id(name)
        try:
            manifest = self.registry.get(skill)
        except UnknownSkill as err:
            raise MissingSkill(f"the task needs {skill}, which this robot's registry does not have ({err})") from None
        try:
            validate_arguments(manifest, args)
        except InvalidArguments as err:
            raise PlannerError(f"the stub planner built invalid arguments: {err}") from err
        call = SkillCall(skill=skill, args=args, rationale=rationale[:_RATIONALE_LIMIT])
        failed = self.history.failed.get(call_key(skill, args))
        if failed is not None:
            if failed.state is RetryState.EXHAUSTED:
                raise RetriesExhausted(f"giving up: {failed.account()}; the stub planner will not try it again")
            if name != "home" and not self.holds("at_home"):
                self.emit("home", {}, f"recover: {call.label()} failed ({failed.failures[-1].result.failure_kind})")
        for text in manifest.preconditions:
            predicate = bind(text, args)
            if not self.state.holds(predicate):
                raise UnplannableStep(
                    f"cannot plan step {len(self.steps) + 1} {call.label()}: its precondition {predicate} "
                    "does not hold there (world state and earlier steps considered)"
                )
        for text in manifest.effects:
            self.state.apply(bind(text, args))
        for effect in extra_effects:
            self.state.apply(effect)
        if name != "home":
            self.state.apply(_atom("at_home", negated=True))  # every other skill moves the arm away
        self.steps.append(call)

    def free_gripper(self, keep: str | None, intent: Intent) -> None:
        """Put down whatever is held (unless it is ``keep``) so the next step gets an empty gripper."""
        held = self.held()
        if held is None or held == keep:
            return
        if self.world.object(PARKING_SURFACE) is None or PARKING_SURFACE in self.history.excluded:
            raise UnplannableStep(f"{intent.clause!r} needs an empty gripper, but it holds {held}; say where to put it")
        self.notes.append(f"put {held} down on the {PARKING_SURFACE}: {intent.clause!r} needs an empty gripper")
        self.emit("place_on", {"target": PARKING_SURFACE}, f"{intent.clause}: put {held} down first")

    def skip(self, what: str, because: Predicate) -> None:
        """Note a step left out because its effect already holds."""
        self.notes.append(f"skip {what}: {because} already holds")

    # -- intents ----------------------------------------------------------------------------------

    def add(self, intent: Intent) -> None:
        """Expand one intent into calls (or nothing, when its effect already holds)."""
        handler = {
            IntentAction.PICK: self.pick,
            IntentAction.PUT: self.put,
            IntentAction.STACK: self.stack,
            IntentAction.PUSH: self.push,
            IntentAction.POUR: self.pour,
            IntentAction.TAP: self.tap,
            IntentAction.OPEN: self.open_or_close,
            IntentAction.CLOSE: self.open_or_close,
            IntentAction.HOME: self.home,
        }[intent.action]
        handler(intent)

    def pick(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        self.last_object = obj
        args: dict[str, JsonValue] = {"object": obj}
        if self.already_done("pick", args):
            return
        if self.holds("holding", obj):
            self.skip(f"pick({obj})", _atom("holding", obj))
        else:
            self.free_gripper(None, intent)
            self.emit("pick", args, intent.clause)

    def put(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        target = self._target(intent, obj)
        self.last_object = obj
        for relation in ("on", "in"):  # "in the bowl" is done whether the world says in or on
            if self.holds(relation, obj, target):
                self.skip(f"put({obj}, {target})", _atom(relation, obj, target))
                return
        if not self.has_skill("place_on") and self.has_skill(VLA_PUT):
            # A robot that manipulates through a VLA policy: one closed-loop call picks and places.
            self.emit(VLA_PUT, {"object": obj, "target": target}, intent.clause)
            return
        self._grasp(obj, intent)
        self.emit("place_on", {"target": target}, intent.clause, [_atom("on", obj, target)])

    def stack(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        base = self._target(intent, obj)
        self.last_object = obj
        stacked = _atom("on", obj, base)
        if self.holds("on", obj, base):
            self.skip(f"stack({obj}, {base})", stacked)
        elif self.holds("holding", obj) or not self.has_skill("stack"):
            # Held already (a pick succeeded before a replan), or no one-motion skill: place it instead.
            self._grasp(obj, intent)
            self.emit("place_on", {"target": base}, intent.clause, [stacked])
        else:
            self.free_gripper(None, intent)
            self.emit("stack", {"object": obj, "base": base}, intent.clause)

    def push(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        self.last_object = obj
        args: dict[str, JsonValue] = {"object": obj, "direction": intent.direction}
        if not self.already_done("push", args):
            self.free_gripper(None, intent)
            self.emit("push", args, intent.clause)

    def pour(self, intent: Intent) -> None:
        source = self.resolve(intent.object, intent)
        target = self._target(intent, source)
        self.last_object = source
        args: dict[str, JsonValue] = {"source": source, "target": target}
        if not self.already_done("pour", args):
            self._grasp(source, intent)
            self.emit("pour", args, intent.clause)

    def tap(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        self.last_object = obj
        args: dict[str, JsonValue] = {"object": obj}
        if not self.already_done("tap", args):
            self.emit("tap", args, intent.clause)

    def open_or_close(self, intent: Intent) -> None:
        # Only drawers can be opened; "the cabinet" finds its drawer through the words of its container.
        drawers = set(self.world.drawers) or None
        drawer = self.resolve(intent.object, intent, among=drawers)
        self.last_object = drawer
        opening = intent.action is IntentAction.OPEN
        skill = "open_drawer" if opening else "close_drawer"
        args: dict[str, JsonValue] = {"drawer": drawer}
        wanted = _atom("drawer_open", drawer, negated=not opening)
        if self.already_done(skill, args):
            return
        if self.state.holds(wanted):
            self.skip(f"{intent.action}({drawer})", wanted)
            return
        if opening:
            self.free_gripper(None, intent)
        self.emit(skill, args, intent.clause)

    def home(self, intent: Intent) -> None:
        if self.holds("at_home"):
            self.skip("home", _atom("at_home"))
        else:
            self.emit("home", {}, intent.clause)

    def _target(self, intent: Intent, obj: str) -> str:
        target = self.resolve(intent.target, intent)
        if target == obj:
            raise UnplannableStep(f"{intent.clause!r} names {obj} as both the object and where it goes")
        return target

    def _grasp(self, obj: str, intent: Intent) -> None:
        """Make sure ``obj`` is in the gripper: put anything else down, then pick it unless held."""
        if not self.holds("holding", obj):
            self.free_gripper(obj, intent)
            self.emit("pick", {"object": obj}, f"{intent.clause}: grasp {obj} first")

    def finish(self, intents: int) -> Plan:
        """The plan: the steps, and notes that say what the planner did and why."""
        if not self.steps:
            self.notes.append("already done: nothing to do")
        else:
            self.notes.append(f"{intents} intent(s) -> {len(self.steps)} step(s)")
        notes = "; ".join(self.notes)
        if len(notes) > _NOTES_LIMIT:
            notes = notes[: _NOTES_LIMIT - 1] + "…"
        return Plan(steps=tuple(self.steps), notes=notes, planner=PLANNER_NAME)

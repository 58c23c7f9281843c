"""GrammarPlanner: a deterministic planner that needs no model, for demos, tests and CI.

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

A step whose precondition does not hold is not simply refused: the planner
first tries to achieve it (``achieve``), by bounded backward chaining over the
manifests' effects (depth <= 3): a skill whose effect, unified with the
missing predicate, names all its required arguments (``holding(x)`` <-
``pick(x)``, ``drawer_open(d)`` <- ``open_drawer(d)``, ``at_home`` <-
``home``), plus two rules with a free choice: ``gripper_empty`` puts the held
object down on the table, and ``clear(x)`` moves what rests on x to the
table. Each inserted step says why in its rationale. A precondition that
names an affordance (``graspable(table)``) is not achieved but refused
(``PlannerRefused``, ``not_afforded``), and so are objects that are not
there, ambiguous phrases and skills the robot lacks.

Every plan carries the task's goal (``on(red_cube, plate)``, ``in(x, bowl)``,
``holding(x)``, ``drawer_open(d)``, ``at_home``) for the task tree to check
in the world when the last step is done. Lists ("the red and the blue cube")
and quantifiers ("all the cubes", in id order) expand to one intent each.

On a replan it reads the attempt records (``attempt_history``): an object
that was not found or not reachable is ruled out, so the phrase resolves to
another match if there is one; a call that failed otherwise gets a trip home
before its retry, and failing again after that ends the loop with an error
saying what was tried. An empty plan means the task is already done.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence

from pydantic import JsonValue

from bt_executive.llm.grammar_planner.attempt_history import AttemptHistory, RetryState, call_key
from bt_executive.llm.grammar_planner.said_arguments import (
    choice_apart,
    counts_apart,
    is_choice,
    surface_apart,
    unit_apart,
)
from bt_executive.llm.grammar_planner.skill_choice import (
    Fit,
    Referent,
    actions_of,
    affordance_needs,
    candidates,
    choose,
    fit,
    names_category,
    referent_param,
    region_named,
    regions_listed,
    regions_partly_named,
)
from bt_executive.llm.grammar_planner.vocabulary import known_words, protected_words, robot_verbs
from bt_executive.llm.grounding.object_matching import (
    NUMBERS,
    AmbiguousObject,
    ObjectMatchError,
    UnknownObject,
    count_said,
    expand_phrase,
    ignored_words,
    match_objects,
    object_words,
    phrase_words,
    resolve_all,
    resolve_object,
    stated_count,
)
from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.quantities import COUNT, Quantity, UnitMismatch
from bt_executive.llm.language.quantities import fit as fit_quantity
from bt_executive.llm.language.task_grammar import (
    Condition,
    Intent,
    IntentAction,
    TaskNotUnderstood,
    object_phrase,
    other_splits,
    parse_task,
)
from bt_executive.llm.language.typos import correct
from bt_executive.llm.plan import Plan, PlannerError, PlannerRefused, RefusalKind, refuse_unreadable
from bt_executive.skills.affordances import AFFORDANCE_NAMES
from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.conditions import SymbolicState, apply_step, bind, goal_effects
from bt_executive.skills.manifest import ActionVerb, Role, SkillManifest
from bt_executive.skills.parameters import InvalidArguments, validate_arguments
from bt_executive.skills.predicates import Predicate, parse_predicate
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.skills.world_state import WorldState

PLANNER_NAME = "stub"
PARKING_SURFACE = "table"
"""Where a held object is put down when the next step needs an empty gripper."""

_MOVES_HELD = frozenset({IntentAction.PUT, IntentAction.POUR, IntentAction.STACK})
_ACTS = frozenset(
    {IntentAction.PUSH, IntentAction.POUR, IntentAction.TAP, IntentAction.OPEN, IntentAction.CLOSE, IntentAction.ACT}
)
"""The intents whose skill is chosen from the manifests by verb and referent (``_PlanBuilder.act``)."""
_OR = re.compile(r"\s+or\s+")
_DEFINITE = re.compile(r"^(?:the|all|both|each|every|these|those)\b")
"""Phrases that name particular objects: "the two cubes" with three here is ambiguous, "two cubes" is not."""

_ANY_COUNT = re.compile(r"^(?:any|some|just)\s+(?=(?:two|three|four|five|six|[2-6])\s)")
""""any two cubes": any of them, as "two cubes"."""

_OTHERS = re.compile(
    r"^(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:other|others|remaining|rest|rest of|rest of the)"
    r"(?:\s+(?P<n>" + "|".join(NUMBERS) + r"))?(?:\s+(?P<what>(?!of\b).+))?$"
)
""""the other two", "the others", "the rest of the cubes", "the remaining blocks"."""

_INDEFINITE = re.compile(r"^(?:a|an|any|some|either|one)\b")
"""Phrases that ask for any one of their matches ("a cube", "any block", "one of the cubes")."""

CHAIN_DEPTH = 3
"""How many achieving steps deep backward chaining may go for one unmet precondition."""

_NOTES_LIMIT = 4000
_RATIONALE_LIMIT = 200


class MissingSkill(PlannerRefused):
    """The task needs a skill this robot's registry does not have."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, RefusalKind.MISSING_SKILL)


class NotAfforded(PlannerRefused):
    """The task asks for something an object does not allow (pick up the table)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, RefusalKind.NOT_AFFORDED)


class UnplannableStep(PlannerError):
    """A step's precondition cannot hold where the plan would run it (unreachable object, nothing held...)."""


class RetriesExhausted(PlannerError):
    """A call failed again after its careful retry; replanning it once more would loop."""


def _atom(name: str, *args: str, negated: bool = False) -> Predicate:
    return Predicate(name=name, args=args, negated=negated)


_FROM_REGION = re.compile(r"^(?P<what>.+?)\s+(?:from|in|out of|at)\s+(?P<where>(?:the\s+)?\S+(?:\s+\S+)?)$")
"""An object phrase that ends in a place ("the red mug from the kitchen")."""

_ID_SAID = re.compile(r"^(?:.*?\s)?(?:id|with id|with the id|named|called|labelled|labeled)\s+(?P<id>[a-z0-9_]+)$")
"""An object phrase that says the object's id outright ("the charging dock id dock", "the gauge named p7")."""

_HELD_PHRASE = re.compile(
    r"\b(?:you are holding|you re holding|youre holding|your holding|you hold|you have|you ve got|you have got|you got|"
    r"you are carrying|you carry|in your fingers|"
    r"in your (?:hand|gripper)|in the gripper|that is held|being held|held one|held|grasped|gripped|picked up)\b"
)
"""Words that name the object in the gripper ("the cube you are holding")."""


class GrammarPlanner:
    """Grammar-driven planner implementing the ``Planner`` protocol; same input, same plan."""

    name = PLANNER_NAME

    def __init__(self, registry: SkillRegistry, *, owner: str = "tabletop") -> None:
        self._registry = registry
        self._owner = owner

    def plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord] = ()) -> Plan:
        """Plan ``task`` from ``world_state``, learning from ``prior_attempts``; PlannerError if it cannot.

        A task that does not parse or names no object is read once more with its typos corrected
        ("teh" -> "the", ``language.typos``): only words nothing knows, only where one known word is clearly
        meant, and the plan's notes say how it was read. When that reading fails too, the first error stands.
        """
        refuse_unreadable(task)
        try:
            return self._plan(task, world_state, prior_attempts)
        except (TaskNotUnderstood, UnknownObject) as first:
            words = task.split()
            fixed = correct(words, known_words(world_state, self._registry), protected=protected_words(world_state))
            if not fixed.notes:
                raise self._explained(first, task, world_state) from None
            reading = " ".join(fixed.words)
            try:
                plan = self._plan(reading, world_state, prior_attempts)
            except PlannerError:
                raise self._explained(first, task, world_state) from None
            return plan.model_copy(update={"notes": f"read as {reading!r} ({', '.join(fixed.notes)}); {plan.notes}"})

    def _explained(self, error: PlannerError, task: str, world: WorldState) -> PlannerError:
        """A task outside the grammar is told the verbs of this robot's skills, not the tabletop's forms; so is
        an object phrase that names one object and then words no rule reads ("the green cube upside down",
        "the blue pump for cracks"): those words, not the object, are what is not understood."""
        if isinstance(error, UnknownObject) and not error.excluded and _names_one_then_more(error.phrase, world):
            error = TaskNotUnderstood(task, error.phrase)
        return error.for_robot(robot_verbs(self._registry)) if isinstance(error, TaskNotUnderstood) else error

    def _plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord]) -> Plan:
        phrases = {p for manifest in self._registry for p in manifest.phrases()}
        intents = parse_task(task, phrases)
        history = AttemptHistory.from_attempts(prior_attempts)
        builder = _PlanBuilder(self._registry, self._owner, world_state, history, self.name)
        try:
            for intent in intents:
                builder.add(intent)
        except PlannerRefused as refusal:
            if prior_attempts and refusal.kind is RefusalKind.NO_SUCH_OBJECT:
                # It was there when the task was accepted: the world changed under the task, an error.
                raise PlannerError(refusal.reason) from refusal
            raise
        return builder.finish(len(intents))


_RELATION_WORDS = frozenset(
    {"on", "in", "inside", "into", "at", "by", "near", "next", "beside", "under", "behind", "from", "off", "with"}
    | {"of", "that", "which", "to", "over", "above", "below", "between", "around", "outside", "nearest", "closest"}
)
"""Words after an object phrase that say where it is: a miss there is no such object, not unread words."""


def _names_one_then_more(phrase: str, world: WorldState) -> bool:
    """Whether the phrase's first words name exactly one object, ending in its noun ("the green cube"), and
    the rest neither say where it is nor describe an object ("upside down", "for cracks"; not "gauge", "b")."""
    words = phrase.split()
    lexicon = load_lexicon()
    describing = lexicon.colour_words() | lexicon.category_words() | set(lexicon.categories)
    describing |= {w for o in world.objects for w in object_words(o)}
    for cut in range(len(words) - 1, 0, -1):
        head, rest = words[:cut], words[cut:]
        if rest[0] in _RELATION_WORDS or set(rest) & describing or any(len(w) < 3 or w.isdigit() for w in rest):
            continue
        found = match_objects(" ".join(head), world).ids
        obj = world.object(found[0]) if len(found) == 1 else None
        if obj is not None and head[-1] in object_words(obj) and head[-1] not in lexicon.colour_words():
            return True
    return False


MAX_REPEATS = 10
"""The most times a count repeats a clause's calls ("tap it 3 times")."""


_UNIT_SUFFIXES = frozenset({"s", "m", "cm", "mm", "ms", "deg", "rad", "hz", "mps", "sec", "min", "pct", "percent"})


def _names_param(named: str, param: str) -> bool:
    """Whether what a task calls an amount ("clearance", "max duration") names this parameter
    (``clearance``, ``max_duration_s``): its words, without a unit suffix, include every word said."""
    words = set(param.lower().split("_")) - _UNIT_SUFFIXES
    return set(named.split()) <= words


def _repeats(intent: Intent) -> int | None:
    """How many times a clause's one count says to do it (1..MAX_REPEATS), if it names exactly one count
    (other amounts stay with each repetition: "push it 15 mm back, twice")."""
    counts = [q for q in intent.quantities if q.unit == COUNT]
    if len(counts) != 1:
        return None
    value = counts[0].value
    return int(value) if value == int(value) and 1 <= value <= MAX_REPEATS else None  # "once": just the calls


class _PlanBuilder:
    """One planning pass: the imagined world, the steps so far and the notes explaining them."""

    def __init__(
        self, registry: SkillRegistry, owner: str, world: WorldState, history: AttemptHistory, planner_name: str
    ) -> None:
        self.planner_name = planner_name
        self.registry = registry
        self.owner = owner
        self.world = world
        self.history = history
        self.state = SymbolicState(world)
        self.steps: list[SkillCall] = []
        self.notes: list[str] = []
        self.last_object: str | None = None
        self.named: list[str] = []  # every id a phrase named, in order: what a later 'it' may mean
        self.last_target: str | None = None
        self.last_region: str | None = None
        """The region the last clause acted on, while no object came after it: what 'it' in "go to the
        living room and vacuum it" is."""
        self.antecedent: str | None = None
        """The object the last object phrase named: what 'the green one' takes its kind from."""
        self.goal: list[Predicate] = []
        self.last_actions: frozenset[ActionVerb] = frozenset()
        """The action verbs of the clause that emitted the last step through ``act``."""
        self.depth = 0
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
        """The id a phrase names; a pronoun is the previous clause's object (or its destination, where
        only that fits: "put the cube in the drawer and shut it"), else the held one."""
        if phrase is None:
            candidates = [c for c in (self.last_object, self.last_target, self.held()) if c is not None]
            fitting = [c for c in candidates if among is None or c in among]
            if not fitting and among is not None:  # "open the drawer, put the cubes inside, close it": the drawer
                fitting = [c for c in reversed(self.named) if c in among][:1]
            referent = next(iter(fitting or candidates), None)
            if referent is None:
                raise UnplannableStep(
                    f"'it' in {intent.clause!r} refers to nothing: no object earlier in the task "
                    "and the gripper is empty"
                )
            if among is not None and referent not in among:
                raise UnplannableStep(f"'it' in {intent.clause!r} refers to {referent}, which cannot be used there")
            return referent
        if not set(phrase_words(phrase)) - ignored_words():  # "the object", "the item": as 'it'
            return self.resolve(None, intent, among=among)
        alternatives = _OR.split(phrase)
        if len(alternatives) > 1:  # "the red cube or the blue cube": either will do, the nearest
            options = sorted({self.resolve(part, intent, among=among) for part in alternatives})
            chosen = self._nearest(options)
            self.notes.append(f"{phrase!r} -> {chosen} (either of {', '.join(options)}: the nearest)")
            return chosen
        # The one held now, else the one held when the task came ("open the drawer and put inside the cube
        # you hold": opening the drawer sets it down first).
        held = self.held() or self.world.gripper.holding
        if held is not None and _HELD_PHRASE.search(phrase) and (among is None or held in among):
            self.notes.append(f"{phrase!r} -> {held} (the one held)")
            return held
        try:
            match = resolve_object(phrase, self.world, exclude=self.history.excluded, among=among)
        except UnknownObject:
            said = self.said_beside(phrase)
            if said is None:
                raise
            return self.resolve(said, intent, among=among)
        except AmbiguousObject as err:
            # "put the cube down" while holding one cube: the held one is the one meant.
            held = self.held()
            if intent.action in _MOVES_HELD and held is not None and held in err.candidates:
                self.notes.append(f"{phrase!r} -> {held} (the one held)")
                return held
            if _INDEFINITE.match(phrase.strip().lower()):  # "a cube": any one will do, the nearest
                chosen = self._nearest(err.candidates)
                self.notes.append(f"{phrase!r} -> {chosen} (any one of {', '.join(err.candidates)}: the nearest)")
                self.antecedent = chosen
                return chosen
            # "the red cube on the green one", "..., then the green one": 'one' is of the kind of the
            # previous clause's object, else of the object named just before.
            for before in (self.last_object, self.antecedent):
                if "one" not in phrase.split() or before is None or (named := self.world.object(before)) is None:
                    continue
                same = [c for c in err.candidates if (o := self.world.object(c)) and o.category == named.category]
                if len(same) == 1:
                    self.notes.append(f"{phrase!r} -> {same[0]} ('one': a {named.category}, as {before})")
                    return same[0]
            if (region := self.last_region) is not None:
                # "go to the boiler room and read the gauge (there)": the one in the room the plan went to
                inside = [c for c in err.candidates if self.holds("at", c, region)]
                if len(inside) == 1:
                    self.notes.append(f"{phrase!r} -> {inside[0]} (the one in {region}, where the plan went)")
                    return inside[0]
            raise
        object_id = match.ids[0]
        self.antecedent = object_id
        self.named.append(object_id)
        if match.rule != "exact":
            self.notes.append(f"{phrase!r} -> {object_id} ({match.rule})")
        return object_id

    def said_beside(self, phrase: str) -> str | None:
        """What an object phrase that names nothing here names once the words said beside the object are left
        out: an id said outright ("the charging dock id dock": dock), or a reason run on after the object
        ("the front door theres a draft": the front door), where what is left names one object."""
        stated = _ID_SAID.match(phrase)
        if stated is not None and self.world.object(stated.group("id")) is not None:
            self.notes.append(f"{phrase!r} -> {stated.group('id')} (its id, said)")
            return stated.group("id")
        words = phrase.split()
        for opener in sorted(load_lexicon().reason_openers, key=len, reverse=True):
            size = len(opener.split())
            for start in range(1, len(words) - size + 1):
                if words[start : start + size] != opener.split():
                    continue
                before = " ".join(words[:start])
                if len(match_objects(before, self.world, exclude=self.history.excluded).ids) == 1:
                    self.notes.append(f"{phrase!r}: {' '.join(words[start:])!r} is a reason, left out")
                    return before
        return None

    def _nearest(self, ids: Iterable[str]) -> str:
        """Of ``ids``, the one nearest the robot's base in the table plane (ties: the first id)."""
        return min(ids, key=lambda i: (self._distance(i), i))

    def in_order(self, ids: list[str], order: str) -> list[str]:
        """``ids`` in the order said: from the robot's left (largest y) to its right, or nearest first, ..."""

        def key(object_id: str) -> float:
            found = self.world.object(object_id)
            if found is None:
                return math.inf
            return {
                "left_to_right": -found.position[1],
                "right_to_left": found.position[1],
                "nearest_first": self._distance(object_id),
                "farthest_first": -self._distance(object_id),
            }[order]

        return sorted(ids, key=key)

    def _distance(self, object_id: str) -> float:
        found = self.world.object(object_id)
        return math.hypot(found.position[0], found.position[1]) if found is not None else math.inf

    def others(self, intent: Intent) -> list[str] | None:
        """The objects "the other two", "the others", "the rest (of the cubes)" or "the remaining cubes" name:
        those of the kind said (else of the kind of the object before) that the task has not named yet;
        None when the phrase is not of this form."""
        found = _OTHERS.match(" ".join((intent.object or "").lower().split()))
        if found is None:
            return None
        kind = (found.group("what") or "").strip()
        singular = bool(kind) and not kind.endswith("s")  # "the other cube": one
        number = found.group("n") or ("1" if singular else None)
        kind = "" if kind in ("one", "ones") else kind
        if not self.named and self.last_object is None and self.held() is None:
            raise PlannerRefused(
                f"{intent.object!r} in {intent.clause!r}: other than what? nothing was named before it",
                RefusalKind.AMBIGUOUS,
            )
        if not kind:
            before = self.world.object(self.last_object or self.antecedent or "")
            if before is None:
                raise UnplannableStep(f"{intent.object!r} in {intent.clause!r}: the others of what? say which")
            kind = before.category
        target = self.resolve(intent.target, intent) if intent.target else None
        phrases, _ = expand_phrase(kind if kind.startswith(("all", "the")) else f"all the {kind}")
        ids = [
            i
            for phrase in phrases
            for i in resolve_all(phrase, self.world, exclude=self.history.excluded)
            if i not in self.named and i != target
        ]
        if not ids or (number is not None and count_said(number) != len(ids)):
            raise PlannerRefused(
                f"{intent.object!r}: {len(ids)} not named yet ({', '.join(ids) or 'none'})",
                RefusalKind.AMBIGUOUS if ids else RefusalKind.NO_SUCH_OBJECT,
                candidates=tuple(ids),
            )
        self.notes.append(f"{intent.object!r} -> {', '.join(ids)} (not named before)")
        return ids

    # -- emitting calls ---------------------------------------------------------------------------

    def already_done(self, skill: str, args: dict[str, JsonValue]) -> bool:
        """Whether this intent's call already succeeded in an earlier attempt (using that success up).

        For calls whose effect the world cannot show (tap, push, pour) or a later step may undo (pick,
        open, close); placements and going home are judged by the world state alone.
        """
        key = call_key(skill, args)
        if self.done_left[key] > 0:
            self.done_left[key] -= 1
            label = SkillCall(skill=skill, args=args).label()
            self.notes.append(f"skip {label}: done in an earlier attempt")
            return True
        return False

    def emit(
        self, skill: str, args: dict[str, JsonValue], rationale: str, extra_effects: Iterable[Predicate] = ()
    ) -> None:
        """Append a validated call whose preconditions hold now, then imagine its effects."""
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
            homing = self.achiever(_atom("at_home"))
            if homing is not None and "at_home" not in manifest.effects and not self.holds("at_home"):
                kind = failed.failures[-1].result.failure_kind
                self.emit(homing[0], homing[1], f"recover: {call.label()} failed ({kind})")
        self.meet_preconditions(call, [bind(text, args) for text in manifest.preconditions])
        apply_step(self.state, manifest, args)
        for effect in extra_effects:
            self.state.apply(effect)
        self.steps.append(call)

    def meet_preconditions(self, call: SkillCall, preconditions: list[Predicate]) -> None:
        """Make every precondition of ``call`` hold, achieving unmet ones first; refuse or fail otherwise."""
        for _ in range(4 * CHAIN_DEPTH):  # each achievement may undo an earlier one (pick undoes gripper_empty)
            unmet = next((p for p in preconditions if not self.state.holds(p)), None)
            if unmet is None:
                return
            self.refuse_if_impossible(call, unmet)
            if self.depth >= CHAIN_DEPTH or not self.achieve(unmet, call):
                break
        raise UnplannableStep(
            f"cannot plan step {len(self.steps) + 1} {call.label()}: its precondition {unmet} "
            "does not hold there and no skill achieves it (world state and earlier steps considered)"
        )

    def refuse_if_impossible(self, call: SkillCall, unmet: Predicate) -> None:
        """An unmet affordance or a missing object is the task's fault, not the plan's: refuse it."""
        subject = unmet.args[0] if unmet.args else ""
        if unmet.name in AFFORDANCE_NAMES and not unmet.negated:
            raise NotAfforded(f"{call.label()} needs {unmet}, and {subject} is not {unmet.name} here")
        if unmet.name == "reachable" and not unmet.negated and not self.can_reach():
            raise NotAfforded(f"{call.label()} needs {subject} within reach, and no skill of this robot moves it there")
        if unmet.name == "exists" and not unmet.negated:
            known = ", ".join(self.world.ids())
            raise PlannerRefused(
                f"{call.label()} needs {subject}, which is not in the world ({known})", RefusalKind.NO_SUCH_OBJECT
            )

    def can_reach(self) -> bool:
        """Whether some skill makes an object reachable (a mobile base's approach): else out of reach stays so."""
        return any(parse_predicate(e).name == "reachable" for m in self.registry for e in m.effects)

    def achieve(self, goal: Predicate, call: SkillCall) -> bool:
        """Insert steps that make ``goal`` hold before ``call`` (one level of backward chaining)."""
        why = f"so that {call.label()} can run: {goal}"
        self.depth += 1
        try:
            if goal.name == "gripper_empty" and not goal.negated:
                held = self.held()
                if held is None:
                    return False
                return self.park(held, why)
            if goal.name == "clear" and not goal.negated:
                tops = [o for o in self.world.ids() if self.state.holds(_atom("on", o, goal.args[0]))]
                for top in tops:
                    if not self.holds("holding", top):
                        if not self.holds("gripper_empty"):
                            self.meet_preconditions(call, [_atom("gripper_empty")])
                        self.emit(*self.grasper(top), f"move {top} off {goal.args[0]} {why}")
                    self.park(top, why)
                return bool(tops)
            achiever = self.achiever(goal)
            if achiever is None:
                return False
            name, args = achiever
            self.emit(name, args, f"first {why}")
            return True
        finally:
            self.depth -= 1

    def achiever(self, goal: Predicate) -> tuple[str, dict[str, JsonValue]] | None:
        """A skill whose effect, unified with ``goal``, binds every required argument (the owner's first:
        ``reachable(x)`` is nav/approach_object's on a mobile robot, ``holding(x)`` the arm's pick)."""
        for skill in sorted(self.registry.ids(), key=lambda i: (not i.startswith(f"{self.owner}/"), i)):
            manifest = self.registry.get(skill)
            required = set((manifest.parameters or {}).get("required", ()))
            for text in manifest.effects:
                effect = bind(text, {})
                if effect.name != goal.name or effect.negated != goal.negated:
                    continue
                args: dict[str, JsonValue] = {}
                for param, value in zip(effect.args, goal.args, strict=True):
                    if param in (manifest.parameters or {}).get("properties", {}):
                        args[param] = value
                    elif param != value:
                        break
                else:
                    if required <= set(args):
                        return skill, args
        return None

    def park(self, held: str, why: str) -> bool:
        """Put ``held`` down on the parking surface; False when there is none to use."""
        if self.world.object(PARKING_SURFACE) is None or PARKING_SURFACE in self.history.excluded:
            return False
        self.notes.append(f"put {held} down on the {PARKING_SURFACE} {why}")
        skill, param = self.placer(PARKING_SURFACE)
        self.emit(skill, {param: PARKING_SURFACE}, f"put {held} down {why}", [_atom("on", held, PARKING_SURFACE)])
        return True

    def free_gripper(self, keep: str | None, intent: Intent) -> None:
        """Put down whatever is held (unless it is ``keep``) so the next step gets an empty gripper."""
        held = self.held()
        if held is None or held == keep:
            return
        if self.world.object(PARKING_SURFACE) is None or PARKING_SURFACE in self.history.excluded:
            raise UnplannableStep(f"{intent.clause!r} needs an empty gripper, but it holds {held}; say where to put it")
        self.notes.append(f"put {held} down on the {PARKING_SURFACE}: {intent.clause!r} needs an empty gripper")
        skill, param = self.placer(PARKING_SURFACE)
        self.emit(skill, {param: PARKING_SURFACE}, f"{intent.clause}: put {held} down first")

    def skip(self, what: str, because: Predicate) -> None:
        """Note a step left out because its effect already holds."""
        self.notes.append(f"skip {what}: {because} already holds")

    # -- intents ----------------------------------------------------------------------------------

    def add(self, intent: Intent) -> None:
        """Expand one intent into calls (or nothing, when its effect already holds), per object it names.

        A count no parameter takes ("tap the red cube twice", "tap red x3") repeats the clause's calls, when
        each repetition adds calls of its own (a step already done is not done twice: never a silent once)."""
        if intent.condition is not None and not self.condition_holds(intent, intent.condition):
            self.notes.append(f"{intent.condition.clause!r} does not hold: {intent.clause!r} left out")
            if intent.condition.subject is not None:  # "..., open it first, then put the cube in it": the drawer
                self.last_object = self.resolve(intent.condition.subject, intent)
            return
        before = len(self.steps)
        try:
            for each in self.each_object(self.grounded_reading(intent)):
                self.add_one(each)
        except TaskNotUnderstood:
            times = _repeats(intent)
            if times is None or len(self.steps) != before:
                raise
            once = intent.model_copy(update={"quantities": tuple(q for q in intent.quantities if q.unit != COUNT)})
            for _ in range(times):
                size = len(self.steps)
                self.add(once)
                if len(self.steps) == size:
                    raise
            self.notes.append(f"{intent.clause!r}: {times} times")

    def condition_holds(self, intent: Intent, condition: Condition) -> bool:
        """Whether an "if" holds in the world as the steps so far leave it. Where the world state cannot say
        (a fridge's door), a clause that would only make it false ("if the fridge is shut, open it") is
        kept, as doing it either way ends the same; any other clause is refused rather than guessed."""
        if condition.subject is None:
            holding = not self.holds("gripper_empty")
            return holding if condition.state == "holding" else not holding
        subject = self.resolve(condition.subject, intent)
        if subject in self.world.drawers:
            is_open = self.holds("drawer_open", subject)
            return is_open if condition.state == "open" else not is_open
        undoes = {"closed": IntentAction.OPEN, "open": IntentAction.CLOSE}.get(condition.state)
        if undoes is not None and intent.action is undoes:
            return True
        raise PlannerRefused(
            f"{condition.clause!r}: the world state does not say whether {subject} is {condition.state}",
            RefusalKind.AMBIGUOUS,
            candidates=(subject,),
        )

    def grounded_reading(self, intent: Intent) -> Intent:
        """The first reading of a placement whose object and target phrases each name one object here.

        "put the cube on the plate in the bowl": (the cube) in (the plate in the bowl) names no target
        here, (the cube on the plate) in (the bowl) does. The grammar's reading when none does (its
        refusal then names what did not match)."""
        # A split of the clause's own words that says only "it" would lose an object the clause was given
        # ("find the banana and put it on the plate": the banana), unless "it" has something to mean.
        it_means = intent.object is None or self.held() is not None or self.last_object is not None
        readings = [intent, *(r for r in other_splits(intent) if r.object is not None or it_means)]
        if len(readings) == 1:
            return intent
        for reading in readings:
            if all(self.names_one(phrase) for phrase in (reading.object, reading.target)):
                if reading is not intent:
                    self.notes.append(f"{intent.clause!r} read as {reading.object!r} -> {reading.target!r}")
                return reading
        return intent

    def names_one(self, phrase: str | None) -> bool:
        """Whether a phrase names exactly one object here (a pronoun or a list/quantifier counts as yes)."""
        if phrase is None:
            return True
        phrases, quantified = expand_phrase(phrase)
        if quantified or len(phrases) != 1:
            return True
        return len(match_objects(phrases[0], self.world, exclude=self.history.excluded).ids) == 1

    def each_object(self, intent: Intent) -> list[Intent]:
        """One intent per object a list or a quantifier names ("all the cubes": in id order); a list of
        regions is one intent when a skill takes a list of places ("patrol A and B"), else one per region."""
        if intent.object is None:
            return [intent]
        if intent.action in _ACTS and any(counts_apart(intent.object, m)[1] for m in self.skills_for(intent)):
            return [intent]  # "scan all 8 levels of the shelf": a count of the skill's, not of objects
        for manifest in self.skills_for(intent) if intent.action in _ACTS else ():
            rest, units = unit_apart(intent.object, manifest)
            if units and rest != intent.object:  # "read p7 and t3, in bar": each of them, in bar
                said = f" in {next(iter(units.values()))}"
                each = self.each_object(intent.model_copy(update={"object": rest}))
                return [i.model_copy(update={"object": f"{i.object}{said}"}) if i.object else i for i in each]
        regions = regions_listed(intent.object, self.world) if intent.action in _ACTS else None
        if regions:
            listed = Referent(regions[0], region=True, more=tuple(regions[1:]))
            if any(fit(m, listed, self.world) for m in self.skills_for(intent)):
                return [intent]
            self.notes.append(f"{intent.object!r} -> {', '.join(regions)}")
            return [intent.model_copy(update={"object": r}) for r in regions]
        others = self.others(intent)
        if others is not None:  # "the other two", "the rest of the cubes": one intent each
            return [intent.model_copy(update={"object": i}) for i in others]
        phrases, quantified = expand_phrase(_ANY_COUNT.sub("", intent.object))
        if not quantified and len(phrases) == 1 and intent.excluding is None:
            if intent.tower:
                raise UnplannableStep(f"{intent.clause!r}: a tower needs two objects or more")
            return [intent]
        ids: list[str] = []
        for phrase in phrases:
            if quantified:
                found = resolve_all(phrase, self.world, exclude=self.history.excluded)
                target = self.resolve(intent.target, intent) if intent.target and not intent.tower else None
                ids.extend(i for i in found if i != target and i not in ids)
            else:
                ids.append(self.resolve(phrase, intent))
        if intent.excluding is not None:
            left_out = {self.resolve(p, intent) for p in expand_phrase(intent.excluding)[0]}
            ids = [i for i in ids if i not in left_out]
            if not ids:
                raise PlannerRefused(
                    f"{intent.clause!r}: nothing is left once {intent.excluding!r} is left out",
                    RefusalKind.NO_SUCH_OBJECT,
                )
            self.notes.append(f"left out {intent.excluding!r}: {', '.join(sorted(left_out))}")
        count = stated_count(_ANY_COUNT.sub("", intent.object))
        if count is not None and count < len(ids) and not _DEFINITE.match(intent.object.strip().lower()):
            # "put two cubes on the plate", "any two cubes": which ones is not said, the nearest will do
            nearest = sorted(ids, key=lambda i: (self._distance(i), i))[:count]
            self.notes.append(
                f"{intent.object!r} -> {', '.join(nearest)} (any {count} of {', '.join(ids)}: the nearest)"
            )
            ids = [i for i in ids if i in nearest]
        if count is not None and count != len(ids):
            raise PlannerRefused(
                f"{intent.object!r} names {count}, but {len(ids)} match: say which",
                RefusalKind.AMBIGUOUS,
                candidates=tuple(ids),
            )
        if intent.action is IntentAction.PICK and len(ids) > 1:
            raise NotAfforded(
                f"{intent.clause!r} names {', '.join(ids)}, but the gripper holds one object at a time; "
                "say where to put them"
            )
        if intent.order is not None:  # "going from your left to your right": y is to the robot's left
            ids = self.in_order(ids, intent.order)
        self.notes.append(
            f"{intent.object!r} -> {', '.join(ids)}"
            + (
                f" ({intent.order.replace('_', ' ')})"
                if intent.order
                else " (every match, in id order)"
                if quantified
                else ""
            )
        )
        if intent.action is IntentAction.STACK:
            # "stack all the cubes on the plate": a tower, each one on the one before; "build a tower of
            # the cubes": the first one is the base.
            if intent.tower:
                if intent.target is not None:  # "with the blue cube at the bottom": it is one of the tower's
                    bottom = self.resolve(intent.target, intent)
                    ids = [bottom, *(i for i in ids if i != bottom)]
                if intent.top is not None:
                    top = self.resolve(intent.top, intent)
                    ids = [*(i for i in ids if i != top), top]
                if len(ids) < 2:
                    raise UnplannableStep(f"{intent.clause!r}: a tower needs two objects or more, found {ids}")
                base, ids = ids[0], ids[1:]
            else:
                base = intent.target or ""
            bases = [base, *ids[:-1]]
            self.notes.append(f"stacked as a tower: {' on '.join(reversed(ids))} on {base}")
            return [
                intent.model_copy(update={"object": i, "target": b, "tower": False})
                for i, b in zip(ids, bases, strict=True)
            ]
        if intent.action is IntentAction.PUT and intent.target is None and len(ids) > 1:
            # "put the red cube and the green cube inside": inside what came before the list, for each of them
            where = self.resolve(None, intent)
            return [intent.model_copy(update={"object": i, "target": where}) for i in ids]
        return [intent.model_copy(update={"object": i}) for i in ids]

    def add_one(self, intent: Intent) -> None:
        """Expand one single-object intent into calls."""
        handler = {
            IntentAction.PICK: self.pick,
            IntentAction.PUT: self.put,
            IntentAction.STACK: self.stack,
            IntentAction.PUSH: self.act,
            IntentAction.POUR: self.act,
            IntentAction.TAP: self.act,
            IntentAction.OPEN: self.act,
            IntentAction.CLOSE: self.act,
            IntentAction.ACT: self.act,
            IntentAction.HOME: self.home,
        }[intent.action]
        if intent.quantities and handler != self.act:
            before = len(self.steps)
            handler(intent.model_copy(update={"quantities": ()}))
            self.amounts_to_steps(intent, before)
            return
        handler(intent)

    def amounts_to_steps(self, intent: Intent, first: int) -> None:
        """The amounts of a pick, put or stack clause, each to the first call it made whose skill takes it
        ("place the cube on the plate with a release height of 3 cm": place_on's release_height), one whose
        parameter it names first; an amount none of them takes is not understood, never dropped."""
        for amount in intent.quantities:
            one = intent.model_copy(update={"quantities": (amount,)})
            made = range(first, len(self.steps))
            named = [i for i in made if amount.named is None or self._names_a_param(self.steps[i].skill, amount)]
            for index in [*named, *(i for i in made if i not in named)]:
                call = self.steps[index]
                manifest = self.registry.get(call.skill)
                args = dict(call.args)
                try:
                    self.take_quantities(manifest, args, one)
                except TaskNotUnderstood:
                    continue
                self.steps[index] = call.model_copy(update={"args": args})
                break
            else:
                raise TaskNotUnderstood(intent.clause, intent.clause)  # an amount no call of this clause takes

    def _names_a_param(self, skill: str, amount: Quantity) -> bool:
        manifest = self.registry.get(skill)
        return any(_names_param(amount.named or "", p) for p in manifest.parameter_names())

    def pick(self, intent: Intent) -> None:
        claimed = intent.verb is not None and any(intent.verb in m.phrases() for m in self.registry)
        if claimed and not (intent.verb or "").endswith(" out"):
            self.act(intent)  # "fetch the mug": a skill that claims the verb as its own serves it
            return
        obj = self.resolve(intent.object, intent)
        container = next((c for c in self.world.ids() if self.holds("in", obj, c)), None)
        if claimed and container is None:
            self.act(intent)  # "take out the rubbish"; but "take the mug out" of the fridge it is in is a pick
            return
        if container is not None and not self.affords(container, "openable") and self.take_out(obj, container, intent):
            return  # in a fridge, a box: the skill that takes things out of a container, where the robot has one
        self.last_object = obj
        skill, args = self.grasper(obj)
        if self.already_done(skill, args):
            return
        self.goal.append(_atom("holding", obj))
        if self.holds("holding", obj):
            self.skip(SkillCall(skill=skill, args=args).label(), _atom("holding", obj))
            return
        self.open_what_hides(obj, SkillCall(skill=skill, args=args))
        self.free_gripper(None, intent)
        self.emit(skill, args, intent.clause)

    def open_what_hides(self, obj: str, grasp: SkillCall) -> None:
        """Open the closed drawer ``obj`` lies in before ``grasp``: a closed drawer hides what is in it."""
        container = next((c for c in self.world.ids() if self.holds("in", obj, c)), None)
        if container is not None and self.affords(container, "openable"):
            opened = _atom("drawer_open", container)
            if not self.state.holds(opened):
                self.meet_preconditions(grasp, [opened])

    def take_out(self, obj: str, container: str, intent: Intent) -> bool:
        """Grasp ``obj`` out of ``container`` with a skill that takes both (False when the robot has none);
        a container one of the robot's skills opens (a fridge, a cupboard) is opened first, unless this plan
        opened it already: the world state does not say whether it is open, and nothing is taken out of a
        closed one."""
        for manifest in self.registry:
            roles = manifest.roles()
            source = next((p for p, r in roles.items() if r is Role.PLACE), None)
            taken = next((p for p, r in roles.items() if r is Role.OBJECT), None)
            if source is None or taken is None or f"holding({taken})" not in manifest.effects:
                continue
            self.open_first(container, intent)
            self.goal.append(_atom("holding", obj))
            self.last_object = obj
            self.emit(manifest.id, {taken: obj, source: container}, intent.clause)
            return True
        return False

    def open_first(self, container: str, intent: Intent) -> None:
        """Open ``container`` with the skill that opens things of its kind, when there is one and no step of
        this plan has opened it yet."""
        openers = candidates(self.registry, None, {ActionVerb.OPEN})
        if not any(fit(m, Referent(container), self.world) for m in openers):
            return
        opened = self.holds("drawer_open", container) or any(  # the world says so, or a step opened it
            container in call.args.values() and ActionVerb.OPEN in self.registry.get(call.skill).actions
            for call in self.steps
        )
        if not opened:
            self.notes.append(f"{intent.clause!r}: open {container} first (nothing is taken out of a closed one)")
            self.act(Intent(action=IntentAction.OPEN, clause=intent.clause, verb="open", object=container))

    def put(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        try:
            target = self._target(intent, obj)
        except PlannerRefused:
            self.refuse_untakeable(obj)  # "pick up the table and carry it to ...": the table is the problem
            raise
        self.last_object = obj
        placed = self.placement(obj, target, intent)
        self.goal.append(placed[-1])
        for relation in ("on", "in"):  # "in the bowl" is done whether the world says in or on
            if self.holds(relation, obj, target):
                self.skip(f"put({obj}, {target})", _atom(relation, obj, target))
                return
        try:
            skill, param = self.placer(target)
        except MissingSkill:
            moving = self.mover(obj, target)
            if moving is None:
                raise
            # A robot that manipulates through a VLA policy: one closed-loop call picks and places.
            self.emit(*moving, intent.clause, placed)
            return
        opened = _atom("drawer_open", target)
        if self.affords(target, "openable") and not self.state.holds(opened):
            # An openable container takes things only when open; opening needs the gripper empty.
            self.meet_preconditions(SkillCall(skill=skill, args={param: target}), [opened])
        self._grasp(obj, intent)
        self.emit(skill, {param: target}, intent.clause, placed)

    def refuse_untakeable(self, obj: str) -> None:
        """Refuse, naming why, when ``obj`` cannot be taken at all: no skill of the robot grasps anything
        (missing_skill), or the one that would needs what ``obj`` does not afford (not_afforded)."""
        if self.held() == obj:
            return
        skill, args = self.grasper(obj)
        manifest = self.registry.get(skill)
        for param, value in args.items():
            if value == obj and (lacks := [n for n in affordance_needs(manifest, param) if not self.affords(obj, n)]):
                raise NotAfforded(f"{skill}({obj}) needs {lacks[0]}({obj}), and {obj} is not {lacks[0]} here")

    def grasper(self, obj: str) -> tuple[str, dict[str, JsonValue]]:
        """The call that puts ``obj`` in the gripper: the skill whose effect is holding(...) (pick)."""
        found = self.achiever(_atom("holding", obj))
        if found is None:
            raise MissingSkill(f"no skill of this robot picks up {obj} (none has the effect holding(...))")
        return found

    def mover(self, obj: str, target: str, *, generalist: bool = True) -> tuple[str, dict[str, JsonValue]] | None:
        """A skill that puts ``obj`` at ``target`` in one motion (an effect on(<its object>, <its destination>)):
        one whose ``objects`` name the target's category first, then one whose main action is PICK_AND_PLACE
        (stack before a generalist VLA skill, which ``generalist=False`` leaves out)."""
        place = self.world.object(target)
        ranked: list[tuple[bool, bool, str, str, str]] = []
        for manifest in self.registry:
            roles = manifest.roles()
            thing = next((p for p, r in roles.items() if r is Role.OBJECT), None)
            where = next((p for p, r in roles.items() if r is Role.DESTINATION), None)
            moves = any(
                (e := parse_predicate(text)).name == "on" and e.args == (thing, where) and not e.negated
                for text in manifest.effects
            )
            if thing is None or where is None or not moves:
                continue
            if not generalist and manifest.actions[0] is not ActionVerb.PICK_AND_PLACE:
                continue
            named = place is not None and names_category(manifest, place.category)
            ranked.append((not named, manifest.actions[0] is not ActionVerb.PICK_AND_PLACE, manifest.id, thing, where))
        if not ranked:
            return None
        _, _, skill, thing, where = min(ranked)
        return skill, {thing: obj, where: target}

    def placer(self, target: str) -> tuple[str, str]:
        """The skill that puts what is held at ``target``, and its destination parameter, by the manifests.

        Among the skills that release what they hold (an effect ``gripper_empty``) into a destination
        parameter: the one whose ``objects`` name the target's category (a bin: place_in), else one whose
        preconditions the target affords (support(bowl): place_on)."""
        obj = self.world.object(target)
        ranked: list[tuple[int, str, str]] = []
        for manifest in self.registry:
            destination = next((p for p, r in manifest.roles().items() if r is Role.DESTINATION), None)
            required = (manifest.parameters or {}).get("required", ())
            if destination is None or "gripper_empty" not in manifest.effects or list(required) != [destination]:
                continue
            needs = affordance_needs(manifest, destination)
            if obj is None or any(not obj.affords(n) for n in needs):
                continue
            ranked.append((2 if names_category(manifest, obj.category) else 1, manifest.id, destination))
        if not ranked:
            raise MissingSkill(f"no skill of this robot puts things at {target}")
        best = max(score for score, _, _ in ranked)
        top = sorted((skill, param) for score, skill, param in ranked if score == best)
        if len(top) > 1:
            raise PlannerRefused(
                f"to put something at {target}, {' and '.join(s for s, _ in top)} fit equally: say which",
                RefusalKind.AMBIGUOUS,
                candidates=[s for s, _ in top],
            )
        return top[0]

    def affords(self, object_id: str, affordance: str) -> bool:
        """Whether the world says ``object_id`` affords this (a drawer listed only by id opens)."""
        return self.state.holds(_atom(affordance, object_id))

    def placement(self, obj: str, target: str, intent: Intent) -> list[Predicate]:
        """What placing ``obj`` at ``target`` makes true; the last one is the task's goal for it."""
        # "in the bowl", or "to the bowl" (no relation said): a container holds what goes to it.
        into = intent.relation == "in" or (intent.relation is None and intent.action is IntentAction.PUT)
        if (into and self.affords(target, "container")) or not self.affords(target, "support"):
            return [_atom("on", obj, target), _atom("in", obj, target)]
        return [_atom("on", obj, target)]

    def stack(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        base = self._target(intent, obj)
        self.last_object = obj
        stacked = _atom("on", obj, base)
        self.goal.append(stacked)
        if self.holds("on", obj, base):
            self.skip(f"stack({obj}, {base})", stacked)
        elif self.holds("holding", obj) or (moving := self.mover(obj, base, generalist=False)) is None:
            # Held already (a pick succeeded before a replan), or no one-motion skill: place it instead.
            self._grasp(obj, intent)
            skill, param = self.placer(base)
            self.emit(skill, {param: base}, intent.clause, [stacked])
        else:
            self.free_gripper(None, intent)
            self.emit(*moving, intent.clause)

    def actions(self, intent: Intent) -> frozenset[ActionVerb]:
        """The closed actions a clause's verb asks for (its form's, or its verb phrase's)."""
        if intent.action is IntentAction.ACT:
            return actions_of(intent.verb or "")
        return frozenset(load_lexicon().intent_actions.get(intent.action.value, ()))

    def skills_for(self, intent: Intent) -> list[SkillManifest]:
        """The skills a clause's verb asks for, by the manifests."""
        return candidates(self.registry, intent.verb, self.actions(intent))

    def act(self, intent: Intent) -> None:
        """A clause served by one skill chosen from the manifests (open, push, wipe, go to, read ...)."""
        actions = self.actions(intent)
        doing = intent.verb or intent.action.value
        skills = candidates(self.registry, intent.verb, actions)
        if not skills:
            raise MissingSkill(f"{intent.clause!r}: no skill of this robot can {doing}")
        skills = self.giving_the_held(intent, skills)
        intent = self.said_apart(self.place_apart(intent, skills), skills)
        counted: dict[str, int] = {}
        for manifest in skills if intent.object is not None else ():
            rest, counted = counts_apart(intent.object or "", manifest)
            if counted:  # "scan 3 levels of the shelf": levels, the parameter the noun names
                intent = intent.model_copy(update={"object": rest})
                break
        units: dict[str, str] = {}
        for manifest in skills if intent.object is not None else ():
            rest, units = unit_apart(intent.object or "", manifest)
            if units:  # "read p7 in bar": the unit the reading is expected in ("read it in psi": it)
                intent = intent.model_copy(update={"object": object_phrase(rest)})
                break
        place = self.place_to_go(intent, skills)
        if place is not None:  # "photograph the control room": go there, then the skill on nothing named
            self.act(Intent(action=IntentAction.ACT, clause=intent.clause, verb="go to", object=intent.object))
            self.notes.append(f"{intent.clause!r}: at {place}, on nothing named there")
            intent = intent.model_copy(update={"object": None, "bare": True})
        referent = self.referent(intent, skills)
        chosen = choose(skills, referent, self.world, doing=doing, actions=actions)
        if referent is None:
            referent = self.unnamed_referent(chosen.manifest)
            chosen = Fit(chosen.manifest, referent_param(chosen.manifest, region=False), chosen.score)
        args = self.arguments(chosen, referent, intent)
        for param, unit in units.items():
            if param not in chosen.manifest.parameter_names():
                raise TaskNotUnderstood(intent.clause, intent.clause)
            args[param] = unit
        for param, number in counted.items():
            if param not in chosen.manifest.parameter_names():
                raise TaskNotUnderstood(intent.clause, intent.clause)
            amount = Quantity(value=number, unit=COUNT, kind=COUNT, span=(0, 0), text=f"{number} {param}")
            schema = chosen.manifest.parameter_schema(param)
            args[param] = int(fit_quantity(amount, {"unit": COUNT, **schema}, param, owner=chosen.manifest.id))
        skill = chosen.manifest.id
        if referent is not None and not referent.region:
            self.last_object = referent.id
        self.last_region = referent.id if referent is not None and referent.region and not referent.more else None
        wanted = [bind(text, args) for text in goal_effects(chosen.manifest.effects, args)]
        self.goal.extend(wanted)
        if self.already_done(skill, args):
            return
        if wanted and all(self.state.holds(w) for w in wanted):
            self.skip(SkillCall(skill=skill, args=args).label(), wanted[0])
            return
        if self.restates(skill, args, intent, actions):
            self.notes.append(f"{intent.clause!r}: the same {SkillCall(skill=skill, args=args).label()} as before")
            return
        self.emit(skill, args, intent.clause)
        self.last_actions = actions

    def place_to_go(self, intent: Intent, skills: list[SkillManifest]) -> str | None:
        """The region a clause names for skills that act on objects, none of which it names, and that need none
        named ("take a photo in the boiler room"): the robot goes there first. None otherwise."""
        if intent.object is None or match_objects(intent.object, self.world).ids:
            return None
        region = region_named(intent.object, self.world) or region_named(intent.object, self.world, partly=True)
        if region is None or any(fit(m, Referent(region, region=True), self.world) for m in skills):
            return None
        for manifest in skills:
            param = referent_param(manifest, region=False)
            required = set((manifest.parameters or {}).get("required", ()))
            if param is not None and param not in required:
                navigation = candidates(self.registry, "go to", frozenset({ActionVerb.NAVIGATE}))
                if any(fit(m, Referent(region, region=True), self.world) for m in navigation):
                    return region
        return None

    def restates(self, skill: str, args: dict[str, JsonValue], intent: Intent, actions: frozenset[ActionVerb]) -> bool:
        """Whether a clause says again what the clause before it did, by going ("go to the charger and
        dock" is one dock): the same call, the step just before, and one of the two clauses a going verb."""
        if not self.steps or call_key(self.steps[-1].skill, self.steps[-1].args) != call_key(skill, args):
            return False
        going = ActionVerb.NAVIGATE in actions | self.last_actions
        return going and self.steps[-1].rationale != intent.clause[:_RATIONALE_LIMIT]

    def referent(self, intent: Intent, skills: list[SkillManifest]) -> Referent | None:
        """What the clause acts on: a region it names, else the object among those some skill fits."""
        fitting = {o.id for o in self.world.objects if any(fit(m, Referent(o.id), self.world) for m in skills)}
        if intent.object is not None and self.names_a_person(intent.object, skills):
            return None  # "follow me": the skill's person, its default
        if intent.object is not None and self.implied(intent.object, skills):
            return None  # "undock from the charger", "hand over the mug" (the one held): the skill's own
        if intent.object is None:
            if intent.bare:
                return None  # "undock", "wait 10 seconds": nothing named
            if self.last_region is not None:  # "go to the living room and vacuum it"
                place = Referent(self.last_region, region=True)
                if any(fit(m, place, self.world) for m in skills):
                    return place
            held = self.held()
            if held is not None and self.last_object in (None, held) and self.hands_over_held(skills):
                self.notes.append(f"'it' in {intent.clause!r} -> {held} (the one held)")
                return None  # "hand it to me": the skill takes what is held, no object argument
            return Referent(self.resolve(None, intent, among=fitting))  # "put the cube in the drawer and shut it"
        regions = regions_listed(intent.object, self.world)
        if regions:  # a list of places for one skill that takes them all (each_object split the others)
            return Referent(regions[0], region=True, more=tuple(regions[1:]))
        region = region_named(intent.object, self.world)
        if region is not None and any(fit(m, Referent(region, region=True), self.world) for m in skills):
            return Referent(region, region=True)
        try:
            return Referent(self.resolve(intent.object, intent, among=fitting))
        except UnknownObject:
            # "go to the corridor": the one region whose name holds the words, where no object here is named by
            # them ("go to the pump" names pump_2, never pump_house: a skill that cannot take it refuses)
            region = region_named(intent.object, self.world, partly=True)
            named = match_objects(intent.object, self.world).ids
            if (
                region is not None
                and not named
                and any(fit(m, Referent(region, region=True), self.world) for m in skills)
            ):
                self.notes.append(f"{intent.object!r} -> {region} (the one place so named)")
                return Referent(region, region=True)
            places = regions_partly_named(intent.object, self.world)
            if (
                len(places) > 1
                and not named
                and intent.target is None
                and any(fit(m, Referent(places[0], region=True), self.world) for m in skills)
            ):
                raise PlannerRefused(
                    f"{intent.object!r} names {len(places)} places here: say which", RefusalKind.AMBIGUOUS, places
                ) from None
            # Named, but no skill fits it: resolve it among everything, so the refusal says why.
            return Referent(self.resolve(intent.object, intent))

    def take_quantities(self, manifest: SkillManifest, args: dict[str, JsonValue], intent: Intent) -> None:
        """Each amount the clause names goes to the quantity parameter whose unit it converts to, checked
        against that parameter's bounds; an amount no parameter takes is not guessed at."""
        for amount in intent.quantities:
            params = [p for p, role in manifest.roles().items() if role is Role.QUANTITY and p not in args]
            if amount.named is not None:  # "with a clearance of 1 m": the parameter it names, if the skill has one
                named = [p for p in params if _names_param(amount.named, p)]
                if len(named) > 1:
                    raise TaskNotUnderstood(intent.clause, amount.text)
                params = named or params
            for param in params:
                try:
                    value = fit_quantity(amount, manifest.parameter_schema(param), param, owner=manifest.id)
                except UnitMismatch:
                    continue
                except ValueError:
                    continue  # no unit stated for it
                is_integer = manifest.parameter_schema(param).get("type") == "integer"
                args[param] = int(value) if is_integer and value == int(value) else value
                break
            else:
                raise TaskNotUnderstood(intent.clause, intent.clause)

    def unnamed_referent(self, manifest: SkillManifest) -> Referent | None:
        """What a skill acts on when the task names nothing ("recharge"): its default when that is here, else
        the one object here it fits; a default naming nothing in this world is never sent."""
        param = referent_param(manifest, region=False)
        if param is None:
            return None
        default = manifest.parameter_schema(param).get("default")
        if default is None or self.world.object(str(default)) is not None:
            return None  # the skill's own choice, and it names something here (or it needs none)
        fitting = sorted(o.id for o in self.world.objects if fit(manifest, Referent(o.id), self.world) is not None)
        # "set the table" (its parameter ``table``): of those it fits, the one of the kind the parameter names
        kind = [i for i in fitting if (o := self.world.object(i)) is not None and o.category == param]
        if len(kind) == 1 and len(fitting) > 1:
            self.notes.append(f"{manifest.id}'s {param}: {kind[0]}, the one {param} here ({default!r} is not)")
            return Referent(kind[0])
        if len(fitting) == 1:
            self.notes.append(f"{manifest.id}'s {param}: {fitting[0]}, the one here ({default!r} is not)")
            return Referent(fitting[0])
        if not fitting:
            raise PlannerRefused(
                f"{manifest.id} would act on {default!r}, which is not in the world; name what to use",
                RefusalKind.NO_SUCH_OBJECT,
            )
        raise PlannerRefused(f"{manifest.id} needs its {param}: say which", RefusalKind.AMBIGUOUS, candidates=fitting)

    def implied(self, phrase: str, skills: list[SkillManifest]) -> bool:
        """Whether a phrase names what skills that take nothing named act on anyway: an object of a category
        their ``objects`` name ("undock from the charger"), or the held one for a skill that needs one held
        ("hand over the red mug")."""
        if any(referent_param(m, region=False) or referent_param(m, region=True) for m in skills):
            return False
        phrase = re.sub(r"^(?:from|off of|off|at|to|on|onto|with)\s+", "", phrase)
        ids = match_objects(phrase, self.world, exclude=self.history.excluded).ids
        held = self.held()
        needs_held = any("not gripper_empty" in m.preconditions for m in skills)
        if held is not None and held in ids and needs_held:
            self.notes.append(f"{phrase!r} -> {held} (the one held)")
            return True
        objects = [o for i in ids if (o := self.world.object(i)) is not None]
        return len(objects) == 1 and any(names_category(m, objects[0].category) for m in skills)

    def giving_the_held(self, intent: Intent, skills: list[SkillManifest]) -> list[SkillManifest]:
        """The skills that hand over what is held, when the clause names the held object to a skill that would
        go and get it ("hand the red mug to me" while holding it: hand it over, do not fetch it); else ``skills``."""
        held = self.held()
        if held is None or self.hands_over_held(skills):
            return skills
        shared = {action for m in skills for action in m.actions}
        givers = [m for m in self.registry if set(m.actions) & shared and self.hands_over_held([m])]
        if intent.object is None:  # "give me that" while holding something: that is what is held
            return givers or skills
        try:
            named = match_objects(intent.object, self.world).ids
        except ObjectMatchError:
            return skills
        return givers if givers and held in named else skills

    @staticmethod
    def hands_over_held(skills: list[SkillManifest]) -> bool:
        """Whether the skills take no object argument and act on what is held ("hand over")."""
        if any(referent_param(m, region=False) or referent_param(m, region=True) for m in skills):
            return False
        return any("not gripper_empty" in m.preconditions for m in skills)

    @staticmethod
    def names_a_person(phrase: str, skills: list[SkillManifest]) -> bool:
        """Whether ``phrase`` is the person the robot serves ("me", "the operator") and a skill takes one."""
        return phrase in load_lexicon().people and any(Role.PERSON in m.roles().values() for m in skills)

    def said_apart(self, intent: Intent, skills: list[SkillManifest]) -> Intent:
        """The clause's phrases without what they say of the skill rather than the object: a target no skill
        takes joined back to its object ("read the label on the shelf"), a choice among a parameter's values
        ("on max power", "with the wrist camera"), the part of a place ("the floor of the living room")."""
        takes_target = any(
            role in (Role.DESTINATION, Role.PLACE, Role.PERSON) for m in skills for role in m.roles().values()
        )
        if intent.target is not None and is_choice(intent.target, skills):
            intent = intent.model_copy(update={"target": None})
        elif intent.target is not None and intent.joined is not None and not takes_target:
            intent = intent.model_copy(update={"object": intent.joined, "target": None})
        if intent.object is None:
            return intent
        words = {w for o in self.world.objects for w in object_words(o)}
        words |= {w for name in self.world.regions for w in phrase_words(name)}
        phrase = surface_apart(choice_apart(intent.object, skills), skills, words, self.world.regions)
        if phrase != intent.object and object_phrase(phrase) is None:
            return intent.model_copy(update={"object": None})  # "vacuum it on eco": 'it', once the choice is apart
        return intent if phrase == intent.object else intent.model_copy(update={"object": phrase})

    def place_apart(self, intent: Intent, skills: list[SkillManifest]) -> Intent:
        """ "the red mug from the kitchen": the region is the skill's place, not part of the object."""
        found = _FROM_REGION.match(intent.object or "")
        if found is None or intent.target is not None or region_named(found.group("where"), self.world) is None:
            return intent
        if not any(Role.PLACE in m.roles().values() for m in skills):
            return intent
        return intent.model_copy(update={"object": found.group("what"), "target": found.group("where")})

    def arguments(self, chosen: Fit, referent: Referent | None, intent: Intent) -> dict[str, JsonValue]:
        """The call's arguments, each from the words of its role; what the clause says and no role takes
        is not guessed at (the task is not understood)."""
        manifest = chosen.manifest
        args: dict[str, JsonValue] = {}
        if chosen.param is not None and referent is not None:
            listed = manifest.parameter_schema(chosen.param).get("type") == "array"
            args[chosen.param] = list(referent.ids()) if listed else referent.id
        required = set((manifest.parameters or {}).get("required", ()))
        took_target = took_direction = False
        for param, role in manifest.roles().items():
            if param in args:
                continue
            if role in (Role.DESTINATION, Role.PLACE) and (intent.target is not None or param in required):
                place = region_named(intent.target, self.world) if intent.target and role is Role.PLACE else None
                args[param] = place or self._target(intent, referent.id if referent else "")
                took_target = True
            elif role is Role.PERSON and intent.target is not None and intent.target in load_lexicon().people:
                took_target = True  # "hand it to me": the skill's person, its default
            elif role is Role.DIRECTION and intent.direction is not None:
                allowed = manifest.parameter_schema(param).get("enum")
                if allowed is not None and intent.direction not in allowed:
                    raise NotAfforded(f"{manifest.id} moves {', '.join(map(str, allowed))}, not {intent.direction}")
                args[param] = intent.direction
                took_direction = True
        self.take_quantities(manifest, args, intent)
        words = set(intent.clause.split())
        for param in manifest.parameter_names():
            allowed = manifest.parameter_schema(param).get("enum")
            if param in args or not isinstance(allowed, list):
                continue
            said = [v for v in allowed if isinstance(v, str) and v in words]
            if len(said) == 1:  # "turn off the light": state off
                args[param] = said[0]
        if (intent.target is not None and not took_target) or (intent.direction is not None and not took_direction):
            raise TaskNotUnderstood(intent.clause, intent.clause)
        missing = sorted(required - set(args))
        if missing:
            raise UnplannableStep(f"{intent.clause!r}: {manifest.id} needs {', '.join(missing)}, which it does not say")
        return args

    def home(self, intent: Intent) -> None:
        self.goal.append(_atom("at_home"))
        if self.holds("at_home"):
            self.skip("home", _atom("at_home"))
            return
        homing = self.achiever(_atom("at_home"))
        if homing is None:
            raise MissingSkill("no skill of this robot goes home (none has the effect at_home)")
        self.emit(*homing, intent.clause)

    def _target(self, intent: Intent, obj: str) -> str:
        target = self.resolve(intent.target, intent)
        self.last_target = target
        if target == obj:
            raise UnplannableStep(f"{intent.clause!r} names {obj} as both the object and where it goes")
        return target

    def _grasp(self, obj: str, intent: Intent) -> None:
        """Make sure ``obj`` is in the gripper: put anything else down, then pick it unless held."""
        if not self.holds("holding", obj):
            skill, args = self.grasper(obj)
            self.open_what_hides(obj, SkillCall(skill=skill, args=args))
            self.free_gripper(obj, intent)
            self.emit(skill, args, f"{intent.clause}: grasp {obj} first")

    def finish(self, intents: int) -> Plan:
        """The plan: the steps, and notes that say what the planner did and why."""
        if not self.steps:
            self.notes.append("already done: nothing to do")
        else:
            self.notes.append(f"{intents} intent(s) -> {len(self.steps)} step(s)")
        notes = "; ".join(self.notes)
        if len(notes) > _NOTES_LIMIT:
            notes = notes[: _NOTES_LIMIT - 1] + "…"
        # A later clause may undo an earlier one's goal ("pick the red cube, then the blue one"): the task's
        # goal is what its clauses leave true at the end.
        goal = tuple(dict.fromkeys(str(g) for g in self.goal if self.state.holds(g)))
        return Plan(steps=tuple(self.steps), goal=goal, notes=notes, planner=self.planner_name)

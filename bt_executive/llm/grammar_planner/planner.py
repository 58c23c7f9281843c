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

import re
from collections.abc import Sequence

from bt_executive.llm.grammar_planner.attempt_history import AttemptHistory
from bt_executive.llm.grammar_planner.moving import Moving
from bt_executive.llm.grammar_planner.planning_errors import (
    MissingSkill,
    NotAfforded,
    RetriesExhausted,
    UnplannableStep,
)
from bt_executive.llm.grammar_planner.said_arguments import said_options
from bt_executive.llm.grammar_planner.vocabulary import known_words, protected_words, robot_verbs
from bt_executive.llm.grounding.object_matching import UnknownObject, match_objects, object_words
from bt_executive.llm.grounding.place_names import named_places
from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.quantities import COUNT
from bt_executive.llm.language.task_grammar import Intent, IntentAction, TaskNotUnderstood, parse_task
from bt_executive.llm.language.typos import correct
from bt_executive.llm.plan import Plan, PlannerError, PlannerRefused, RefusalKind, refuse_unreadable
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.manifest import ActionVerb
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

__all__ = ["GrammarPlanner", "MissingSkill", "NotAfforded", "RetriesExhausted", "UnplannableStep"]


PLANNER_NAME = "stub"


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
            placed = named_places(task, world_state)  # "the lounge": this world's living room
            optioned, told = said_options(placed.text, self._registry)  # "the quiet setting": eco
            words = optioned.split()
            fixed = correct(words, known_words(world_state, self._registry), protected=protected_words(world_state))
            notes = (*placed.notes, *told, *fixed.notes)
            if not notes:
                raise self._explained(first, task, world_state) from None
            reading = " ".join(fixed.words)
            try:
                plan = self._plan(reading, world_state, prior_attempts)
            except PlannerError:
                raise self._explained(first, task, world_state) from None
            return plan.model_copy(update={"notes": f"read as {reading!r} ({', '.join(notes)}); {plan.notes}"})

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
        builder.said_speed = _speed_said(task)
        try:
            for intent in intents:
                before, back = len(builder.steps), builder.going_back
                builder.add(intent)
                if back is not None:
                    builder.went_back(before, last=False)
            builder.went_back(len(builder.steps), last=True)
            builder.stayed(any(i.in_place for i in intents))
        except PlannerRefused as refusal:
            if prior_attempts and refusal.kind is RefusalKind.NO_SUCH_OBJECT:
                # It was there when the task was accepted: the world changed under the task, an error.
                raise PlannerError(refusal.reason) from refusal
            raise
        return builder.finish(len(intents))


def _speed_said(task: str) -> str | None:
    """The lexicon's speed adverb the task says ("slowly"), if any."""
    words = " ".join(re.findall(r"[a-z]+", task.lower()))
    return next((a for a in load_lexicon().speed_adverbs if re.search(rf"\b{re.escape(a)}\b", words)), None)


def _names_one_then_more(phrase: str, world: WorldState) -> bool:
    """Whether the phrase's first words name exactly one object, ending in its noun ("the green cube"), and
    the rest neither say where it is nor describe an object ("upside down", "for cracks"; not "gauge", "b")."""
    words = phrase.split()
    lexicon = load_lexicon()
    describing = lexicon.colour_words() | lexicon.category_words() | set(lexicon.categories)
    describing |= {w for o in world.objects for w in object_words(o)}
    relations = lexicon.place_words.trailing_relations  # a miss there is no such object, not unread words
    for cut in range(len(words) - 1, 0, -1):
        head, rest = words[:cut], words[cut:]
        if rest[0] in relations or set(rest) & describing or any(len(w) < 3 or w.isdigit() for w in rest):
            continue
        found = match_objects(" ".join(head), world).ids
        obj = world.object(found[0]) if len(found) == 1 else None
        if obj is not None and head[-1] in object_words(obj) and head[-1] not in lexicon.colour_words():
            return True
    return False


MAX_REPEATS = 10
"""The most times a count repeats a clause's calls ("tap it 3 times")."""


def _repeats(intent: Intent) -> int | None:
    """How many times a clause's one count says to do it (1..MAX_REPEATS), if it names exactly one count
    (other amounts stay with each repetition: "push it 15 mm back, twice")."""
    counts = [q for q in intent.quantities if q.unit == COUNT]
    if len(counts) != 1:
        return None
    value = counts[0].value
    return int(value) if value == int(value) and 1 <= value <= MAX_REPEATS else None  # "once": just the calls


class _PlanBuilder(Moving):
    """One planning pass: the imagined world, the steps so far and the notes explaining them; each clause
    is added through the layer that plans its kind."""

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
        if intent.verify:
            self.verify(intent)
            return
        before, named = len(self.steps), len(self.named)
        try:
            for each in self.those_before(intent) or self.each_object(self.grounded_reading(intent)):
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
        where = self.last_target if intent.target is not None else None  # "... in the bowl": not one of them
        self.last_named = [i for i in dict.fromkeys(self.named[named:]) if i != where]

    def those_before(self, intent: Intent) -> list[Intent]:
        """ "tap the red cube and the blue cube, then tap them again": a plural pronoun is every object the
        clause before named, one intent each (it was the last of them alone); [] for anything else."""
        said = f" {intent.clause} "
        if intent.object is not None or len(self.last_named) < 2:
            return []
        if not any(f" {p} " in said for p in load_lexicon().plural_pronouns):
            return []
        self.notes.append(f"{intent.clause!r}: each of {', '.join(self.last_named)}")
        return [intent.model_copy(update={"object": i}) for i in self.last_named]

    def verify(self, intent: Intent) -> None:
        """ "check that the red cube is on the plate": a check of the predicate the stated goal says, by the skill
        that checks one (builtin/check), never the motions that would make it so."""
        checker = next(
            (m for m in self.registry if "predicate" in m.parameter_names() and ActionVerb.INSPECT in m.actions), None
        )
        if checker is None:
            raise MissingSkill(f"{intent.clause!r}: no skill of this robot checks whether something is so")
        obj = self.resolve(intent.object, intent)
        if intent.action in (IntentAction.OPEN, IntentAction.CLOSE):
            if obj not in self.world.drawers:
                raise PlannerRefused(
                    f"{intent.clause!r}: the world state does not say whether {obj} is open", RefusalKind.AMBIGUOUS
                )
            predicate = f"{'' if intent.action is IntentAction.OPEN else 'not '}drawer_open({obj})"
        elif intent.action is IntentAction.PUT and intent.target is not None:
            predicate = f"{'in' if intent.relation == 'in' else 'on'}({obj}, {self.resolve(intent.target, intent)})"
        else:
            raise TaskNotUnderstood(intent.clause, intent.clause)
        self.emit(checker.id, {"predicate": predicate}, intent.clause)

    def add_one(self, intent: Intent) -> None:
        """Expand one single-object intent into calls."""
        if intent.action is IntentAction.PUT and self.verb_of_another_skill(intent):
            # "load mp3 into the reader", "transfer 20 ul from res1 to mp3": the skill whose verb it is ("set it
            # down": no table, which only the put-down form supplies)
            said_table = intent.target is not None and "table" in intent.clause.split()
            target = intent.target if said_table or intent.target != "the table" else None
            intent = intent.model_copy(update={"action": IntentAction.ACT, "target": target})
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

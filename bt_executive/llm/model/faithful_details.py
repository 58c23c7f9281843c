"""Faithfulness rules about the details: how often, which way round, which option (``faithfulness`` runs them
with its own rules 1-5).

Each came from a model plan the earlier rules let through (SmolLM2 restating blind tasks):

6. **repeats**: the same call (skill and arguments) made k > 1 times needs k asked for: a count the task says
   ("wipe it twice", "3 times"), or k clauses whose verbs ask for what the skill does. "wipe the counter down"
   planned as three wipes of the counter is refused.
7. **numbers**: a number the task says that no amount, object phrase or id reads ("give it two wipes", "lay it
   for four") must be an argument of some step, or how many times a call is made. A plan that drops it has
   dropped part of the task.
8. **order**: a plan that ends with X on (or in) Y, where the task says Y on top of (or in) X and never X
   on Y, does the task backwards ("keep the green cube on top of the red cube" planned as red on green).
9. **options**: a step whose skill has a parameter of named options (a string ``enum``) does not leave it at
   its default when the task says one other option, and only one ("reading the barcode on label L4":
   ``code: barcode``, not the default ``any``). A word inside an object phrase ("the front door") says no
   option; an option other than the default is the plan's to choose among those said.
10. **sequence**: the clauses are done in the order the task says them (after "before"/"after" clauses are
   put in the order they happen). Each clause is served by a step that does what its verbs ask for, on an
   object it names where it names one; a clause whose every such step comes before the step serving the clause
   said before it is done out of turn ("open the drawer, then close it" planned as close, open). Only the
   first serving step from the previous clause's on counts, so a clause served twice passes, and so does one
   step serving two clauses ("what's the temperature, can you read it").
11. **interleaving**: of two clauses in a row (among those some step serves alone), no step serving only the
   earlier comes after a step serving only the later ("tap red twice and blue once" planned as red, blue, red).
   A step serving two clauses (the place on the plate of "put X on the plate and Y on the plate") or inserted
   for a precondition belongs to no clause alone. A clause said to come "in between" ("tap it twice and wait a
   second in between the taps") is the other way round: its steps come inside the earlier clause's, not after.
12. **unread requests**: a clause the grammar did not parse that goes on with a request no verb here reads
   ("examine the blue pump for cracks and report its condition") has asked for more than any plan can be shown
   to do: the plan of the rest is refused, not run as if that part were never said.
13. **from near by**: a clause asking for a look from near by ("a detail photo of the boiler gauge", "a close-up
   of the valve") is served after a step that approaches what it names, as the grammar plans it, on a robot
   with a skill that approaches things.
14. **places stay put**: an object the task names only as where things go or come from ("on the plate", "into
   the bowl") is not itself picked, pushed or carried ("tap the red cube, then put the green one on the plate
   and push it left" does not push the plate), unless a step is inserted to clear the way for a later one.
   Read from the clauses the grammar parsed; an object a clause it could not parse names, or an "it" it could
   not ground, may be either, so the rule says nothing of it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from bt_executive.llm.grounding.object_matching import object_words
from bt_executive.llm.language.intents import IntentAction
from bt_executive.llm.language.lexicon import alternatives, load_lexicon
from bt_executive.llm.language.noun_phrases import phrase_words
from bt_executive.llm.language.quantities import COUNT, said_number
from bt_executive.llm.language.task_grammar import asks_from_near
from bt_executive.llm.model.task_reading import ClauseReading, TaskReading
from bt_executive.skills.conditions import SymbolicState
from bt_executive.skills.manifest import ActionVerb, Role, SkillManifest
from bt_executive.skills.predicates import parse_predicate
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

if TYPE_CHECKING:
    from bt_executive.llm.model.faithfulness import StepView


def call_key(step: StepView) -> str:
    """One call's identity: its skill and arguments."""
    return f"{step.call.skill}:{sorted(step.call.args.items())!r}"


def repeats(steps: Sequence[StepView], *, inserted: bool = False) -> dict[str, int]:
    """How many times each call is made (inserted steps counted only with ``inserted``)."""
    tally: dict[str, int] = {}
    for step in steps:
        if inserted or step.inserted_for is None:
            tally[call_key(step)] = tally.get(call_key(step), 0) + 1
    return tally


def numbers_in(step: StepView) -> set[float]:
    """The numeric arguments of a step's call (booleans are not numbers here)."""
    return {float(v) for v in step.call.args.values() if isinstance(v, int | float) and not isinstance(v, bool)}


def repeated(reading: TaskReading, steps: Sequence[StepView], world: WorldState) -> list[str]:
    """Rule 6: a call made k > 1 times is asked for k times (a count said, or k clauses asking for it)."""
    loose = [value for _, value, _ in _loose_numbers(reading, world, asked_only=False)]  # "3 photos", "do that twice"
    tally = repeats(steps)
    problems = []
    seen: set[str] = set()
    for step in steps:
        key = call_key(step)
        made = tally.get(key, 0)
        if made < 2 or key in seen or step.manifest is None:
            continue
        seen.add(key)
        # the clauses asking for this call: for its skill, on what it acts on (or on "it": naming nothing); a
        # count they say is how often ("tap it twice and wait 2 s in between": the tap, not the wait)
        clauses = [
            c for c in reading.clauses if c.asks_for(step.manifest) and (not c.named or set(step.acted) & c.named)
        ]
        asking = len(clauses)
        counts = [a.value for c in clauses for a in c.amounts if a.kind == COUNT] + loose
        for c in clauses:  # "tap it three times and wait 1 s in between": the wait, twice
            if said_between(c) and (at := reading.clauses.index(c)) > 0:
                counts += [a.value - 1 for a in reading.clauses[at - 1].amounts if a.kind == COUNT]
        own = numbers_in(step)
        if any(n >= made and n not in own for n in counts) or asking >= made:  # "4 levels" is the call's own
            continue
        problems.append(f"{step.label} is made {made} times, and the task asks for it {max(asking, 1)} time(s)")
    return problems + _counted_calls(reading, steps, tally)


def _counted_calls(reading: TaskReading, steps: Sequence[StepView], tally: dict[str, int]) -> list[str]:
    """Rule 6b: a count said in a clause that asks for a call on what it names ("tap each cube ONCE") is how many
    times each such call is made (unless the call takes the number itself: "scan 4 levels")."""
    problems = []
    seen: set[str] = set()
    for step in steps:
        key = call_key(step)
        if key in seen or step.manifest is None or step.inserted_for is not None:
            continue
        seen.add(key)
        own = numbers_in(step)
        for clause in reading.clauses:
            counts = [a for a in clause.amounts if a.kind == COUNT and a.value not in own]
            if not counts or not clause.asks_for(step.manifest) or not set(step.acted) & clause.named:
                continue
            if all(a.value != tally.get(key, 0) for a in counts):
                said = " or ".join(a.text for a in counts)
                problems.append(f"{step.label} is made {tally.get(key, 0)} times, but the task says {said}")
    return problems


def dropped_numbers(reading: TaskReading, steps: Sequence[StepView], world: WorldState) -> list[str]:
    """Rule 7: a number said outside any amount, object phrase or id is an argument or a repetition count."""
    said = _loose_numbers(reading, world)
    if not said:
        return []
    used = {float(n) for n in repeats(steps).values()}
    for step in steps:
        used |= numbers_in(step)
    return [
        f"the task says {word!r} (in {clause.text!r}), which no step uses"
        for word, value, clause in said
        if value not in used
    ]


def _loose_numbers(
    reading: TaskReading, world: WorldState, *, asked_only: bool = True
) -> list[tuple[str, float, ClauseReading]]:
    """The number words and numerals of the task's clauses that no amount, object phrase or id reads (in the
    clauses that ask for something, with ``asked_only``; "do that twice" asks by its number alone)."""
    names = [*(o.id for o in world.objects), *world.regions]
    id_pairs = {pair for name in names for pair in itertools.pairwise(phrase_words(name))}
    nouns = {w for o in world.objects for w in object_words(o)}
    found = []
    for clause in reading.clauses:
        if asked_only and not clause.actions and not clause.skills:
            continue  # "guests arrive at seven": said, not asked for
        read = {w for a in clause.amounts for w in a.text.split()} | {
            w for m in clause.mentions for w in m.phrase.split()
        }
        words = clause.text.split()
        for index, word in enumerate(words):
            value = said_number(word)  # "3", "three", "twice"; not "one" ("the red one") nor "a"
            if value is None or value == 1 or word in read:
                continue
            if index and (words[index - 1], f"{value:g}") in id_pairs:
                continue  # "pump two", "pump 2": pump_2
            after = words[index + 1] if index + 1 < len(words) else ""
            if {after, after.removesuffix("s"), after.removesuffix("es")} & nouns:
                continue  # "the three cubes", "both red mugs": a count of objects, read by the object phrase
            found.append((word, value, clause))
    return found


@cache
def _relation() -> re.Pattern[str]:
    return re.compile(rf"\b(?:{alternatives(load_lexicon().verbless_relations)})\b")


def stated_on(reading: TaskReading) -> set[tuple[str, str]]:
    """(X, Y) for each "X on top of / in Y" a clause says between two objects it names one each of."""
    stated: set[tuple[str, str]] = set()
    for clause in reading.clauses:
        words = clause.text.replace("_", " ").split()  # "green_cube" is said as the phrase "green cube"
        placed: list[tuple[int, str]] = []  # (where its last word stands, id)
        start = 0
        for mention in clause.mentions:
            last = mention.phrase.split()[-1] if mention.phrase.split() else ""
            at = next((i for i in range(start, len(words)) if words[i] == last), None)
            if at is None or len(mention.ids) != 1 or mention.excluded:
                continue
            placed.append((at, mention.ids[0]))
            start = at + 1
        for (at_a, a), (at_b, b) in itertools.pairwise(placed):
            if a != b and _relation().search(" ".join(words[at_a + 1 : at_b])):
                stated.add((a, b))
    return stated


def backwards(reading: TaskReading, final: SymbolicState, before: SymbolicState) -> list[str]:
    """Rule 8: the plan puts X on (in) Y where the task says Y on (in) X, and never X on Y."""
    stated = stated_on(reading)
    problems = []
    for top, bottom in sorted(stated):
        if (bottom, top) in stated:
            continue
        for relation in ("on", "in"):
            atom = parse_predicate(f"{relation}({bottom}, {top})")
            if final.holds(atom) and not before.holds(atom):
                problems.append(f"the plan ends with {bottom} {relation} {top}; the task says {top} on {bottom}")
    return problems


def said_words(reading: TaskReading) -> set[str]:
    """The task's words outside its object phrases: where an option can be said ("the front door" says none)."""
    mentioned = {w for m in reading.mentions for w in m.phrase.split()}
    return {w for c in reading.clauses for w in c.text.split()} - mentioned


def options_told(manifest: SkillManifest, param: str, said: set[str]) -> list[str]:
    """The options of ``param`` (string enum values but the default) whose words are all in ``said``."""
    schema = manifest.parameter_schema(param)
    choices = [v for v in schema.get("enum", ()) if isinstance(v, str) and v != schema.get("default")]
    return [v for v in choices if set(v.split("_")) <= said]


def options(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 9: an option of a step's parameter that the task says (outside object phrases) is the one taken."""
    said = said_words(reading)
    problems = []
    for step in steps:
        manifest = step.manifest
        if manifest is None or step.inserted_for is not None:
            continue
        for param in (manifest.parameters or {}).get("properties", {}):
            schema = manifest.parameter_schema(param)
            told = options_told(manifest, param, said)
            taken = step.call.args.get(param, schema.get("default"))
            if len(told) == 1 and taken == schema.get("default"):  # left as it was: the option said is dropped
                problems.append(f"{step.label}: {param} {taken}, but the task says {told[0]}")
    return problems


def out_of_turn(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 10: each clause is served by a step after the one serving the clause said before it."""
    problems = []
    previous: tuple[int, ClauseReading] | None = None
    for clause in reading.clauses:
        if clause.intent is not None and clause.intent.action is IntentAction.HOME:
            continue  # "park the arm at home": a pose, which rule 3 judges by effects, not verbs
        serving = [index for index, step in enumerate(steps) if _serves(step, clause)]
        if not serving:
            continue  # done by an earlier attempt, a means of the next clause, or a state: other rules judge it
        after = [index for index in serving if previous is None or index >= previous[0]]  # one step may serve two
        if after:
            previous = (after[0], clause)
        elif previous is not None:
            problems.append(
                f"the task says {clause.text!r} after {previous[1].text!r}, and the plan does it before "
                f"({steps[serving[-1]].label} comes before {steps[previous[0]].label})"
            )
    return problems


_BETWEEN = re.compile(r"\bin between\b|\bbetween (?:them|each|every)\b|\bbetween the \w+s$")
"""A clause done inside the one before it ("wait 2 s in between the taps"), not after it: no place between
two things ("put it between the cube and the plate")."""


_IT = re.compile(r"^(?:[a-z]+ ){1,3}?(?:it|them)\b")
"""A clause whose object is "it" ("pour IT into the red one", "chuck IT in the bin"): its first words a verb."""
_SAYS_IT = re.compile(r"\b(?:it|them)\b")


def pronoun_objects(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 12: a clause that asks for something done to "it" ("grab the blue mug, pour IT into the red one") is
    served by a step acting on what "it" may stand for: the object or the place of the clause before, as the
    grammar read it ("put the block in the drawer and shut IT": the drawer), or what that clause's own "it"
    stood for (then "chuck IT in the bin": the blue mug still)."""
    problems = []
    previous: set[str] = set()  # what the clause before acted on or put things in, where it is known
    for clause in reading.clauses:
        stands_for, previous = previous, set()
        if clause.intent is not None and clause.intent.object is not None:
            grounded = [clause.object_ids, *([clause.target_ids] if clause.intent.target else [])]
            # a phrase that names no one object here, or an "it" of its own ("stash the cube in IT"): unknown
            known = all(len(ids) == 1 for ids in grounded) and not _SAYS_IT.search(clause.text)
            previous = {ids[0] for ids in grounded} if known else set()
            continue
        if not stands_for or not (clause.actions or clause.skills) or not _IT.match(clause.text):
            continue
        previous = stands_for
        serving = [s for s in steps if s.manifest is not None and clause.asks_for(s.manifest)]  # inserted too
        if serving and not any(stands_for & set(s.acted) for s in serving):
            meant = " or ".join(sorted(stands_for))
            problems.append(f"the task says {clause.text!r} of {meant}, and no step doing it acts on {meant}")
    return problems


def said_between(clause: ClauseReading) -> bool:
    """Whether a clause is done inside the one before it ("wait 2 s in between the taps")."""
    return _BETWEEN.search(clause.text) is not None


def interleaved(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 11: of two clauses in a row, the steps serving the earlier alone all come before those serving the
    later alone (a step inserted for a precondition, or serving two clauses, belongs to no clause alone)."""
    clauses = [c for c in reading.clauses if c.intent is None or c.intent.action is not IntentAction.HOME]
    alone: dict[int, list[int]] = {}
    for index, step in enumerate(steps):
        serving = [number for number, clause in enumerate(clauses) if _serves(step, clause)]
        if step.inserted_for is None and len(serving) == 1:
            alone.setdefault(serving[0], []).append(index)
    problems = []
    served = sorted(alone)
    for first, second in itertools.pairwise(served):
        if said_between(clauses[second]):  # "tap it twice and wait 2 s in between the taps": inside them
            if not min(alone[first]) < min(alone[second]) <= max(alone[second]) < max(alone[first]):
                problems.append(
                    f"the task says {clauses[second].text!r}, and the plan does not do it between the steps of "
                    f"{clauses[first].text!r}"
                )
            continue
        if min(alone[first]) < min(alone[second]) < max(alone[first]):  # begun in turn (else rule 10's), gone back to
            problems.append(
                f"the plan goes back to {clauses[first].text!r} ({steps[max(alone[first])].label}) after starting "
                f"{clauses[second].text!r} ({steps[min(alone[second])].label})"
            )
    return problems


def unread(reading: TaskReading) -> list[str]:
    """Rule 12: a request of the task that no verb of this robot reads (``ClauseReading.unread``)."""
    return [
        f"the task also says {request!r} (in {clause.text!r}), which no verb of this robot reads"
        for clause in reading.clauses
        for request in clause.unread
    ]


APPROACH = "approach"
"""The verb phrase of the skill the grammar approaches an object with before a look from near by."""


def not_near(reading: TaskReading, steps: Sequence[StepView], registry: SkillRegistry) -> list[str]:
    """Rule 13: a look asked for from near by comes after a step that approaches the object looked at (where a
    skill of this robot approaches things: its phrases say "approach")."""
    if not any(APPROACH in manifest.phrases() for manifest in registry):
        return []
    approaching = [s for s in steps if s.manifest is not None and APPROACH in s.manifest.phrases()]
    problems = []
    for clause in reading.clauses:
        if not asks_from_near(clause.text):
            continue
        for step in steps:
            looked_at = set(step.acted) & clause.named
            if step in approaching or not looked_at or not _serves(step, clause):
                continue
            if not looked_at & {i for s in approaching if s.number < step.number for i in s.acted}:
                problems.append(
                    f"{step.label}: the task asks for {clause.text!r} from near by, and no step approaches first"
                )
    return problems


def _serves(step: StepView, clause: ClauseReading) -> bool:
    """Whether ``step`` does what ``clause``'s verbs ask for, on an object it names if it names any (an inserted
    step too: "get the mug out of the fridge" is served by the pick inserted for the handover)."""
    manifest = step.manifest
    if manifest is None:
        return False
    if not clause.asks_for(manifest):
        return False
    # "tap each cube once, red then ...": the one it names alone says which step serves it, not "each cube"
    named = {i for m in clause.mentions if not m.excluded and not m.every for i in m.ids} or clause.named
    return not named or bool(set(step.acted) & named)


__all__ = [
    "backwards",
    "dropped_numbers",
    "interleaved",
    "not_near",
    "numbers_in",
    "options",
    "out_of_turn",
    "pronoun_objects",
    "repeated",
    "repeats",
    "said_between",
    "stated_on",
    "unread",
]


MOVING = frozenset({ActionVerb.PICK, ActionVerb.PICK_AND_PLACE, ActionVerb.TRANSFER, ActionVerb.GRASP, ActionVerb.PUSH})
"""A skill whose main (first) action is one of these moves the thing its object parameter names (rule 14)."""


def places_moved(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 14: no step moves an object the task names only as a place (see the module doc)."""
    objects: set[str] = set()
    places: set[str] = set()
    unknown: set[str] = set()
    for clause in reading.clauses:
        intent = clause.intent
        if intent is None:
            unknown |= clause.named  # a clause the grammar could not parse: its objects' roles are not known
            continue
        if intent.object is not None and not clause.object_ids:
            return []  # an "it" the reading did not ground may stand for any place named before
        objects |= set(clause.object_ids)
        places |= set(clause.target_ids)
    only = places - objects - unknown
    problems = []
    for step in steps:
        manifest = step.manifest
        if manifest is None or not manifest.actions or manifest.actions[0] not in MOVING:
            continue  # by its main action: closing a drawer pushes it, but does not move it anywhere
        if step.inserted_for is not None and not step.detour:
            continue  # set aside to clear the way ("pick up the blue cube" with the red one on it)
        for param, role in manifest.roles().items():
            value = step.call.args.get(param)
            if role is Role.OBJECT and isinstance(value, str) and value in only:
                problems.append(f"{step.label} moves {value}, which the task names only as where things go")
    return problems

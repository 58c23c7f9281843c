"""Faithfulness: does a model's plan do what the task says? Checked before the plan reaches the tree.

The plan check (``trees.plan_check``) asks whether a plan can run; this asks
whether it is the task's plan. The task is read with the task grammar's own
words (``task_reading``: the lexicon, object grounding, regions, quantities)
and each step is held against what it names::

    "go push the red block left"     names red_cube; verbs ask for PUSH, SLIDE; direction left
      1 push(red_cube, left)         ok
      2 push(green_cube, left)       acts on green_cube, which the task never names
      3 push(blue_cube, left)        acts on blue_cube, which the task never names   -> unfaithful

The rules, each with its own reason:

1. **named -> used**: every object or region the task names is used by a step
   (or, on a replan, by an attempt that succeeded). A quantified or plural
   phrase ("all the cubes") names every object it matches; a singular phrase
   that matches several ("a cube") names one of them, and the plan may act on
   one of them only. Objects named only to say which one is meant ("the mug
   out of the fridge") need not be used.
2. **acted on -> named**: no step acts on an object the task never names (what
   a step acts on: the world ids in its arguments, the object it holds when an
   effect moves it, ids in a VLA prompt), unless the step is *inserted*: it
   makes a precondition of a later step true that was false, and it stays true
   until that step (``pick(red_cube)`` before ``place_on(plate)``: ``not
   gripper_empty``), or it moves no object (its effects are only about the
   arm's pose: the arm going home) and another step follows it, or it only
   brings the robot to a place or thing (``at(robot, X)``, ``reachable(X)``)
   that the next step acts on, or at (a photo taken in the room gone to). An inserted
   step may set a thing aside only on the table (as the grammar's chaining does), and a *detour* (take
   something only to put it back for the next step) is no excuse. Inserted
   steps are noted in the plan. An object the task leaves out ("except the
   blue one", "not red") is never acted on.
3. **verbs**: each step's skill has an action the task's verbs ask for (the
   lexicon's ``verbs`` through ``intent_actions``, its ``actions``, or a
   manifest's own ``language.phrases``; inserted steps are exempt; a step
   that only brings the arm to a pose needs a clause that says to go home,
   whatever its actions: "tap the cube" asks for REACH, and so may the home
   skill; a skill that picks or lets go and hands over, a fetch, needs a verb
   asking for the handing: "pick up the mug" is no fetch), and what each
   clause's verbs ask for some step does ("open the drawer and close it" needs
   a close; "go home" a step that brings the arm home), on what that clause
   names ("a photo of the gauge" is not a photo of the dock, nor of nothing).
4. **directions and amounts**: a direction argument is one the task says (the
   one its clause says, for that clause's object), and every direction said
   is used; a quantity argument equals an amount the task says, converted to
   the parameter's unit (``quantities.convert``), or is the parameter's
   default when the task says no amount of that kind; every amount said is used.
5. **placements**: what a put the grammar reads places ("put all the cubes in
   the bowl") is on or in its target when the plan ends, as far as the
   skills' effects say (the symbolic simulator the tree's plan check uses).

Rules 6-14 (``faithful_details``): no call made more often than asked, no number said and dropped, no
placement the wrong way round, no option said and left at its default, no clause done out of turn, no going
back to a clause once the next one is started (and a clause said to come "in between" done inside the one
before it), no request left that no verb here reads, no look from near by without an approach first,
no place named moved.

Decisions:

- A task that names nothing checkable ("tidy up", "do a dance") is not waved
  through: rule 2 refuses every step on an object it never names, and rule 3
  every step no verb of it asks for, so only steps that move no object pass.
  A wrong plan is worse than a refusal.
- An empty plan ("already done") for a task that names objects fails rule 1:
  nothing here can confirm that the task is done, so it is refused rather than
  reported done. For a task that names none it passes only where each clause's
  ask holds already (the arm home for "go home") or is a wish the check cannot
  read ("make sure the arm is home").
- Text inside braces is data (``task_reading``): a plan acting on an object
  named only inside pasted JSON acts on an object the task never names.
- The check reads a task the way the grammar does; on the grammar's own plans
  for the eval tasks it refuses none but the empty ones (``tests/llm/test_faithfulness.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from pydantic import JsonValue

from bt_executive.llm.grammar_planner.skill_choice import names_category
from bt_executive.llm.grounding.object_matching import is_open
from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.quantities import COUNT, Quantity, UnitMismatch, convert, schema_unit
from bt_executive.llm.language.task_grammar import IntentAction, asks_from_near, says_in_place
from bt_executive.llm.model.faithful_details import (
    APPROACH,
    backwards,
    dropped_numbers,
    interleaved,
    not_near,
    options,
    out_of_turn,
    places_moved,
    pronoun_objects,
    repeated,
    repeats,
    unread,
)
from bt_executive.llm.model.task_reading import ClauseReading, Mention, TaskReading, read_task, table_ids
from bt_executive.llm.plan import Plan, PlannerRefused, RefusalKind
from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.conditions import HELD, SymbolicState, atom_holds, bind
from bt_executive.skills.manifest import ActionVerb, Role, SkillManifest
from bt_executive.skills.parameters import argument_at
from bt_executive.skills.predicates import Predicate, parse_predicate
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

POSE_PREDICATES = frozenset({"at_home"})
"""Predicates about the arm's own pose: a step whose every effect is one of them moves no object."""


@dataclass(frozen=True)
class StepView:
    """One step as the check sees it: what it acts on, and why it may have been inserted."""

    number: int
    call: SkillCall
    manifest: SkillManifest | None
    acted: tuple[str, ...]
    inserted_for: str | None = None
    detour: bool = False

    @property
    def label(self) -> str:
        """``step 2 push(green_cube, left)``: how the reasons name a step."""
        return f"step {self.number} {self.call.label()}"


@dataclass(frozen=True)
class Faithfulness:
    """The check's verdict: what did not match the task (empty: faithful) and the inserted steps it noted."""

    problems: tuple[str, ...] = ()
    inserted: tuple[str, ...] = ()

    @property
    def faithful(self) -> bool:
        """True when the plan does what the task says."""
        return not self.problems

    def refusal(self) -> PlannerRefused:
        """The refusal of an unfaithful plan (``unfaithful``), naming everything that did not match."""
        return PlannerRefused(
            f"the plan does not do what the task says: {'; '.join(self.problems)}", RefusalKind.UNFAITHFUL
        )

    def note(self) -> str:
        """The plan note on inserted steps ('' when none was)."""
        return f"inserted: {', '.join(self.inserted)}" if self.inserted else ""


def check_faithful(
    plan: Plan,
    task: str,
    world: WorldState,
    registry: SkillRegistry,
    prior_attempts: Sequence[AttemptRecord] = (),
    *,
    reading: TaskReading | None = None,
) -> Faithfulness:
    """Hold ``plan`` against what ``task`` names (see the module docstring); the verdict, never an exception.

    ``reading``: ``read_task(task, world, registry)`` already made (most of a check's time), for a caller
    holding many plans against one task."""
    reading = reading if reading is not None else read_task(task, world, registry)
    steps = view_steps(plan.steps, world, registry)
    succeeded = [a.call for a in prior_attempts if a.result.success]
    done = {i for call in succeeded for i in ids_in(call, world_ids(world))}
    done_skills = [registry.get(c.skill) for c in succeeded if c.skill in registry]
    problems = [
        *_unused(reading, steps, done),
        *_unnamed(reading, steps, world),
        *_unasked(reading, steps, registry),
        *_undone(reading, steps, done_skills, world),
        *_directions(reading, steps),
        *_amounts(reading, steps),
        *_misplaced(reading, plan.steps, world, registry),
        *repeated(reading, steps, world),
        *options(reading, steps),
        *dropped_numbers(reading, steps, world),
        *backwards(reading, _state_after(plan.steps, [s.manifest for s in steps], world), SymbolicState(world)),
        *out_of_turn(reading, steps),
        *interleaved(reading, steps),
        *pronoun_objects(reading, steps),
        *_targets(reading, steps),
        *unread(reading),
        *not_near(reading, steps, registry),
        *places_moved(reading, steps),
        *_moved_base(reading, steps),
    ]
    inserted = tuple(f"{s.label} ({s.inserted_for})" for s in steps if s.inserted_for is not None)
    return Faithfulness(problems=tuple(dict.fromkeys(problems)), inserted=inserted)


def require_faithful(
    plan: Plan,
    task: str,
    world: WorldState,
    registry: SkillRegistry,
    prior_attempts: Sequence[AttemptRecord] = (),
) -> Plan:
    """``plan`` with its inserted steps noted when it is faithful; PlannerRefused (``unfaithful``) otherwise."""
    verdict = check_faithful(plan, task, world, registry, prior_attempts)
    if not verdict.faithful:
        raise verdict.refusal()
    return with_note(plan, verdict)


def with_note(plan: Plan, verdict: Faithfulness) -> Plan:
    """``plan`` with the verdict's note on inserted steps added to its notes."""
    note = verdict.note()
    if not note or note in plan.notes:
        return plan
    notes = f"{plan.notes}; {note}" if plan.notes else note
    return plan.model_copy(update={"notes": notes[:4000]})


# -- what each step acts on -----------------------------------------------------------------------


def view_steps(calls: Sequence[SkillCall], world: WorldState, registry: SkillRegistry) -> list[StepView]:
    """Each step with the ids it acts on and, when inserted, why (simulated over the symbolic world)."""
    ids = world_ids(world)
    manifests = [registry.get(c.skill) if c.skill in registry else None for c in calls]
    states = [_state_after(calls[:index], manifests[:index], world) for index in range(len(calls) + 1)]
    views = []
    for index, (call, manifest) in enumerate(zip(calls, manifests, strict=True)):
        acted = set(ids_in(call, ids))
        sole = _sole_object(manifest, world) if manifest is not None and not acted else None
        if sole is not None:  # "load the dishwasher" takes no argument, and acts on the one dishwasher
            acted.add(sole)
        held = states[index].held
        if held is not None and manifest is not None and _releases(manifest):
            acted.add(held)
        views.append(StepView(index + 1, call, manifest, tuple(sorted(acted))))
    inserted = _inserted(views, states, world)
    return [replace(v, inserted_for=why, detour=detour) for v, (why, detour) in zip(views, inserted, strict=True)]


def _releases(manifest: SkillManifest) -> bool:
    """Whether the skill moves what the gripper holds: an effect names ``held``, or empties the gripper."""
    effects = [parse_predicate(e) for e in manifest.effects]
    return any(HELD in e.args or (e.name == "gripper_empty" and not e.negated) for e in effects)


def world_ids(world: WorldState) -> frozenset[str]:
    """Every id a call may name here: the objects, the drawers and the regions."""
    return frozenset({*world.ids(), *world.drawers, *world.regions})


def ids_in(call: SkillCall, ids: frozenset[str]) -> list[str]:
    """The world ids a call names: in its arguments (at any depth) and as words of its prompt."""
    found: list[str] = []

    def walk(value: JsonValue) -> None:
        if isinstance(value, str) and value in ids:
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(dict(call.args))
    if call.prompt:
        found += [w for w in _prompt_words(call.prompt) if w in ids]
    return found


def _prompt_words(prompt: str) -> list[str]:
    return [w.strip(".,;:!?\"'()") for w in prompt.lower().split()]


def _state_after(
    calls: Sequence[SkillCall], manifests: Sequence[SkillManifest | None], world: WorldState
) -> SymbolicState:
    """The imagined world after ``calls``' effects (the same simulator the tree's plan check uses)."""
    state = SymbolicState(world)
    for call, manifest in zip(calls, manifests, strict=True):
        for effect in manifest.effects if manifest is not None else ():
            state.apply(bind(effect, call.args))
    return state


@dataclass(frozen=True)
class _Means:
    """Why a step is inserted: the needs of later steps it meets (step index, predicate); none: it moves no object."""

    reason: str
    meets: tuple[tuple[int, Predicate], ...] = ()


def _inserted(
    views: Sequence[StepView], states: Sequence[SymbolicState], world: WorldState
) -> list[tuple[str | None, bool]]:
    """Each step's reason for being inserted (None: it is an end of the task, held to every rule), and whether
    it is a detour.

    A detour takes something (pick the green cube) only to enable the next step, which only restores what held
    before it (put it on the table: the gripper is empty again). Structurally a put of a named object is the
    same, so a detour is only told apart by what it takes: rule 2 does not excuse a detour's unnamed object.
    """
    means = [_means(i, views, states, world) if v.manifest is not None else None for i, v in enumerate(views)]
    found: list[tuple[str | None, bool]] = [(m.reason if m is not None else None, False) for m in means]
    for index, first in enumerate(means[:-1]):
        second = means[index + 1]
        if first is None or second is None or not first.meets or not second.meets:
            continue
        manifest = views[index].manifest
        takes = manifest is not None and Role.OBJECT in manifest.roles().values()
        only_next = all(later == index + 1 for later, _ in first.meets)
        if takes and only_next and all(states[index].holds(need) for _, need in second.meets):
            found[index] = (first.reason, True)
    return found


def _means(index: int, views: Sequence[StepView], states: Sequence[SymbolicState], world: WorldState) -> _Means | None:
    """Why step ``index`` is a means, not an end: the later preconditions it makes true (and that stay true
    until they are needed), or 'moves no object'.

    A step that names no object and whose every effect is about the arm's pose (home) moves no object; one
    with no effects at all (a wave) is not inserted: nothing says why it is there. As in the grammar's
    chaining, an openable container takes things only when open, and hides what is in it: opening one
    that a later step acts on, or that holds what a later step acts on, meets that step's need too.
    """
    view = views[index]
    assert view.manifest is not None
    if _moves_no_object(view) and index + 1 < len(views):
        return _Means("moves no object")  # the arm readied for what comes next; as the last step it readies nothing
    if (there := _brings_robot_to(view)) is not None and index + 1 < len(views):
        following = views[index + 1]
        # The grammar's own order: "photograph the control room" goes there, then photographs nothing named;
        # "a close-up of the valve" approaches the valve, then photographs it.
        at_it = there in following.acted or (there in world.regions and not following.acted)
        if following.manifest is not None and at_it:
            return _Means(f"to bring the robot to {there} for step {following.number}")
    meets: list[tuple[int, Predicate]] = []
    openable = [o.id for o in world.objects if atom_holds("openable", (o.id,), world)]
    for step in views[index + 1 :]:
        needs = [bind(text, step.call.args) for text in (step.manifest.preconditions if step.manifest else ())]
        needs += [_opened(i) for i in step.acted if atom_holds("openable", (i,), world)]
        later = step.number - 1
        needs += [  # and a closed one hides what is in it: opening the one a later step's object lies in
            _opened(c) for i in step.acted for c in openable if states[later].holds(parse_predicate(f"in({i}, {c})"))
        ]
        # A causal link: false before this step, true from after it until the later step starts.
        meets += [
            (later, need)
            for need in needs
            if not states[index].holds(need) and all(states[k].holds(need) for k in range(index + 1, later + 1))
        ]
    if not meets:
        return None
    first, need = meets[0]
    return _Means(f"for {need} of step {first + 1}", tuple(meets))


def _brings_robot_to(view: StepView) -> str | None:
    """The one place or thing a step takes the robot to, when that is all it does: every effect is the robot
    at a place (``at(robot, kitchen)``) or a thing in its reach (``reachable(v12)``), on what it acts on."""
    effects = [parse_predicate(e) for e in view.manifest.effects] if view.manifest is not None else []
    if len(view.acted) != 1 or not effects:
        return None
    bound = [bind(e, view.call.args) for e in effects]
    there = view.acted[0]
    moves = all(
        not e.negated
        and ((e.name == "at" and e.args == ("robot", there)) or (e.name == "reachable" and e.args == (there,)))
        for e in bound
    )
    return there if moves else None


def _moves_no_object(view: StepView) -> bool:
    """A step that names no object and whose every effect is about the arm's pose (home)."""
    effects = [parse_predicate(e) for e in view.manifest.effects] if view.manifest is not None else []
    return not view.acted and bool(effects) and all(e.name in POSE_PREDICATES for e in effects)


def _opened(container: str) -> Predicate:
    return parse_predicate(f"drawer_open({container})")


# -- the rules ------------------------------------------------------------------------------------


def _acted(steps: Iterable[StepView]) -> set[str]:
    return {i for s in steps for i in s.acted}


def _shown(mention: Mention) -> str:
    ids = ", ".join(mention.ids)
    return f"{mention.phrase!r} ({ids})" if ids else repr(mention.phrase)


def _unused(reading: TaskReading, steps: Sequence[StepView], done: set[str]) -> list[str]:
    """Rule 1: every object or region the task names is used by a step (or a successful attempt)."""
    used = _acted(steps) | done
    excluded = {i for m in reading.mentions if m.excluded for i in m.ids}
    problems = []
    for mention in reading.mentions:
        if mention.excluded or not mention.required:
            continue
        if not mention.ids:
            problems.append(f"the task names {mention.phrase!r}, which is no object or region here")
            continue
        wanted = set(mention.ids) - excluded
        missing = sorted(wanted - used) if mention.every else ([] if wanted & used else sorted(wanted))
        if not missing:
            continue
        if mention.every:
            problems.append(f"the task names {_shown(mention)}; no step uses {', '.join(missing)}")
        elif len(wanted) > 1:
            problems.append(f"the task names one of {', '.join(sorted(wanted))} ({mention.phrase!r}); no step uses one")
        else:
            problems.append(f"the task names {_shown(mention)}, which no step uses")
    return problems


def _unnamed(reading: TaskReading, steps: Sequence[StepView], world: WorldState) -> list[str]:
    """Rule 2: no step acts on an object the task never names or excludes, inserted steps excepted.

    A skill the task asks for by a phrase of its own ("recharge") may act on the one object of the world
    its ``objects`` name (the charging dock): the phrase names it as plainly as words would."""
    named = {i for m in reading.mentions if not m.excluded for i in m.ids}
    excluded = {i for m in reading.mentions if m.excluded for i in m.ids} - {
        i for m in reading.mentions if not m.excluded and len(m.ids) == 1 for i in m.ids
    }
    aside = set(table_ids(world))
    problems = []
    for step in steps:
        implied = _sole_object(step.manifest, world) if step.manifest and step.manifest.id in reading.skills else None
        places = _destinations(step)
        for object_id in step.acted:
            if object_id in excluded:
                problems.append(f"{step.label} acts on {object_id}, which the task leaves out")
            elif object_id in named or object_id == implied:
                continue
            elif step.inserted_for is None or step.detour:
                problems.append(f"{step.label} acts on {object_id}, which the task never names")
            elif object_id in places and object_id not in aside:
                # A means may set something aside, as the grammar does: on the table, never onto another object.
                problems.append(f"{step.label} puts something on {object_id}, which the task never names")
    problems += _too_many(reading, steps)
    problems += _beyond_one(reading, steps)
    problems += _unnamed_implied(reading, steps, world, named)
    return problems


def _unnamed_implied(reading: TaskReading, steps: Sequence[StepView], world: WorldState, named: set[str]) -> list[str]:
    """Rule 2 too: a step that takes no object acts on what its skill's ``objects`` name here ("load the
    dishwasher": the dishwasher, its cups); where the task names none of them and does not ask for the skill
    by a phrase of its own, it acts on what the task never names."""
    problems = []
    for step in steps:
        if step.acted or step.manifest is None or step.inserted_for is not None:
            continue
        if step.manifest.id in reading.skills:
            continue
        fitting = {o.id for o in world.objects if names_category(step.manifest, o.category)}
        if fitting and not fitting & named:
            problems.append(f"{step.label} acts on {', '.join(sorted(fitting))}, none of which the task names")
    return problems


def _beyond_one(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 2 too: a phrase naming several objects with no quantifier ("the cube" among three, "the red or
    the green cube") names one of them, so no more than one of them is acted on but those other phrases
    name ("object: red cube" is not all the cubes)."""
    acted = _acted(steps)  # inserted steps too: a pick for each of them is no means to one of them
    problems = []
    for mention in reading.mentions:
        if mention.excluded or mention.every or len(mention.ids) < 2:
            continue
        others = {i for m in reading.mentions if m is not mention and not m.excluded for i in m.ids}
        beyond = sorted((acted & set(mention.ids)) - others)
        if len(beyond) > 1:
            problems.append(f"steps act on {', '.join(beyond)}; the task's {mention.phrase!r} names one of them")
    return problems


def _destinations(step: StepView) -> set[str]:
    """The ids a step's destination and place arguments name (where it puts or takes things)."""
    if step.manifest is None:
        return set()
    wanted = (Role.DESTINATION, Role.PLACE)
    return {v for p, r in step.manifest.roles().items() if r in wanted and isinstance(v := step.call.args.get(p), str)}


def _targets(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 5b: where a clause the grammar read says a thing goes ("pour it INTO THE RED ONE"), a step doing what
    it asks puts it there (a pour into the bin does not serve it)."""
    problems = []
    for clause in reading.clauses:
        intent = clause.intent
        if intent is None or intent.target is None or intent.action is IntentAction.PUT:
            continue  # a put's destination is rule 5's, by where things end
        target = clause.target_ids
        serving = [s for s in steps if s.manifest is not None and clause.asks_for(s.manifest) and _destinations(s)]
        if len(target) == 1 and serving and not any(target[0] in _destinations(s) for s in serving):
            shown = ", ".join(s.label for s in serving)
            problems.append(f"the task says {clause.text!r}, and {shown} goes elsewhere than {target[0]}")
    return problems


def _sole_object(manifest: SkillManifest, world: WorldState) -> str | None:
    """The one object of the world whose category the skill's ``objects`` name; None when not exactly one."""
    fitting = [o.id for o in world.objects if names_category(manifest, o.category)]
    return fitting[0] if len(fitting) == 1 else None


def _too_many(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """A singular phrase that matches several objects ("a cube") is served by one of them, not by each."""
    definite = {i for m in reading.mentions if not m.excluded and (m.every or len(m.ids) == 1) for i in m.ids}
    groups: dict[tuple[str, ...], list[Mention]] = {}
    for mention in reading.mentions:
        if not mention.excluded and not mention.every and len(mention.ids) > 1:
            groups.setdefault(mention.ids, []).append(mention)
    acted = {i for s in steps if s.inserted_for is None for i in s.acted}
    problems = []
    for ids, mentions in groups.items():
        chosen = sorted((set(ids) - definite) & acted)
        if len(chosen) > len(mentions):
            said = ", ".join(repr(m.phrase) for m in mentions)
            some = f"the task names {len(mentions)} of {', '.join(ids)} ({said})"
            problems.append(f"{some}; the plan acts on {', '.join(chosen)}")
    return problems


def asks_for_anything(reading: TaskReading) -> bool:
    """Whether any step can pass rule 3: the task asks for an action or a skill, to go home, or for a look from
    near by. Where it asks for none ("the green cube, I would love it sitting in the bowl": no verb the lexicon
    knows), the last step of every plan fails rule 3 (a last step is never inserted), so no plan is faithful."""
    near = any(asks_from_near(c.text) for c in reading.clauses)
    return bool(reading.actions or reading.skills or _says_go_home(reading) or near)


def _says_go_home(reading: TaskReading) -> bool:
    """Whether a clause says to go home: a step that only brings the arm to a pose may serve it (rule 3)."""
    return any(c.intent is not None and c.intent.action is IntentAction.HOME for c in reading.clauses)


def _unasked(reading: TaskReading, steps: Sequence[StepView], registry: SkillRegistry) -> list[str]:
    """Rule 3: each step's skill does an action the task's verbs ask for; inserted steps are exempt."""
    allowed = reading.actions
    # the handing is asked by a verb, or by the phrase of a skill that hands over ("hand me the mug": fetch's)
    handing = ActionVerb.TRANSFER in allowed or any(
        ActionVerb.TRANSFER in registry.get(s).actions for s in reading.skills if s in registry
    )
    verbs = ", ".join(repr(v) for v in reading.verbs)
    wanted = ", ".join(sorted(a.value for a in allowed))
    if not allowed:
        asked = "it has no verb the lexicon knows"
    else:  # the actions come from verbs, or from a form with none ("red on green", "build a tower")
        asked = f"its verbs ({verbs}) ask for {wanted}" if verbs else f"it asks for {wanted}"
    homing = _says_go_home(reading)
    near = {i for c in reading.clauses if asks_from_near(c.text) for i in c.named}  # "a detail photo of X"
    problems = []
    for step in steps:
        manifest = step.manifest
        if manifest is None or step.inserted_for is not None:
            continue
        if APPROACH in manifest.phrases() and set(step.acted) & near:
            continue  # approaching what a look from near by is of: rule 13 asks for it
        if _moves_no_object(step):  # "go home", "park the arm" ask for it; "tap the cube" (REACH, as home is) not
            if homing:
                continue
            problems.append(f"{step.label} only brings the arm to a pose, and the task says nothing of going home")
            continue
        if _hands_over(manifest) and not handing and manifest.id not in reading.skills:
            problems.append(f"{step.label}: {manifest.id} hands a thing over (TRANSFER), which the task does not ask")
            continue
        if set(manifest.actions) & allowed or manifest.id in reading.skills:
            continue
        does = ", ".join(a.value for a in manifest.actions)
        problems.append(f"{step.label}: {manifest.id} does {does}, which the task does not ask for ({asked})")
    return problems


def _hands_over(manifest: SkillManifest) -> bool:
    """A skill that picks a thing up or lets it go and hands it over (a fetch, a hand-over): "pick up the mug"
    asks for the pick, not for the mug to go to someone, so a verb must ask for the transfer itself (taking
    what a person hands, a grasp, is asked by "take it")."""
    actions = set(manifest.actions)
    return ActionVerb.TRANSFER in actions and bool(actions & {ActionVerb.PICK, ActionVerb.RELEASE})


def _undone(
    reading: TaskReading, steps: Sequence[StepView], done: Sequence[SkillManifest], world: WorldState
) -> list[str]:
    """Rule 3b: what each clause's verbs ask for, some step does (or an attempt already did); "go home", a step
    that brings the arm home. A pick followed by a clause about the same thing ("grasp the handle and open it")
    is the means of that clause, as the grammar reads it, and needs no step of its own."""
    if not steps:
        return _nothing_done(reading, done, world)
    manifests = [s.manifest for s in steps if s.manifest is not None] + list(done)
    problems = []
    for index, clause in enumerate(reading.clauses):
        following = reading.clauses[index + 1] if index + 1 < len(reading.clauses) else None
        if _means_of(clause, following) or _already(clause, world):
            continue
        if clause.intent is not None and clause.intent.action is IntentAction.HOME:
            if not any(parse_predicate(e).name in POSE_PREDICATES for m in manifests for e in m.effects):
                problems.append(f"the task says {clause.text!r}, which no step does")
        elif clause.actions or clause.skills:
            asks = ", ".join(sorted(a.value for a in clause.actions)) or ", ".join(sorted(clause.skills))
            if not any(clause.asks_for(m) for m in manifests):
                problems.append(f"the task says {clause.text!r}, which no step does ({asks})")
            elif not any(clause.asks_for(m) for m in done) and (missed := _not_on_its_objects(clause, steps)):
                problems.append(f"the task says {clause.text!r}; no step doing it ({asks}) acts on {missed}")
    return problems


def _not_on_its_objects(clause: ClauseReading, steps: Sequence[StepView]) -> str:
    """What a clause names that no step doing what it asks acts on ('' when one does, or it names nothing):
    "photo of that gauge" is not done by a photo of the dock, nor by a photo of nothing. A step right after one
    that brought the robot to a place acts there too ("a photo of the boiler room": go there, take a photo)."""
    named = {i for m in clause.mentions if m.required and not m.excluded for i in m.ids}
    if not named:
        return ""
    for index, step in enumerate(steps):
        if step.manifest is None or not clause.asks_for(step.manifest):
            continue
        where = set(step.acted)
        if index > 0 and (there := _brings_robot_to(steps[index - 1])) is not None:
            where.add(there)
        if where & named:
            return ""
    return ", ".join(sorted(named)) if len(named) == 1 else f"any of {', '.join(sorted(named))}"


def _nothing_done(reading: TaskReading, done: Sequence[SkillManifest], world: WorldState) -> list[str]:
    """An empty plan ("already done") is faithful only where each clause's ask holds already: the arm is home
    for "go home", the drawer open for "open the drawer", or an earlier attempt did it. Nothing else can show
    that a task asking for an action ("I'm handing you something, take it") needs none."""
    wishes = set(load_lexicon().requests.wish_verbs)
    problems = []
    for clause in reading.clauses:
        if _already(clause, world) or any(clause.asks_for(m) for m in done):
            continue
        if clause.verbs and set(clause.verbs) <= wishes and not clause.skills:
            continue  # "make sure the arm is home": a state wished for, which the check cannot read
        if clause.intent is not None and clause.intent.action is IntentAction.HOME:
            if not world.at_home:
                problems.append(f"the plan does nothing, and the task says {clause.text!r} (the arm is not home)")
        elif clause.actions or clause.skills:
            problems.append(f"the plan does nothing, and the task says {clause.text!r}")
    return problems


def _already(clause: ClauseReading, world: WorldState) -> bool:
    """Whether the clause opens what is open, or closes what is closed, before any step: nothing to do."""
    intent = clause.intent
    if intent is None or intent.action not in (IntentAction.OPEN, IntentAction.CLOSE) or intent.object is None:
        return False
    ids = clause.object_ids
    return len(ids) == 1 and is_open(world, ids[0]) == (intent.action is IntentAction.OPEN)


def _means_of(clause: ClauseReading, following: ClauseReading | None) -> bool:
    """Whether ``clause`` is a pick whose object the next clause acts on ("... and open it", "... and put it")."""
    first = clause.intent
    second = following.intent if following is not None else None
    if first is None or second is None or first.action is not IntentAction.PICK:
        return False
    return second.object is None or second.object == first.object


def _misplaced(
    reading: TaskReading, calls: Sequence[SkillCall], world: WorldState, registry: SkillRegistry
) -> list[str]:
    """Rule 5: what a put the grammar read places ("put all the cubes in the bowl") is there when the plan ends."""
    placements = [p for c in reading.clauses for p in c.placements]
    if not placements:
        return []
    manifests = [registry.get(c.skill) if c.skill in registry else None for c in calls]
    final = _state_after(calls, manifests, world)

    places = sorted(world_ids(world))

    def on(object_id: str, support: str) -> bool:
        return any(final.holds(parse_predicate(f"{rel}({object_id}, {support})")) for rel in ("on", "in"))

    def there(object_id: str, target: str, depth: int = 0) -> bool | None:
        """On or in the target (or on a pile that stands on it); None when the plan's effects do not say where."""
        if on(object_id, target):
            return True
        under = [p for p in places if p != object_id and on(object_id, p)]
        if not under:
            return None if not final.holds(parse_predicate(f"holding({object_id})")) else False
        return depth < len(places) and any(there(u, target, depth + 1) for u in under)

    problems = []
    for placement in placements:
        away = [i for i in placement.objects if there(i, placement.target) is False]
        if placement.every and away:
            problems.append(f"the task says {placement.clause!r}; after the plan {', '.join(away)} is not there")
        elif not placement.every and len(away) == len(placement.objects):
            problems.append(f"the task says {placement.clause!r}; after the plan {' or '.join(away)} is not there")
    return problems


def _params(manifest: SkillManifest, role: Role) -> list[str]:
    return [p for p, r in manifest.roles().items() if r is role]


def _clause_values(reading: TaskReading, step: StepView, attribute: str) -> list[object]:
    """The directions (or amounts) said in the clauses that name what ``step`` acts on; else all the task's.

    A clause that names nothing ("then push it back 2 cm") speaks of what the clause before it named."""
    named: list[frozenset[str]] = []
    for c in reading.clauses:
        named.append(c.named or (named[-1] if named else frozenset()))
    own = [c for c, ids in zip(reading.clauses, named, strict=True) if set(step.acted) & ids and getattr(c, attribute)]
    clauses = own or reading.clauses
    return [value for c in clauses for value in getattr(c, attribute)]


def _moved_base(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """A task that says not to move ("without moving, photograph the pump") has no step that drives the base."""
    if not says_in_place(reading.text or reading.task.lower()):
        return []
    moving = [s for s in steps if s.manifest is not None and ActionVerb.NAVIGATE in s.manifest.actions]
    return [f"the task says not to move, and {moving[0].label} moves the base"] if moving else []


def _directions(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 4a: each direction argument is one the task says (for that object); each direction said is used."""
    problems = []
    given: set[str] = set()
    for step in steps:
        manifest = step.manifest
        for param in _params(manifest, Role.DIRECTION) if manifest is not None else ():
            value = step.call.args.get(param)
            if not isinstance(value, str):
                continue
            given.add(value)
            said = [str(d) for d in _clause_values(reading, step, "directions")]
            if value not in said:
                told = f"the task says {' or '.join(dict.fromkeys(said))}" if said else "the task names no direction"
                problems.append(f"{step.label}: {param} {value}, but {told}")
    problems += [f"the task says {d}, which no step's direction is" for d in reading.directions if d not in given]
    in_task = [d for d in reading.directions if d in given]
    in_plan = [d for d in dict.fromkeys(_step_directions(steps)) if d in in_task]
    if not problems and in_plan != in_task:  # "left 2 cm, then forward 2 cm": left first
        problems.append(f"the steps go {', then '.join(in_plan)}, but the task says {', then '.join(in_task)}")
    return problems


def _step_directions(steps: Sequence[StepView]) -> Iterator[str]:
    for step in steps:
        for param in _params(step.manifest, Role.DIRECTION) if step.manifest is not None else ():
            if isinstance(value := step.call.args.get(param), str):
                yield value


def _amounts(reading: TaskReading, steps: Sequence[StepView]) -> list[str]:
    """Rule 4b: a quantity argument is an amount the task says (or the default); each amount said is used."""
    problems = []
    used: list[Quantity] = []
    for step in steps:
        manifest = step.manifest
        for param in _params(manifest, Role.QUANTITY) if manifest is not None else ():
            assert manifest is not None
            value = argument_at(step.call.args, param)
            unit = schema_unit(manifest.parameter_schema(param))
            if not isinstance(value, int | float) or isinstance(value, bool) or unit is None:
                continue
            said = [q for q in _clause_values(reading, step, "amounts") if isinstance(q, Quantity)]
            fitting = [(q, v) for q in said if (v := _converted(q, unit)) is not None]
            matched = [q for q, v in fitting if _same(v, value)]
            # One amount said is one step's: "left 2 cm, then forward 2 cm" says 2 cm for each of two steps.
            fresh = [q for q in matched if not any(q is u for u in used)]
            used += (fresh or matched)[:1]
            shown = f"{value:g}{'' if unit == COUNT else ' ' + unit}"
            if fitting and not matched:
                told = " or ".join(f"{q.text} ({v:g} {unit})" for q, v in fitting)
                problems.append(f"{step.label}: {param} {shown}, but the task says {told}")
            elif not fitting and not _is_default(manifest, param, value):
                problems.append(f"{step.label}: {param} {shown}, which the task does not say")
    repeats = _repeats(steps)
    for amount in reading.amounts:
        if any(amount is u for u in used) or (amount.kind == COUNT and amount.value in repeats):
            continue
        problems.append(f"the task says {amount.text}, which no step's amount is")
    return problems


def _same(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-9)


def _converted(quantity: Quantity, unit: str) -> float | None:
    try:
        return convert(quantity, unit)
    except UnitMismatch:
        return None


def _is_default(manifest: SkillManifest, param: str, value: float) -> bool:
    """Whether ``value`` is what the skill would use anyway (its schema's or its goal's default)."""
    defaults: list[object] = [manifest.parameter_schema(param).get("default")]
    if manifest.ros is not None:
        defaults.append(manifest.ros.default_goal.get(param))
    return any(isinstance(d, int | float) and not isinstance(d, bool) and _same(d, value) for d in defaults)


def _repeats(steps: Sequence[StepView]) -> set[float]:
    """How many times each call is made: a count the task says ("twice") may be the plan's repetitions."""
    return {float(n) for n in repeats(steps, inserted=True).values()}


__all__ = ["Faithfulness", "check_faithful", "ids_in", "require_faithful", "view_steps", "with_note", "world_ids"]

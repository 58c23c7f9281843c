"""The faithful restatements of a task: every sentence of its narrowed language, planned and checked.

A ``rewrite`` profile asks a small model to restate a task in the robot's
controlled language (``rewrite_grammar``). That language, narrowed to what
the task names, is small: the task's objects, its verbs' actions, its
directions and amounts, as many commands as it has clauses. So before the
model is asked, every sentence of it (one verb per form, one phrase per
object: words that plan alike) is planned by the grammar planner and held
against the task by the faithfulness check, the very test a model's
restatement must pass::

    "could you shift the red one onto the dish"
      -> language: "put the red cube on the plate", "put the plate on the red cube", ...
      -> faithful:  "put the red cube on the plate" -> pick(red_cube), place_on(plate)

Chains of fewer commands are tried first, and longer ones only where none
passes: a longer chain only adds steps the task did not ask for. What comes
back is each distinct faithful plan with the sentence that made it. None at
all, with every sentence tried, means no restatement can pass and the task is
refused without a model call. Faithful plans with different outcomes mean the
task's words allow each (``meanings``), and the task is refused as ambiguous,
naming them: a 135M model's pick among them is a guess. One outcome is the
plan.
The search is bounded (``MAX_COMMANDS``, ``MAX_SENTENCES``): past the bound
it says it is incomplete and the model restates freely, as before.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.grammar_planner.planning_errors import NotAfforded, SameObjectTwice
from bt_executive.llm.grounding.object_matching import UnknownObject
from bt_executive.llm.language.task_grammar import TaskNotUnderstood
from bt_executive.llm.model.faithfulness import (
    Faithfulness,
    asks_for_anything,
    check_faithful,
    ids_in,
    view_steps,
    world_ids,
)
from bt_executive.llm.model.rewrite_grammar import Focus, Ref, RewriteGrammar, Symbol, rewrite_grammar
from bt_executive.llm.model.task_reading import TaskReading
from bt_executive.llm.plan import Plan, PlannerError
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.conditions import SymbolicState, apply_step
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

MAX_COMMANDS = 400
"""The most single commands expanded from the search language; past it the search is incomplete."""
MAX_SENTENCES = 300
"""The most whole restatements planned and checked (about 3 ms each warm): the search's time bound."""

PlanGate = Callable[[Plan, WorldState], object]

NEVER_POSSIBLE: tuple[type[Exception], ...] = (UnknownObject, NotAfforded, SameObjectTwice)
"""Refusals of a command alone that no earlier step of a chain can lift: no step makes an object, changes what
an object affords or lets a put go onto its own object (the search language names objects by colour, kind
and id, never by where they are)."""


class _TooMany(Exception):
    """More sentences than the bound: the search stops and says it is incomplete."""


@dataclass(frozen=True)
class Restatements:
    """The faithful plans of one task's language, one sentence each, and whether every sentence was tried."""

    found: tuple[tuple[str, Plan, Faithfulness], ...]
    complete: bool
    tried: int

    @property
    def none_can_pass(self) -> bool:
        """No sentence of the language is a faithful restatement, and every one was tried."""
        return self.complete and not self.found

    def meanings(self, world: WorldState, registry: SkillRegistry) -> list[tuple[str, Plan, Faithfulness]]:
        """One faithful restatement per distinct outcome, the first found (the fewest commands) of each: a
        stack and a pick-and-place onto the same support are one meaning, a tap and a push are two."""
        kept: dict[tuple[object, ...], tuple[str, Plan, Faithfulness]] = {}
        for found in self.found:
            kept.setdefault(_outcome(found[1], world, registry), found)
        return list(kept.values())


def search_grammar(registry: SkillRegistry, world: WorldState, focus: Focus) -> RewriteGrammar:
    """The narrowed language with nothing faithfulness would refuse for its words alone: objects and places
    only the task names, one verb per form (verbs of one form parse alike), one phrase per object."""
    return rewrite_grammar(registry, world, focus=focus, strict=True)


def faithful_restatements(
    task: str,
    reading: TaskReading,
    focus: Focus,
    world: WorldState,
    registry: SkillRegistry,
    planner: GrammarPlanner,
    prior_attempts: Sequence[AttemptRecord] = (),
    *,
    gate: PlanGate | None = None,
    on_incomplete: Callable[[], object] | None = None,
) -> Restatements:
    """Every distinct faithful plan among the sentences of ``task``'s search language (see the module doc).

    ``on_incomplete`` is called once, as soon as the search knows it cannot try every sentence (before it
    plans the ones it still tries), so that a caller can start the model's restatement meanwhile."""
    grammar = search_grammar(registry, world, focus)
    if not grammar.says_anything or not asks_for_anything(reading):
        return Restatements((), True, 0)  # no sentence could pass: none said, or every last step fails rule 3
    try:
        commands = _expand(grammar, "clause", MAX_COMMANDS)
    except _TooMany:
        return Restatements((), False, 0)
    skills: dict[str, frozenset[str]] = {}
    distinct = _distinct_commands(commands, world, registry, planner, prior_attempts, skills)
    # What rule 1 requires each chain to use: what a phrase naming one object, or all of some ("every cube"),
    # names; "the red or the green cube" asks for one of them, so neither is required.
    singular = (m for m in reading.mentions if m.required and not m.excluded and (m.every or len(m.ids) == 1))
    excluded = {i for m in reading.mentions if m.excluded for i in m.ids}
    named = {i for m in singular for i in m.ids if i in world_ids(world)} - excluded
    # Commands on what the task names first, in the order it names them: past the bound, the chains tried are
    # those that say the task's objects in its own order.
    order = {i: n for n, i in enumerate(dict.fromkeys(i for m in reading.mentions for i in m.ids))}
    distinct = dict(sorted(distinct.items(), key=lambda item: _rank(item[1], named, order)))
    found: dict[str, tuple[str, Plan, Faithfulness]] = {}
    tried = 0
    complete = True
    aligned = _aligned(reading, distinct, skills, registry)
    for n in range(1, focus.clauses + 1):  # the fewest commands first: a longer chain only adds steps
        if not complete and n != len(aligned):
            continue  # past the bound, only the chain of one command per clause is still worth a try
        chains, every = _chains(distinct, n, named, aligned if len(aligned) == n else [])
        if complete and not every and on_incomplete is not None:
            on_incomplete()
        complete = complete and every
        tried += len(chains)
        for chain in chains:
            sentence = " then ".join(chain)
            plan = _plan(sentence, world, planner, prior_attempts)
            signature = _signature(plan) if plan is not None else ""
            if plan is None or signature in found:
                continue
            if gate is not None:
                try:
                    gate(plan, world)
                except PlannerError:
                    continue
            verdict = check_faithful(plan, task, world, registry, prior_attempts, reading=reading)
            if verdict.faithful:
                found[signature] = (sentence, plan, verdict)
        if found:
            break
    # Of restatements alike in outcome, the one in the task's own verbs first ("stack X on Y in one motion" is a
    # stack, not a pick and a place): ``meanings`` keeps the first of each outcome.
    said = set(reading.verbs)
    ordered = sorted(found.values(), key=lambda f: not any(c.split()[0] in said for c in f[0].split(" then ")))
    return Restatements(tuple(ordered), complete, tried)


def _rank(acted: frozenset[str] | None, named: set[str], order: dict[str, int]) -> tuple[int, int]:
    """Where a command comes in the search: those acting on what the task names, by where it names it, then
    those refused alone, then the rest (a wait, a look)."""
    said = [order.get(i, len(order)) for i in (acted or ()) if i in named]
    if said:
        return (0, min(said))
    return (1, 0) if acted is None else (2, 0)


def _aligned(
    reading: TaskReading,
    distinct: dict[str, frozenset[str] | None],
    skills: dict[str, frozenset[str]],
    registry: SkillRegistry,
) -> list[list[str]]:
    """For each clause that asks for something, the commands that do what it asks on what it names: a chain of
    one of each, in the clauses' order, is what a task of that many clauses most likely says ([]: a clause no
    command serves)."""
    asking = [c for c in reading.clauses if c.actions or c.skills]
    found: list[list[str]] = []
    for clause in asking:
        serving = [
            command
            for command, acted in distinct.items()
            if acted is not None
            and any(s in registry and clause.asks_for(registry.get(s)) for s in skills.get(command, ()))
            and (not clause.named or acted & clause.named)
        ]
        if not serving:
            return []
        found.append(serving)
    return found


def _chains(
    distinct: dict[str, frozenset[str] | None], n: int, named: set[str], aligned: Sequence[Sequence[str]] = ()
) -> tuple[list[tuple[str, ...]], bool]:
    """The chains of ``n`` commands that act on every object the task names (faithfulness's rule 1; a command
    refused alone may act on any), the first ``MAX_SENTENCES`` of them, and whether that is all of them: the
    chains of ``aligned`` (one command per clause, in order) first, then the rest in ``distinct``'s order."""
    chains: dict[tuple[str, ...], None] = {}
    for chain in itertools.chain(itertools.product(*aligned) if aligned else (), itertools.product(distinct, repeat=n)):
        if chain in chains:
            continue
        acted: list[set[str] | frozenset[str]] = [named if (a := distinct[c]) is None else a for c in chain]
        if named <= set().union(*acted):
            if len(chains) == MAX_SENTENCES:
                return list(chains), False
            chains[chain] = None
    return list(chains), True


def _outcome(plan: Plan, world: WorldState, registry: SkillRegistry) -> tuple[object, ...]:
    """What a plan leaves changed (its steps imagined as the plan check imagines them), the calls of the
    steps that change nothing a world state shows (a tap, a photo), in order, and how each step is done where
    it says more than what it acts on: a drive to the kitchen at 0.3 m/s and one at the default speed reach
    the same place, but are not the same meaning."""
    state = SymbolicState(world)
    unseen: list[str] = []
    ids = world_ids(world)

    def said(value: object) -> bool:  # an argument beyond the ids acted on (a speed, an option, a list)
        return not (isinstance(value, str) and value in ids)

    how = tuple(
        (tuple(sorted(ids_in(step, ids))), tuple(sorted((k, json.dumps(v)) for k, v in step.args.items() if said(v))))
        for step in plan.steps
        if any(said(v) for v in step.args.values())
    )
    for step in plan.steps:
        manifest = registry.get(step.skill) if step.skill in registry else None
        if manifest is None:
            unseen.append(step.label())
            continue
        apply_step(state, manifest, step.args)
        if not manifest.effects:
            unseen.append(step.label())
    return (state.outcome(), tuple(unseen), how)


def _distinct_commands(
    commands: Sequence[str],
    world: WorldState,
    registry: SkillRegistry,
    planner: GrammarPlanner,
    prior_attempts: Sequence[AttemptRecord],
    skills: dict[str, frozenset[str]],
) -> dict[str, frozenset[str] | None]:
    """One command per distinct plan it makes alone, with the objects that plan acts on as faithfulness sees
    them (what a step puts down from the gripper too: "put the mug you hold in the bin" acts on the mug); a
    command refused alone is kept with None (a later step may make it possible: "open the drawer then close
    the drawer"), unless no step can: it names what is not here, asks what an object never affords, or puts
    an object on itself. One that does not parse is dropped. ``skills`` is filled with each kept command's
    skills."""
    kept: dict[str, tuple[str, frozenset[str] | None]] = {}
    for command in commands:
        try:
            plan = planner.plan(command, world, prior_attempts)
        except TaskNotUnderstood:
            continue
        except NEVER_POSSIBLE:
            continue
        except PlannerError:
            kept.setdefault(f"refused:{command}", (command, None))
            continue
        acted = frozenset(i for view in view_steps(plan.steps, world, registry) for i in view.acted)
        kept.setdefault(_signature(plan), (command, acted))
        skills[command] = frozenset(step.skill for step in plan.steps)
    return dict(kept.values())


def _plan(
    sentence: str, world: WorldState, planner: GrammarPlanner, prior_attempts: Sequence[AttemptRecord]
) -> Plan | None:
    try:
        return planner.plan(sentence, world, prior_attempts)
    except PlannerError:  # TaskNotUnderstood is one
        return None


def _signature(plan: Plan) -> str:
    """What makes two plans the same plan: their calls, in order (not the rationale each step gives)."""
    return json.dumps([[s.skill, s.args, s.prompt] for s in plan.steps], sort_keys=True)


def _expand(grammar: RewriteGrammar, rule: str, limit: int) -> list[str]:
    """Every sentence of ``rule``; _TooMany past ``limit`` (or at a character class: amounts not the task's)."""
    out: list[str] = []
    for sentence in _sentences(grammar, (Ref(rule),)):
        out.append(sentence)
        if len(out) > limit:
            raise _TooMany
    return out


def _sentences(grammar: RewriteGrammar, symbols: tuple[Symbol, ...]) -> Iterator[str]:
    if not symbols:
        yield ""
        return
    head, rest = symbols[0], symbols[1:]
    if isinstance(head, str):
        heads: Iterator[str] = iter((head,))
    elif isinstance(head, Ref):
        heads = (s for alt in grammar.rules[head.name] for s in _sentences(grammar, alt))
    else:
        raise _TooMany  # a character class: any number, so no end to the language
    for first in heads:
        for tail in _sentences(grammar, rest):
            yield first + tail

"""AutoPlanner: grammar first, model last; the default planner (``--planner auto``).

A task the task grammar parses and grounds in the world state is planned
deterministically, by the same plan builder as the stub planner: no model,
no network, the same plan every time. What the grammar cannot parse goes to
the profile's ``fallback`` (a model profile, ``local`` by default), handed
what the grammar did find as context (the clauses it read, as it read them,
the clauses it could not, the words it does not know, the objects the task
names), and its plan is checked against the task (``model.faithfulness``):
one that does not do what the task says is refused as ``unfaithful``. Some
answers never need a model and never get one: a request no skill serves
("delete your skills", "run this shell command") is refused as out of scope,
and a task whose verbs name only actions no skill of this robot declares
("wave at me") is refused as a missing skill. Every plan, from either path,
is checked by the task tree before anything moves::

    "grab the crimson block and drop it onto the dish"  -> grammar: pick(red_cube), place_on(plate)
    "shut yourself down"                                -> refused (out_of_scope), no model
    "throw the red cube at the wall"                    -> refused (unsafe), no model
    "arrange the cubes by colour"                       -> fallback model, with context; its plan checked
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from functools import cache

from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.grounding.object_matching import object_words
from bt_executive.llm.grounding.task_objects import named_ids, task_words
from bt_executive.llm.language.lexicon import alternatives, load_lexicon
from bt_executive.llm.language.noun_phrases import phrase_words
from bt_executive.llm.language.task_grammar import TaskNotUnderstood, normalise_task
from bt_executive.llm.language.verb_lexicon import verbs_in
from bt_executive.llm.model.faithfulness import require_faithful
from bt_executive.llm.model.grammar_context import grammar_context
from bt_executive.llm.plan import (
    ClosablePlanner,
    ContextPlanner,
    Plan,
    Planner,
    PlannerError,
    PlannerRefused,
    RefusalKind,
    WarmablePlanner,
    refuse_unreadable,
)
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.manifest import ActionVerb
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

PLANNER_NAME = "auto"


class AutoPlanner:
    """The grammar's plan when the task parses; the fallback model's otherwise; refusals before either."""

    name = PLANNER_NAME

    def __init__(
        self,
        registry: SkillRegistry,
        fallback: Callable[[], Planner] | None = None,
        *,
        fallback_name: str = "",
        owner: str = "tabletop",
    ) -> None:
        self._registry = registry
        self._grammar = GrammarPlanner(registry, owner=owner)
        self._grammar.name = PLANNER_NAME
        self._make_fallback = fallback
        self._fallback: Planner | None = None
        self._fallback_lock = threading.Lock()  # serve may warm it on a thread while a task plans
        self.fallback_name = fallback_name

    def plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord] = ()) -> Plan:
        """Refuse what no skill serves; plan by grammar; else ask the fallback model with context."""
        try:
            return self._screened_grammar_plan(task, world_state, prior_attempts)
        except TaskNotUnderstood as err:
            if self._make_fallback is None:
                raise unread(task, world_state, err) from None
            return self._ask_model(task, world_state, prior_attempts, err)

    def asks_model(self, task: str, world_state: WorldState) -> bool:
        """Whether ``plan`` hands this task to the fallback model (with one): nothing refuses it first and the
        grammar cannot read it. The benchmarks pick the model's tasks by this."""
        try:
            self._screened_grammar_plan(task, world_state, ())
        except TaskNotUnderstood:
            return True
        except PlannerError:
            return False
        return False

    def _screened_grammar_plan(
        self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord]
    ) -> Plan:
        """The refusal screen, then the grammar's plan; TaskNotUnderstood (for the model) only when the grammar
        cannot read the task and it names no verb this robot lacks."""
        refuse_unreadable(task)
        refuse_out_of_scope(task)
        refuse_prohibition(task)
        try:
            return self._grammar.plan(task, world_state, prior_attempts)
        except TaskNotUnderstood:
            self.refuse_missing_skill(task)
            raise

    def refuse_missing_skill(self, task: str) -> None:
        """A task whose action words name only verbs no skill of this robot declares is refused."""
        named = verbs_in(task) - {ActionVerb.GENERALIST}
        if not named:
            return
        declared = {verb for skill in self._registry.ids() for verb in self._registry.get(skill).actions}
        if not named & declared:
            verbs = ", ".join(sorted(v.value.lower() for v in named))
            raise PlannerRefused(f"this robot has no skill that can {verbs}", RefusalKind.MISSING_SKILL)

    def warm(self, world_state: WorldState) -> None:
        """Build the fallback model's planner and warm it (its local server, its prompt), before a task needs it."""
        planner: object = self._fallback_planner()  # what it can do beyond plan() is asked by isinstance
        if isinstance(planner, WarmablePlanner):
            planner.warm(world_state)

    def close(self) -> None:
        """Close the fallback planner (stopping a local model it started), if one was built."""
        with self._fallback_lock:
            planner: object = self._fallback
            self._fallback = None
        if isinstance(planner, ClosablePlanner):
            planner.close()

    def _fallback_planner(self) -> Planner | None:
        with self._fallback_lock:
            if self._fallback is None and self._make_fallback is not None:
                self._fallback = self._make_fallback()
            return self._fallback

    def _ask_model(
        self, task: str, world: WorldState, prior_attempts: Sequence[AttemptRecord], err: TaskNotUnderstood
    ) -> Plan:
        planner = self._fallback_planner()
        assert planner is not None  # plan() asks the model only when there is a fallback
        context = grammar_context(task, world, self._registry) or [f"The grammar could not read {err.clause!r}."]
        ids = named_ids(task, world)
        if ids:
            context.append(f"Objects the task names: {', '.join(ids)}.")
        if isinstance(planner, ContextPlanner):
            plan = planner.plan_with_context(task, world, prior_attempts, context)
        else:
            plan = planner.plan(task, world, prior_attempts)
        # Whatever the fallback (an LLMPlanner has checked and repaired its plan already): no unfaithful plan out.
        plan = require_faithful(plan, task, world, self._registry, prior_attempts)
        label = f"{PLANNER_NAME}/{self.fallback_name or getattr(planner, 'name', 'model')}"
        return plan.model_copy(update={"planner": label})


def refuse_out_of_scope(task: str) -> None:
    """Refuse a request no robot skill serves (the lexicon's out_of_scope list) or one it must never carry out
    (its unsafe list: throwing, breaking, hurting), before any model could turn it into skill calls."""
    # The task as written too: a spelling the grammar reads ("rm" as "room") must not hide "rm -rf".
    text = f" {normalise_task(task)} | {' '.join(task.lower().split())} "
    lexicon = load_lexicon()
    safe = text
    for idiom in lexicon.unsafe_idioms:  # "throw it away": discarding, not throwing
        safe = re.sub(idiom, " ", safe)
    unsafe = _first_phrase(safe, lexicon.unsafe)
    if unsafe is not None:
        raise PlannerRefused(f"{unsafe!r}: this robot does not do that, whatever the object", RefusalKind.UNSAFE)
    out_of_scope = _first_phrase(text, lexicon.out_of_scope)
    if out_of_scope is not None:
        raise PlannerRefused(
            f"{out_of_scope!r} asks for something no robot skill does (the lexicon's out_of_scope list)",
            RefusalKind.OUT_OF_SCOPE,
        )


def unread(
    task: str,
    world: WorldState,
    err: TaskNotUnderstood,
    *,
    otherwise: str = "no model is configured to read it otherwise",
) -> PlannerRefused:
    """The refusal of a task the grammar cannot read when no model is there to try (``otherwise``: why nothing
    else read it): ``missing_skill`` when it names something of this robot's world (no skill of the robot is
    asked that way: "lock the front door"), ``out_of_scope`` when it names nothing here ("order me a pizza")."""
    # The clause as read too ("drwr" read as "drawer"), and a plural's singular ("the lights": a light here).
    words = set(task_words(task)) | set(task_words(err.clause))
    said = words | {w[:-1] for w in words if w.endswith("s")} | {w[:-2] for w in words if w.endswith("es")}
    own = {w for o in world.objects for w in object_words(o)} | {w for r in world.regions for w in phrase_words(r)}
    lexicon = load_lexicon()
    named = sorted((said & own) - set(lexicon.function_words) - set(lexicon.ignored))
    where = "" if err.clause == task else f" (the part {err.clause!r})"
    if named:
        return PlannerRefused(
            f"no skill of this robot is asked {task!r}{where}: {err.forms}; {otherwise} (it names {', '.join(named)})",
            RefusalKind.MISSING_SKILL,
        )
    return PlannerRefused(
        f"{task!r}{where} names nothing in this robot's world and asks for none of its skills: {err.forms}",
        RefusalKind.OUT_OF_SCOPE,
    )


@cache
def _request_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A task that only asks to stop, and one that says what not to do (``config/lexicon.yaml``: ``requests``)."""
    words = load_lexicon().requests
    space = r"\s+"
    polite = rf"(?:(?:{alternatives(words.polite, space=space)})\s+)?"
    stops = alternatives(words.stop_verbs, space=space)
    objects = alternatives(words.stop_objects, space=space)
    leads = alternatives(words.prohibition_leads, before=r"\b", after=r"\b", space=space)
    prohibitions = alternatives(words.prohibitions, space=space)
    stop = re.compile(rf"^{polite}(?:{stops})(?:\s+(?:{objects}))*$")
    prohibition = re.compile(rf"(?:^|,|{leads})\s*{polite}(?:{prohibitions})\b")
    return stop, prohibition


def refuse_prohibition(task: str) -> None:
    """Refuse a task that says what not to do ("don't touch the blue cube") or only to stop ("stop").

    No planner here can honour a prohibition, and a model might plan the very action it forbids; a
    request to stop has nothing to plan (sending it as a new task has already preempted the running one).
    """
    text = normalise_task(task)
    stop, prohibition = _request_patterns()
    if stop.match(text):
        raise PlannerRefused(
            f"{task!r} asks to stop, which plans nothing (sent as a task, it has preempted any running one)",
            RefusalKind.OUT_OF_SCOPE,
        )
    if prohibition.search(text):
        raise PlannerRefused(
            f"{task!r} says what not to do; this planner cannot honour a prohibition, so it plans nothing: "
            "say only what to do",
            RefusalKind.OUT_OF_SCOPE,
        )


def _first_phrase(text: str, phrases: Sequence[str]) -> str | None:
    """The first of ``phrases`` that occurs in ``text`` as whole words."""
    if not _whole_words(tuple(phrases)).search(text):  # most tasks: one search of one pattern
        return None
    return next((p for p in phrases if re.search(rf"(?<![a-z0-9]){re.escape(p)}(?![a-z0-9])", text)), None)


@cache
def _whole_words(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """Any of ``phrases`` as whole words: one compile for the lexicon's list, not one a phrase."""
    either = "|".join(re.escape(p) for p in phrases) or "(?!)"
    return re.compile(rf"(?<![a-z0-9])(?:{either})(?![a-z0-9])")


__all__ = ["PLANNER_NAME", "AutoPlanner", "PlannerError", "refuse_out_of_scope", "refuse_prohibition"]

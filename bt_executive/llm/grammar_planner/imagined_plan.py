"""The base of one planning pass: the world imagined step by step, the steps so far and their notes."""

from __future__ import annotations

from collections import Counter

from bt_executive.llm.grammar_planner.attempt_history import AttemptHistory
from bt_executive.llm.grammar_planner.skill_choice import actions_of, candidates
from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.task_grammar import Intent, IntentAction
from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.skills.conditions import SymbolicState
from bt_executive.skills.manifest import ActionVerb, SkillManifest
from bt_executive.skills.predicates import Predicate
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState


def atom(name: str, *args: str, negated: bool = False) -> Predicate:
    return Predicate(name=name, args=args, negated=negated)


_NOTES_LIMIT = 4000

RATIONALE_LIMIT = 200


class ImaginedPlan:
    """The state of one planning pass, the bottom layer of ``planner._PlanBuilder``.

    The builder is split by concern into layers, each a subclass of the one below, so that each uses only
    what is beneath it: ``ObjectPhrases`` -> ``Chaining`` -> ``SkillActs`` -> ``Moving`` -> ``_PlanBuilder``.
    """

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
        self.set_aside: set[int] = set()  # steps that only free the gripper for the clause after them
        self.notes: list[str] = []
        self.last_object: str | None = None
        self.named: list[str] = []  # every id a phrase named, in order: what a later 'it' may mean
        self.last_named: list[str] = []  # the ids the last clause named: what a later 'them' means
        self.last_target: str | None = None
        self.last_region: str | None = None
        """The region the last clause acted on, while no object came after it: what 'it' in "go to the
        living room and vacuum it" is."""
        self.antecedent: str | None = None
        """The object the last object phrase named: what 'the green one' takes its kind from."""
        self.goal: list[Predicate] = []
        self.last_actions: frozenset[ActionVerb] = frozenset()
        self.going_back: str | None = None
        """A bare "go back" said after the base moved: where to is the next clause's, which must move the base."""
        self.last_verb: str | None = None
        self.said_speed: str | None = None
        """A speed the task says only in words ("slowly"): a skill that takes a speed is not planned without one."""
        """The verb of the clause that emitted the last step through ``act``."""
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
        return self.state.holds(atom(name, *args, negated=negated))

    def held(self) -> str | None:
        """The object in the gripper after the steps so far, if any."""
        return next((i for i in self.world.ids() if self.holds("holding", i)), None)

    def container_of(self, obj: str) -> str | None:
        """What ``obj`` is in after the steps so far (a drawer, the fridge), if anything."""
        return next((c for c in self.world.ids() if self.holds("in", obj, c)), None)

    def skip(self, what: str, because: Predicate) -> None:
        """Note a step left out because its effect already holds."""
        self.notes.append(f"skip {what}: {because} already holds")

    def actions(self, intent: Intent) -> frozenset[ActionVerb]:
        """The closed actions a clause's verb asks for (its form's, or its verb phrase's)."""
        if intent.action is IntentAction.ACT:
            return actions_of(intent.verb or "")
        return frozenset(load_lexicon().intent_actions.get(intent.action.value, ()))

    def skills_for(self, intent: Intent) -> list[SkillManifest]:
        """The skills a clause's verb asks for, by the manifests."""
        return candidates(self.registry, intent.verb, self.actions(intent))

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

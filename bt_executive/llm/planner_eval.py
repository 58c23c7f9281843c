"""The planner's own eval: tasks in tiers, scored by whether their goal holds after the plan, not by strings.

``tests/golden/planner_tasks.yaml`` holds tabletop tasks in five tiers
(grammar, paraphrase, quantified, implicit_precondition, must_refuse), each
with a scenario (the sim's world state, changed: something held, a cube
stacked on another, the drawer open) and what must be true afterwards: goal
predicates, and for actions whose effect no world state shows (push, tap,
pour) the calls that must appear, in order. A plan is executed symbolically
from the scenario's world state, the way the task tree will run it: every
step's preconditions must hold where it runs, then its effects apply (placing
puts the held object on, or in, the target). Must-refuse tasks pass when no
call is compiled. An object the plan touches outside the task's ``objects``
(when given) is a substitution, counted in every tier and never allowed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bt_executive.llm.plan import Plan, Planner, PlannerError, PlannerRefused
from bt_executive.skills.conditions import SymbolicState, bind, goal_effects
from bt_executive.skills.loader import load_model
from bt_executive.skills.predicates import Predicate, PredicateText, parse_predicate
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.skills.world_state import GripperState, WorldState

Tier = Literal["grammar", "paraphrase", "quantified", "implicit_precondition", "must_refuse"]
TIERS: tuple[Tier, ...] = ("grammar", "paraphrase", "quantified", "implicit_precondition", "must_refuse")


class Scenario(BaseModel):
    """Changes to the scene's world state a task starts from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    holding: str | None = None
    rests_on: dict[str, str] = Field(default_factory=dict, description="object -> what it rests on instead")
    inside: dict[str, str] = Field(default_factory=dict, description="object -> the container it is in instead")
    drawer_open: bool = False
    at_home: bool = True
    remove: tuple[str, ...] = ()

    def apply(self, world: WorldState) -> WorldState:
        """The world state of this scenario."""
        objects = []
        for obj in world.objects:
            if obj.id in self.remove:
                continue
            if obj.id == self.holding:
                obj = obj.model_copy(update={"supported_by": None, "inside": None})
            elif obj.id in self.rests_on:
                obj = obj.model_copy(update={"supported_by": self.rests_on[obj.id]})
            elif obj.id in self.inside:
                obj = obj.model_copy(update={"supported_by": self.inside[obj.id], "inside": self.inside[obj.id]})
            objects.append(obj)
        drawers = dict.fromkeys(world.drawers, 1.0 if self.drawer_open else 0.0)
        return world.model_copy(
            update={
                "objects": tuple(objects),
                "gripper": GripperState(opening=0.0 if self.holding else 0.08, holding=self.holding),
                "drawers": drawers,
                "at_home": self.at_home and self.holding is None,
            }
        )


class EvalTask(BaseModel):
    """One task of the eval and what must hold once its plan has run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tier: Tier
    task: str = Field(min_length=1, max_length=500)
    scenario: str = "default"
    goal: tuple[PredicateText, ...] = ()
    calls: tuple[str, ...] = Field(default=(), description="labels that must appear in order, e.g. tap(red_cube)")
    objects: tuple[str, ...] | None = Field(default=None, description="ids the plan may touch (None: not checked)")


class EvalFile(BaseModel):
    """The whole eval file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scenarios: dict[str, Scenario]
    tasks: tuple[EvalTask, ...]


class TaskScore(BaseModel):
    """How one planner did on one task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    tier: Tier
    success: bool
    refused: bool
    calls: int
    substituted: tuple[str, ...] = ()
    seconds: float
    why: str = ""


def load_eval(path: Path) -> EvalFile:
    """Read and validate an eval file; every task's scenario must exist."""
    data = load_model(path, EvalFile)
    for number, task in enumerate(data.tasks):
        if task.scenario not in data.scenarios:
            raise ValueError(f"{path}: tasks[{number}].scenario {task.scenario!r} is not a scenario of the file")
    return data


def execute(plan: Plan, registry: SkillRegistry, world: WorldState) -> tuple[SymbolicState, str]:
    """Run a plan symbolically; the final state and, if a step could not run, why."""
    state = SymbolicState(world)
    for number, call in enumerate(plan.steps, start=1):
        try:
            manifest = registry.get(call.skill)
        except UnknownSkill:
            return state, f"step {number}: unknown skill {call.skill}"
        goals = [bind(e, call.args) for e in goal_effects(manifest.effects, call.args)]
        if goals and all(state.holds(g) for g in goals):
            continue
        for text in manifest.preconditions:
            predicate = bind(text, call.args)
            if not state.holds(predicate):
                return state, f"step {number} {call.label()}: {predicate} does not hold"
        held = next((o.id for o in world.objects if state.holds(_atom("holding", o.id))), None)
        for text in manifest.effects:
            state.apply(bind(text, call.args))
        target = call.args.get("target")
        if held is not None and isinstance(target, str) and state.holds(_atom("gripper_empty")):
            state.apply(_atom("on", held, target))  # placing puts what was held on (or in) the target
            if state.holds(_atom("container", target)):
                state.apply(_atom("in", held, target))
    return state, ""


def _atom(name: str, *args: str) -> Predicate:
    return Predicate(name=name, args=args)


def _in_order(wanted: Sequence[str], labels: Sequence[str]) -> bool:
    it = iter(labels)
    return all(any(label == w for label in it) for w in wanted)


def _object_args(plan: Plan, world: WorldState) -> set[str]:
    ids = set(world.ids()) | set(world.drawers)
    values: list[JsonValue] = [v for call in plan.steps for v in call.args.values()]
    return {v for v in values if isinstance(v, str) and v in ids}


def score(planner: Planner, task: EvalTask, world: WorldState, registry: SkillRegistry) -> TaskScore:
    """Plan one task from its scenario's world and judge the outcome."""
    start = time.perf_counter()
    plan: Plan | None = None
    refused = False
    why = ""
    try:
        plan = planner.plan(task.task, world)
    except PlannerRefused as err:
        refused, why = True, str(err)
    except PlannerError as err:
        why = f"planner error: {err}"
    seconds = time.perf_counter() - start
    calls = len(plan.steps) if plan is not None else 0
    substituted: tuple[str, ...] = ()
    if plan is not None and task.objects is not None:
        substituted = tuple(sorted(_object_args(plan, world) - set(task.objects) - {"table"}))
    if task.tier == "must_refuse":
        success = calls == 0 and plan is None
        why = why or "planned instead of refusing"
    elif plan is None:
        success = False
    else:
        state, why = execute(plan, registry, world)
        unmet = [g for g in task.goal if not state.holds(parse_predicate(g))]
        labels = [call.label() for call in plan.steps]
        if not why and unmet:
            why = f"goal not met: {', '.join(unmet)}"
        if not why and not _in_order(task.calls, labels):
            why = f"expected calls {list(task.calls)} in order, got {labels}"
        success = not why and not substituted
    return TaskScore(
        task=task.task,
        tier=task.tier,
        success=success,
        refused=refused,
        calls=calls,
        substituted=substituted,
        seconds=seconds,
        why=why if not success else "",
    )


def run_eval(
    planner: Planner,
    tasks: Sequence[EvalTask],
    scenarios: dict[str, Scenario],
    world: WorldState,
    registry: SkillRegistry,
) -> list[TaskScore]:
    """Score every task."""
    return [score(planner, t, scenarios[t.scenario].apply(world), registry) for t in tasks]


class TierSummary(BaseModel):
    """One tier's figures for one planner."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tier: Tier
    tasks: int
    success: float
    refused: float
    substituted: int
    mean_s: float


def summarise(scores: Sequence[TaskScore]) -> list[TierSummary]:
    """Per-tier success and refusal rates, substitutions and mean seconds per plan."""
    rows = []
    for tier in TIERS:
        mine = [s for s in scores if s.tier == tier]
        if not mine:
            continue
        rows.append(
            TierSummary(
                tier=tier,
                tasks=len(mine),
                success=sum(s.success for s in mine) / len(mine),
                refused=sum(s.refused for s in mine) / len(mine),
                substituted=sum(len(s.substituted) for s in mine),
                mean_s=sum(s.seconds for s in mine) / len(mine),
            )
        )
    return rows

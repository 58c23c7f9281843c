"""The planner's own eval: tasks in tiers, each plan judged exact, wrong, or a refusal.

``tests/golden/planner_tasks.yaml`` (the tabletop) and each eval robot's
``tasks.yaml`` / ``heldout.yaml`` (``eval_robots``) hold tasks in five tiers
(grammar, paraphrase, quantified, implicit_precondition, must_refuse), each
with a scenario (the robot's world state, changed: something held, a cube
stacked on another, the drawer open, an object out of reach) and what a
right plan is:

    steps   the exact plan: skills in order, each named argument equal, and
            any argument the step does not name left at its schema default
    goal    predicates that hold once the plan ran symbolically from the
            scenario, the way the task tree will run it (every step's
            preconditions hold where it runs, then its effects apply;
            placing puts the held object on, or in, the target)
    calls   for effects no world state shows (push, tap, pour): labels that
            appear in order
    objects the ids a plan may touch; any other is a substitution

A plannable task's plan is EXACT when all it states hold, else WRONG; a
refusal (or planner error) of a plannable task is counted apart, as a refusal
of a plannable task, never as wrong. A must-refuse task passes when no plan
comes back (with ``refuse``: a refusal of that kind; another kind fails it
without making it wrong); any plan for it is WRONG. Wrong plans are the
figure that must stay at zero: a refusal costs a user a retry, a wrong plan
moves the robot.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from bt_executive.llm.plan import Plan, Planner, PlannerError, PlannerRefused, RefusalKind
from bt_executive.skills.call import SkillCall
from bt_executive.skills.conditions import SymbolicState, apply_step, bound_to_call, goal_predicates
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SKILL_ID_PATTERN, SkillManifest
from bt_executive.skills.parameters import argument_errors
from bt_executive.skills.predicates import Predicate, PredicateText, parse_predicate
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.skills.world_state import GripperState, Vec3, WorldState

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
    unreachable: tuple[str, ...] = Field(default=(), description="objects out of the arm's reach (base too far)")
    resize: dict[str, Vec3] = Field(default_factory=dict, description="object -> its size instead (full extents, m)")
    recolour: dict[str, str] = Field(default_factory=dict, description="object -> its colour instead")

    def object_ids(self) -> dict[str, tuple[str, ...]]:
        """Every object id this scenario names, by field, so a loader can check them against the world."""
        return {
            "holding": (self.holding,) if self.holding else (),
            "rests_on": (*self.rests_on, *self.rests_on.values()),
            "inside": (*self.inside, *self.inside.values()),
            "remove": self.remove,
            "unreachable": self.unreachable,
            "resize": tuple(self.resize),
            "recolour": tuple(self.recolour),
        }

    def apply(self, world: WorldState) -> WorldState:
        """The world state of this scenario."""
        objects = []
        for obj in world.objects:
            if obj.id in self.remove:
                continue
            if obj.id in self.unreachable:
                obj = obj.model_copy(update={"reachable": False})
            if obj.id in self.resize:
                obj = obj.model_copy(update={"size": self.resize[obj.id]})
            if obj.id in self.recolour:
                obj = obj.model_copy(update={"colour": self.recolour[obj.id]})
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


class ExpectedStep(BaseModel):
    """One step of a task's exact plan: the skill, and the arguments that matter."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str = Field(pattern=SKILL_ID_PATTERN)
    args: dict[str, JsonValue] = Field(default_factory=dict)


class EvalTask(BaseModel):
    """One task of the eval and what a right plan for it is (or that it must be refused)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tier: Tier
    task: str = Field(min_length=1, max_length=500)
    scenario: str = "default"
    steps: tuple[ExpectedStep, ...] | None = Field(default=None, description="the exact plan expected")
    goal: tuple[PredicateText, ...] = ()
    calls: tuple[str, ...] = Field(default=(), description="labels that must appear in order, e.g. tap(red_cube)")
    objects: tuple[str, ...] | None = Field(default=None, description="ids the plan may touch (None: not checked)")
    refuse: RefusalKind | None = Field(default=None, description="must_refuse only: the refusal kind expected")

    @model_validator(mode="after")
    def _fits_tier(self) -> EvalTask:
        """A must-refuse task states no plan; a plannable one states what its plan must do."""
        states_plan = self.steps is not None or self.goal or self.calls
        if self.tier == "must_refuse" and states_plan:
            raise ValueError("a must_refuse task takes no steps, goal or calls")
        if self.tier != "must_refuse" and self.refuse is not None:
            raise ValueError(f"refuse is for must_refuse tasks, not {self.tier}")
        if self.tier != "must_refuse" and not states_plan:
            raise ValueError("a plannable task needs steps, goal or calls")
        if self.steps == ():
            raise ValueError("steps must list at least one step")
        return self


class EvalFile(BaseModel):
    """The whole eval file; the ``default`` scenario (the world as given) is always there."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scenarios: dict[str, Scenario] = Field(default_factory=lambda: {"default": Scenario()})
    tasks: tuple[EvalTask, ...] = Field(min_length=1)

    @field_validator("scenarios")
    @classmethod
    def _with_default(cls, value: dict[str, Scenario]) -> dict[str, Scenario]:
        return {"default": Scenario(), **value}


class TaskScore(BaseModel):
    """How one planner did on one task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    tier: Tier
    success: bool = Field(description="exact plan, or (must_refuse) refused as expected")
    refused: bool = Field(description="the planner refused (PlannerRefused)")
    calls: int
    substituted: tuple[str, ...] = ()
    seconds: float
    why: str = ""
    wrong: bool = Field(default=False, description="a plan came back and it is not exact (or the task must be refused)")
    refused_plannable: bool = Field(default=False, description="a plannable task was refused or the planner erred")
    refusal_kind: RefusalKind | None = Field(default=None, description="the kind of the planner's refusal")
    wrong_kind: bool = Field(default=False, description="must_refuse: refused, but not with the kind expected")


class EvalFileError(ValueError):
    """An eval file that does not fit its robot: the message names the file and the field."""


def load_eval(path: Path, registry: SkillRegistry | None = None) -> EvalFile:
    """Read and validate an eval file; scenarios must exist, and (given a registry) steps must fit its skills."""
    data = load_model(path, EvalFile)
    for number, task in enumerate(data.tasks):
        if task.scenario not in data.scenarios:
            raise EvalFileError(f"{path}: tasks[{number}].scenario {task.scenario!r} is not a scenario of the file")
        if registry is not None:
            for index, step in enumerate(task.steps or ()):
                _check_step(step, registry, f"{path}: tasks[{number}].steps[{index}]")
    return data


def _check_step(step: ExpectedStep, registry: SkillRegistry, where: str) -> None:
    """An expected step names a skill of the robot, with arguments its schema knows and accepts."""
    try:
        manifest = registry.get(step.skill)
    except UnknownSkill as err:
        raise EvalFileError(f"{where}.skill: {err}") from None
    known = _properties(manifest)
    for name in step.args:
        if name not in known:
            raise EvalFileError(f"{where}.args.{name}: not a parameter of {step.skill} (it has {sorted(known)})")
    errors = argument_errors(manifest.parameters, step.args)
    if errors:
        path, reason = errors[0]
        raise EvalFileError(f"{where}.args ({path}): {reason}")


def _properties(manifest: SkillManifest) -> dict[str, dict[str, JsonValue]]:
    """The skill's parameter schemas by name (none for a prompt-only skill)."""
    properties = (manifest.parameters or {}).get("properties", {})
    return properties if isinstance(properties, dict) else {}


def execute(plan: Plan, registry: SkillRegistry, world: WorldState) -> tuple[SymbolicState, str]:
    """Run a plan symbolically; the final state and, if a step could not run, why."""
    state = SymbolicState(world)
    for number, call in enumerate(plan.steps, start=1):
        try:
            manifest = registry.get(call.skill)
        except UnknownSkill:
            return state, f"step {number}: unknown skill {call.skill}"
        goals = goal_predicates(manifest, call.args)
        if goals and all(state.holds(g) for g in goals):
            continue
        for predicate in bound_to_call(manifest.preconditions, manifest, call.args):
            if not state.holds(predicate):
                return state, f"step {number} {call.label()}: {predicate} does not hold"
        apply_step(state, manifest, call.args)
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


_NO_DEFAULT = object()


def _same(got: object, want: object) -> bool:
    """JSON equality where 1 == 1.0 but True is not 1 (a count is not a flag)."""
    if isinstance(got, bool) or isinstance(want, bool):
        return type(got) is type(want) and got == want
    if isinstance(got, int | float) and isinstance(want, int | float):
        return float(got) == float(want)
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(_same(got[k], want[k]) for k in got)
    return got == want


def step_mismatch(expected: ExpectedStep, call: SkillCall, registry: SkillRegistry) -> str:
    """Why a plan's call is not the expected step ("" when it is): skill, named args, others at their defaults."""
    if call.skill != expected.skill:
        return f"{call.skill} instead of {expected.skill}"
    try:
        known = _properties(registry.get(call.skill))
    except UnknownSkill:
        known = {}
    for name, want in expected.args.items():
        got = call.args.get(name, known.get(name, {}).get("default", _NO_DEFAULT))
        if got is _NO_DEFAULT:
            return f"{call.label()}: no {name} (expected {want!r})"
        if not _same(got, want):
            return f"{call.label()}: {name}={got!r}, expected {want!r}"
    for name, got in call.args.items():
        if name in expected.args:
            continue
        default = known.get(name, {}).get("default", _NO_DEFAULT)
        if default is _NO_DEFAULT or not _same(got, default):
            return f"{call.label()}: {name}={got!r} not asked for (no default, or not its default)"
    return ""


def plan_mismatch(expected: Sequence[ExpectedStep], plan: Plan, registry: SkillRegistry) -> str:
    """Why a plan is not exactly the expected steps ("" when it is)."""
    if len(plan.steps) != len(expected):
        labels = [call.label() for call in plan.steps]
        wanted = [SkillCall(skill=s.skill, args=s.args).label() for s in expected]
        return f"expected {len(expected)} steps {wanted}, got {len(plan.steps)} {labels}"
    for number, (step, call) in enumerate(zip(expected, plan.steps, strict=True), start=1):
        why = step_mismatch(step, call, registry)
        if why:
            return f"step {number}: {why}"
    return ""


def score(planner: Planner, task: EvalTask, world: WorldState, registry: SkillRegistry) -> TaskScore:
    """Plan one task from its scenario's world and judge the outcome: exact, wrong, or a refusal."""
    start = time.perf_counter()
    plan: Plan | None = None
    refusal: PlannerRefused | None = None
    why = ""
    try:
        plan = planner.plan(task.task, world)
    except PlannerRefused as err:
        refusal, why = err, str(err)
    except PlannerError as err:
        why = f"planner error: {err}"
    seconds = time.perf_counter() - start
    calls = len(plan.steps) if plan is not None else 0
    substituted: tuple[str, ...] = ()
    if plan is not None and task.objects is not None:
        substituted = tuple(sorted(_object_args(plan, world) - set(task.objects) - {"table"}))
    wrong_kind = False
    if task.tier == "must_refuse":
        if plan is not None:
            success, why = False, f"planned {[c.label() for c in plan.steps]} instead of refusing"
        elif task.refuse is not None and (refusal is None or refusal.kind != task.refuse):
            success, wrong_kind = False, True
            why = f"expected a refusal ({task.refuse.value}), got {why}"
        else:
            success = True
    elif plan is None:
        success = False
    else:
        why = _plan_problem(task, plan, world, registry)
        if not why and substituted:
            why = f"substituted {list(substituted)}"
        success = not why
    return TaskScore(
        task=task.task,
        tier=task.tier,
        success=success,
        refused=refusal is not None,
        calls=calls,
        substituted=substituted,
        seconds=seconds,
        why=why if not success else "",
        wrong=plan is not None and not success,
        refused_plannable=task.tier != "must_refuse" and plan is None,
        refusal_kind=refusal.kind if refusal is not None else None,
        wrong_kind=wrong_kind,
    )


def _plan_problem(task: EvalTask, plan: Plan, world: WorldState, registry: SkillRegistry) -> str:
    """Why a plan is not exact for a plannable task ("" when it is)."""
    if task.steps is not None:
        why = plan_mismatch(task.steps, plan, registry)
        if why:
            return why
    if not task.goal and not task.calls:
        return ""
    state, why = execute(plan, registry, world)
    unmet = [g for g in task.goal if not state.holds(parse_predicate(g))]
    labels = [call.label() for call in plan.steps]
    if not why and unmet:
        why = f"goal not met: {', '.join(unmet)}"
    if not why and not _in_order(task.calls, labels):
        why = f"expected calls {list(task.calls)} in order, got {labels}"
    return why


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
    """One tier's figures for one planner: rates (success, refused) and counts (the rest)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tier: Tier
    tasks: int
    success: float = Field(description="fraction exact (must_refuse: refused as expected)")
    refused: float = Field(description="fraction the planner refused")
    substituted: int
    mean_s: float
    exact: int = Field(default=0, description="tasks exact (must_refuse: refused as expected)")
    refused_plannable: int = Field(default=0, description="plannable tasks refused or failed by a planner error")
    wrong: int = Field(default=0, description="tasks given a plan that is not exact, or any plan when it must refuse")
    wrong_kind: int = Field(default=0, description="must_refuse tasks refused with another kind than expected")


def summarise(scores: Sequence[TaskScore]) -> list[TierSummary]:
    """Per-tier exact and refusal rates, wrong plans, substitutions and mean seconds per plan."""
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
                exact=sum(s.success for s in mine),
                refused_plannable=sum(s.refused_plannable for s in mine),
                wrong=sum(s.wrong for s in mine),
                wrong_kind=sum(s.wrong_kind for s in mine),
            )
        )
    return rows

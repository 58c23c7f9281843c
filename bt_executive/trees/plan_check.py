"""Checking a plan before anything moves: known skills, valid arguments, preconditions that can hold.

The plan is simulated symbolically: starting from the current world state,
each step's preconditions (bound to its arguments) must hold in the state
its predecessors' effects leave, and then its effects are applied; a step
whose goal effects already hold is skipped, as its PPA node will skip it. A step
that could never start (``pour`` needs ``holding(cube)`` but nothing grasped
it) is reported with its number and the predicate, and the plan is refused
before the first goal is sent; the planner is asked again instead. A step
that asks an object for an affordance it lacks (``pick(table)``: the table is
not graspable) is a ``not_afforded`` problem: no other step can make a table
graspable, so a planner that insists on it has its plan refused
(``PlannerRefused``, kind ``not_afforded``), not failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from bt_executive.llm.plan import Plan, PlannerError, PlannerRefused, RefusalKind
from bt_executive.skills.affordances import AFFORDANCE_NAMES
from bt_executive.skills.conditions import SymbolicState, apply_step, bind_held, bound_to_call, goal_predicates
from bt_executive.skills.parameters import argument_errors
from bt_executive.skills.predicates import Predicate
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.skills.world_state import WorldState

NOT_AFFORDED = "not_afforded"
"""The problem kind of a step that asks an object for an affordance it lacks (pick(table))."""
MISSING_HARDWARE = "missing_hardware"
"""The problem kind of a step that chooses hardware the robot lacks (take_photo(camera=wrist), no wrist camera)."""


class PlanProblem(BaseModel):
    """One reason a plan cannot run: which step (1-based), which skill, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    skill: str
    kind: str  # unknown_skill | invalid_args | missing_hardware | precondition | not_afforded
    message: str

    def __str__(self) -> str:
        return f"step {self.step} {self.skill}: {self.message}"


class PlanRefused(PlannerError):
    """A plan failed its check before execution; ``problems`` says where and why."""

    def __init__(self, problems: list[PlanProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("plan refused before execution: " + "; ".join(str(p) for p in problems))


def check_plan(
    plan: Plan, registry: SkillRegistry, world: WorldState, *, last_held: str | None = None
) -> list[PlanProblem]:
    """Every problem that would stop ``plan`` from running from ``world``, in step order.

    ``last_held``: the object the task last held (what ``held`` names while the
    gripper is empty), as the run-time ``Done?`` check binds it.
    """
    problems: list[PlanProblem] = []
    state = SymbolicState(world)
    for number, call in enumerate(plan.steps, start=1):
        try:
            manifest = registry.get(call.skill)
        except UnknownSkill as err:
            problems.append(PlanProblem(step=number, skill=call.skill, kind="unknown_skill", message=str(err)))
            continue
        errors = argument_errors(manifest.parameters, call.args)
        if errors:
            listed = "; ".join(f"{path}: {reason}" for path, reason in errors)
            problems.append(PlanProblem(step=number, skill=call.skill, kind="invalid_args", message=listed))
            continue
        robot = registry.robot
        if robot is not None and (why := robot.unsupported_choice(call.args)) is not None:
            problems.append(PlanProblem(step=number, skill=call.skill, kind=MISSING_HARDWARE, message=why))
            continue
        last_held = state.held or last_held
        held = last_held  # what ``held`` names in this step's effects: what the gripper holds (or last held)
        goals = [bind_held(g, held) for g in goal_predicates(manifest, call.args)]
        if goals and all(g is not None and state.holds(g) for g in goals):
            continue  # already achieved: the PPA node skips it at run time too
        for predicate in bound_to_call(manifest.preconditions, manifest, call.args):
            if not state.holds(predicate):
                problems.append(_precondition_problem(number, call.skill, predicate, world))
                break
        apply_step(state, manifest, call.args, held)
    return problems


def _precondition_problem(number: int, skill: str, predicate: Predicate, world: WorldState) -> PlanProblem:
    """A failed precondition; an affordance an existing object lacks is ``not_afforded`` (no step can fix it)."""
    target = predicate.args[0] if predicate.args else ""
    exists = world.object(target) is not None or target in world.drawers
    if predicate.name in AFFORDANCE_NAMES and not predicate.negated and exists:
        obj = world.object(target)
        has = sorted(obj.effective_affordances()) if obj is not None else ["openable", "container"]
        message = (
            f"{target} does not afford {predicate.name}: {skill} needs {predicate}"
            f" ({target} affords {', '.join(has) or 'nothing'})"
        )
        return PlanProblem(step=number, skill=skill, kind=NOT_AFFORDED, message=message)
    message = f"precondition {predicate} cannot hold here"
    if number > 1:
        message += " after the steps before it"
    return PlanProblem(step=number, skill=skill, kind="precondition", message=message)


def refusal_for(problems: Sequence[PlanProblem]) -> PlannerRefused | None:
    """A plan asking an object for what it does not afford (``not_afforded``), or the robot for hardware it
    lacks (``missing_skill``), is a refusal, not an error: no replan can mend either."""
    unafforded = [p for p in problems if p.kind == NOT_AFFORDED]
    if unafforded:
        return PlannerRefused("; ".join(str(p) for p in unafforded), RefusalKind.NOT_AFFORDED)
    lacking = [p for p in problems if p.kind == MISSING_HARDWARE]
    if lacking:
        return PlannerRefused("; ".join(str(p) for p in lacking), RefusalKind.MISSING_SKILL)
    return None


def require_runnable(plan: Plan, registry: SkillRegistry, world: WorldState) -> Plan:
    """Return ``plan`` if it passes ``check_plan``; else raise PlannerRefused (not_afforded) or PlanRefused."""
    problems = check_plan(plan, registry, world)
    refusal = refusal_for(problems)
    if refusal is not None:
        raise refusal
    if problems:
        raise PlanRefused(problems)
    return plan

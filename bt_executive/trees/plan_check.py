"""Checking a plan before anything moves: known skills, valid arguments, preconditions that can hold.

The plan is simulated symbolically: starting from the current world state,
each step's preconditions (bound to its arguments) must hold in the state
its predecessors' effects leave, and then its effects are applied; a step
whose goal effects already hold is skipped, as its PPA node will skip it. A step
that could never start (``pour`` needs ``holding(cube)`` but nothing grasped
it) is reported with its number and the predicate, and the plan is refused
before the first goal is sent; the planner is asked again instead.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from bt_executive.llm.plan import Plan, PlannerError
from bt_executive.skills.conditions import SymbolicState, bind, goal_effects
from bt_executive.skills.parameters import argument_errors
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.skills.world_state import WorldState


class PlanProblem(BaseModel):
    """One reason a plan cannot run: which step (1-based), which skill, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    skill: str
    kind: str  # unknown_skill | invalid_args | precondition
    message: str

    def __str__(self) -> str:
        return f"step {self.step} {self.skill}: {self.message}"


class PlanRefused(PlannerError):
    """A plan failed its check before execution; ``problems`` says where and why."""

    def __init__(self, problems: list[PlanProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("plan refused before execution: " + "; ".join(str(p) for p in problems))


def check_plan(plan: Plan, registry: SkillRegistry, world: WorldState) -> list[PlanProblem]:
    """Every problem that would stop ``plan`` from running from ``world``, in step order."""
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
        goals = [bind(e, call.args) for e in goal_effects(manifest.effects, call.args)]
        if goals and all(state.holds(g) for g in goals):
            continue  # already achieved: the PPA node skips it at run time too
        for text in manifest.preconditions:
            predicate = bind(text, call.args)
            if not state.holds(predicate):
                message = f"precondition {predicate} cannot hold here"
                if number > 1:
                    message += " after the steps before it"
                problems.append(PlanProblem(step=number, skill=call.skill, kind="precondition", message=message))
                break
        for text in manifest.effects:
            state.apply(bind(text, call.args))
    return problems


def require_runnable(plan: Plan, registry: SkillRegistry, world: WorldState) -> Plan:
    """Return ``plan`` if it passes ``check_plan``, else raise PlanRefused listing the problems."""
    problems = check_plan(plan, registry, world)
    if problems:
        raise PlanRefused(problems)
    return plan

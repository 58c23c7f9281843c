"""The planner eval gate: `auto`'s deterministic path on tests/golden/planner_tasks.yaml, tier by tier.

Thresholds are the issue's: every grammar task, >= 90% of paraphrases, >= 80% of quantified/multi-step
and of implicit-precondition tasks, every must-refuse task refused with no call compiled, and no
substituted object anywhere. The eval runs without a model (no fallback), so a task only the model could
plan counts as a failure here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bt_executive.llm.eval.planner_eval import EvalFile, Scenario, TaskScore, load_eval, run_eval, score, summarise
from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.sim.backend import SimBackend
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

EVAL = Path(__file__).parents[1] / "golden" / "planner_tasks.yaml"
THRESHOLDS = {"grammar": 1.0, "paraphrase": 0.9, "quantified": 0.8, "implicit_precondition": 0.8, "must_refuse": 1.0}


@pytest.fixture(scope="module")
def world() -> Iterator[WorldState]:
    """The shipped tabletop scene's world state (layout seed 0), read from the real sim."""
    backend = SimBackend.from_files(seed=0)
    yield backend.world_state()
    backend.close()


@pytest.fixture(scope="module")
def tasks() -> EvalFile:
    return load_eval(EVAL)


@pytest.fixture(scope="module")
def auto_scores(tasks: EvalFile, world: WorldState, skill_registry: SkillRegistry) -> list[TaskScore]:
    return run_eval(AutoPlanner(skill_registry), tasks.tasks, tasks.scenarios, world, skill_registry)


def test_the_eval_has_at_least_80_tasks_in_every_tier(tasks: EvalFile) -> None:
    assert len(tasks.tasks) >= 80
    assert {t.tier for t in tasks.tasks} == set(THRESHOLDS)


@pytest.mark.parametrize("tier", sorted(THRESHOLDS))
def test_auto_meets_the_tier_threshold(tier: str, auto_scores: list[TaskScore]) -> None:
    row = next(r for r in summarise(auto_scores) if r.tier == tier)
    failures = [f"{s.task!r}: {s.why}" for s in auto_scores if s.tier == tier and not s.success]
    assert row.success >= THRESHOLDS[tier], "\n".join(failures)


def test_auto_refuses_every_must_refuse_task_with_no_call_compiled(auto_scores: list[TaskScore]) -> None:
    refusals = [s for s in auto_scores if s.tier == "must_refuse"]
    assert all(s.refused and s.calls == 0 for s in refusals), [s.task for s in refusals if not s.refused]


def test_no_planner_substitutes_an_object(
    tasks: EvalFile, world: WorldState, skill_registry: SkillRegistry, auto_scores: list[TaskScore]
) -> None:
    stub = run_eval(GrammarPlanner(skill_registry), tasks.tasks, tasks.scenarios, world, skill_registry)
    assert [s.task for s in [*auto_scores, *stub] if s.substituted] == []


def test_a_plan_that_misses_the_goal_fails_its_task(world: WorldState, skill_registry: SkillRegistry) -> None:
    """The scorer can fail: a task whose expected goal the plan does not reach is scored a failure."""
    from bt_executive.llm.eval.planner_eval import EvalTask

    wrong = EvalTask(tier="grammar", task="put the red cube on the plate", goal=("in(red_cube, bowl)",))
    assert not score(AutoPlanner(skill_registry), wrong, Scenario().apply(world), skill_registry).success


def test_a_plan_whose_step_cannot_run_fails_its_task(world: WorldState, skill_registry: SkillRegistry) -> None:
    """A plan is executed step by step: the stub's plan from a world where the gripper is full fails here."""
    from bt_executive.llm.eval.planner_eval import execute
    from bt_executive.llm.plan import Plan
    from bt_executive.skills.call import SkillCall

    plan = Plan(steps=(SkillCall(skill="tabletop/place_on", args={"target": "plate"}),))
    _, why = execute(plan, skill_registry, world)
    assert "not gripper_empty does not hold" in why

"""Rewrite mode against the real local model: SmolLM2-135M restates, the grammar planner plans.

The model's words vary with its prompt cache, so these check what the mode
guarantees, not which plan comes out: every reply is a sentence of the
robot's language (llama.cpp held it to the GBNF grammar, which it accepted),
every plan is faithful to the original task, and a restatement that changes
the task is refused ``unfaithful``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.llm.eval.eval_robots import EvalRobot, load_robot
from bt_executive.llm.language.task_grammar import TaskNotUnderstood, parse_task
from bt_executive.llm.model.faithfulness import check_faithful
from bt_executive.llm.model.rewrite_grammar import RewriteGrammar
from bt_executive.llm.model.rewrite_planner import RewritePlanner
from bt_executive.llm.plan import PlannerRefused, RefusalKind
from bt_executive.llm.profiles import LLMProfile, load_llm_config

pytestmark = pytest.mark.slow

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UNPARSED = (
    "i reckon the blue block belongs on the dish",
    "shove the crimson block leftwards a touch por favor",
    "swap the red and green cubes",
)
"""Tasks the task grammar cannot parse (checked below): what ``auto`` hands its model."""


@pytest.fixture(scope="module")
def tabletop() -> EvalRobot:
    """The tabletop eval robot: its skills and frozen world."""
    return load_robot(GOLDEN / "robots" / "tabletop", tuned=GOLDEN / "planner_tasks.yaml")


def _planner(api_base: str, robot: EvalRobot) -> RewritePlanner:
    shipped = load_llm_config().profile("local-rewrite")
    profile = LLMProfile.model_validate({**shipped.model_dump(), "api_base": api_base, "local_server": None})
    return RewritePlanner(profile, robot.registry)


def test_unparsed_tasks_come_back_as_rewrites_in_the_robots_language_and_faithful_plans(
    local_llm: str, tabletop: EvalRobot
) -> None:
    planner = _planner(local_llm, tabletop)
    phrases = {p for m in tabletop.registry for p in m.language.phrases}
    planned = 0
    for task in UNPARSED:
        with pytest.raises(TaskNotUnderstood):
            parse_task(task, phrases)
        try:
            plan = planner.plan(task, tabletop.world)
        except PlannerRefused:
            plan = None
        assert planner.last_rewrites, task
        for rewrite in planner.last_rewrites:
            parse_task(rewrite, phrases)  # every reply is in the language: TaskNotUnderstood otherwise
        if plan is not None:
            planned += 1
            assert check_faithful(plan, task, tabletop.world, tabletop.registry).faithful
    assert planned >= 1


def test_a_rewrite_that_changes_the_task_is_refused_unfaithful(local_llm: str, tabletop: EvalRobot) -> None:
    planner = _planner(local_llm, tabletop)
    # The real model under a grammar that allows only another cube: its restatement must change the task.
    changed = RewriteGrammar({"root": (("push the blue cube left",),)})
    planner.grammar = lambda world_state, task="": changed  # type: ignore[method-assign]
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("shove the crimson block leftwards", tabletop.world)
    assert refused.value.kind is RefusalKind.UNFAITHFUL
    assert planner.last_rewrites[0] == "push the blue cube left"

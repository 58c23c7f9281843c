"""The rewrite model's prompt carries the grammar's partial parse (issue 20, item 3).

A small model copies better than it composes: the clauses the grammar already
reads go to it as commands of the robot's language, to keep, and the clauses
it does not read as what is left to restate. No model is asked here: the prompt
is built from the grammar alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.llm.eval.eval_robots import EvalRobot, load_robot
from bt_executive.llm.model.rewrite_planner import RewritePlanner, partial_parse
from bt_executive.llm.model.task_reading import read_task
from bt_executive.llm.profiles import LLMProfile, load_llm_config

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.fixture(scope="module")
def tabletop() -> EvalRobot:
    """The tabletop eval robot: its skills and frozen world."""
    return load_robot(GOLDEN / "robots" / "tabletop", tuned=GOLDEN / "planner_tasks.yaml")


@pytest.fixture(scope="module")
def planner(tabletop: EvalRobot) -> RewritePlanner:
    shipped = load_llm_config().profile("local-rewrite")
    # Nothing listens here: building the prompt must not ask the model.
    profile = LLMProfile.model_validate(
        {**shipped.model_dump(), "api_base": "http://127.0.0.1:9", "local_server": None}
    )
    return RewritePlanner(profile, tabletop.registry, search=False)


def _user_turn(planner: RewritePlanner, task: str, robot: EvalRobot) -> str:
    messages = planner.messages(task, robot.world)
    assert [m["role"] for m in messages] == ["system", "user"]
    return str(messages[1]["content"])


def test_the_clauses_the_grammar_reads_go_to_the_model_to_keep_and_the_rest_to_restate(
    planner: RewritePlanner, tabletop: EvalRobot
) -> None:
    task = "push the red cube left and then juggle the green cube"
    user = _user_turn(planner, task, tabletop)
    lines = user.splitlines()
    assert lines[0] == task
    kept = next(line for line in lines if line.startswith("(already commands: "))
    left = next(line for line in lines if line.startswith("(to rewrite: "))
    assert '"push the red cube left"' in kept
    assert "juggle" not in kept
    assert "juggle the green cube" in left
    assert "push the red cube" not in left


def test_a_task_the_grammar_reads_none_of_is_sent_alone_with_its_objects(
    planner: RewritePlanner, tabletop: EvalRobot
) -> None:
    task = "juggle the green cube for a while"
    user = _user_turn(planner, task, tabletop)
    assert user.startswith(task + "\n(objects: ")
    assert "already commands" not in user
    assert "to rewrite" not in user
    assert partial_parse(read_task(task, tabletop.world, tabletop.registry)) == []


def test_the_reading_passed_in_is_the_one_the_prompt_uses(planner: RewritePlanner, tabletop: EvalRobot) -> None:
    task = "push the red cube left and then juggle the green cube"
    reading = read_task(task, tabletop.world, tabletop.registry)
    given = planner.messages(task, tabletop.world, reading=reading)
    assert given == planner.messages(task, tabletop.world)
    assert all(f"({line})" in str(given[1]["content"]) for line in partial_parse(reading))

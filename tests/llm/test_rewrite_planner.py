"""Rewrite mode against the real local model: SmolLM2-135M restates, the grammar planner plans.

The model's words vary with its prompt cache, so these check what the mode
guarantees, not which plan comes out: every reply is a sentence of the
robot's language (llama.cpp held it to the GBNF grammar, which it accepted),
every plan is faithful to the original task, and a restatement that changes
the task is refused ``unfaithful``.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any

import pytest

from bt_executive.llm.eval.eval_robots import EvalRobot, load_robot
from bt_executive.llm.language.task_grammar import TaskNotUnderstood, parse_task
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.llm.model.faithfulness import check_faithful
from bt_executive.llm.model.rewrite_grammar import RewriteGrammar
from bt_executive.llm.model.rewrite_planner import RewritePlanner
from bt_executive.llm.plan import PlannerRefused, RefusalKind
from bt_executive.llm.profiles import LLMProfile, load_llm_config
from bt_executive.llm.serving.llama_http import LlamaHttpError, chat_url, post_json

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


def _planner(api_base: str, robot: EvalRobot, *, search: bool = True) -> RewritePlanner:
    shipped = load_llm_config().profile("local-rewrite")
    profile = LLMProfile.model_validate({**shipped.model_dump(), "api_base": api_base, "local_server": None})
    return RewritePlanner(profile, robot.registry, search=search)


def test_unparsed_tasks_come_back_as_rewrites_in_the_robots_language_and_faithful_plans(
    local_llm: str, tabletop: EvalRobot
) -> None:
    planner = _planner(local_llm, tabletop, search=False)  # the model restates each (no search settles one)
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
    planner = _planner(local_llm, tabletop, search=False)
    # The real model under a grammar that allows only another cube: its restatement must change the task.
    changed = RewriteGrammar({"root": (("push the blue cube left",),)})
    planner.grammar = lambda world_state, task="", **_: changed  # type: ignore[method-assign]
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("shove the crimson block leftwards", tabletop.world)
    assert refused.value.kind is RefusalKind.UNFAITHFUL
    assert planner.last_rewrites[0] == "push the blue cube left"


def test_a_task_asking_only_for_what_no_skill_does_is_refused_before_the_model_is_asked(local_llm: str) -> None:
    inspection = load_robot(GOLDEN / "robots" / "inspection")  # a camera on a base: nothing closes anything
    planner = _planner(local_llm, inspection)
    assert not planner.grammar(inspection.world, "close the yellow valve").says_anything
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("close the yellow valve", inspection.world)
    assert (refused.value.kind, planner.last_rewrites) == (RefusalKind.MISSING_SKILL, ())
    assert planner.last_trace is not None
    assert planner.last_trace.requests == ()


SAMPLED = 12


@pytest.mark.parametrize("robot_name", ["tabletop", "home", "inspection"])
def test_llama_cpp_accepts_the_narrowed_grammar_of_every_task_the_model_is_handed(
    local_llm: str, robot_name: str
) -> None:
    """The GBNF narrowed to what a task names is one llama.cpp parses (an HTTP 400 would be a planner error,
    not a refusal), or, with no command left, none is sent. The first ``SAMPLED`` such tasks a robot: building
    each narrowed grammar costs a few hundred milliseconds."""
    tuned = GOLDEN / "planner_tasks.yaml" if robot_name == "tabletop" else None
    robot = load_robot(GOLDEN / "robots" / robot_name, tuned=tuned)
    planner, auto = _planner(local_llm, robot), AutoPlanner(robot.registry)
    rejected: list[tuple[str, str]] = []
    silent: list[str] = []
    sent = 0
    for split in ("tuned", "blind"):
        data = robot.split(split)
        assert data is not None
        for task in data.tasks:
            world = data.scenarios[task.scenario].apply(robot.world)
            if sent + len(silent) >= SAMPLED or not auto.asks_model(task.task, world):
                continue
            grammar = planner.grammar(world, task.task)
            if not grammar.says_anything:
                silent.append(task.task)
                continue
            body = {"messages": [{"role": "user", "content": "go"}], "grammar": grammar.gbnf(), "max_tokens": 1}
            sent += 1
            try:
                post_json(chat_url(local_llm), body, 60.0)
            except LlamaHttpError as err:
                rejected.append((task.task, str(err)[:120]))
    assert (rejected, sent > 0) == ([], True)


def test_each_task_gets_the_grammar_narrowed_to_it_not_one_cached_for_another(local_llm: str) -> None:
    tabletop = load_robot(GOLDEN / "robots" / "tabletop", tuned=GOLDEN / "planner_tasks.yaml")
    planner = _planner(local_llm, tabletop)
    # the same objects, actions, directions and amounts: "go home" tells the two apart, and takes a command
    plain = planner.grammar(tabletop.world, "tap the red cube")
    homing = planner.grammar(tabletop.world, "tap the red cube, then go home")
    assert (("go home",) in plain.rules["clause"], ("go home",) in homing.rules["clause"]) == (False, True)
    assert (len(plain.rules["root"]), len(homing.rules["root"])) == (1, 2)


def test_a_task_whose_language_is_too_large_to_search_is_restated_by_the_model(
    local_llm: str, tabletop: EvalRobot
) -> None:
    planner = _planner(local_llm, tabletop)
    task = "push the red cube, the green cube and the blue cube about a bit then tap them"  # too many chains to search
    assert not planner.search(task, tabletop.world).complete
    try:
        plan = planner.plan(task, tabletop.world)
    except PlannerRefused:
        plan = None
    assert planner.last_trace is not None
    assert len(planner.last_trace.requests) >= 1  # the model was asked
    assert planner.last_rewrites
    if plan is not None:
        assert check_faithful(plan, task, tabletop.world, tabletop.registry).faithful


def test_the_first_restatement_is_asked_while_the_search_still_runs(local_llm: str, tabletop: EvalRobot) -> None:
    threads: list[str] = []

    class Watched(RewritePlanner):
        def _complete(self, messages: Any, grammar: str, *, max_tokens: int | None = None) -> tuple[str, int, int]:
            threads.append(threading.current_thread().name)
            return super()._complete(messages, grammar, max_tokens=max_tokens)

    shipped = load_llm_config().profile("local-rewrite")
    profile = LLMProfile.model_validate({**shipped.model_dump(), "api_base": local_llm, "local_server": None})
    planner = Watched(profile, tabletop.registry)
    task = "push the red cube, the green cube and the blue cube about a bit then tap them"  # past the search's bound
    with contextlib.suppress(PlannerRefused):
        planner.plan(task, tabletop.world)
    assert threads
    # the repair too is asked beside the search, as soon as the first restatement is found unfaithful
    assert set(threads) == {"rewrite-ahead"}
    assert planner.last_trace is not None
    assert len(planner.last_trace.requests) == len(threads)
    threads.clear()
    planner.plan("put the red cube on the plate", tabletop.world)  # settled by the search: no request at all
    assert threads == []


def test_a_dialogue_the_search_made_needless_sends_no_repair(local_llm: str, tabletop: EvalRobot) -> None:
    planner = _planner(local_llm, tabletop)
    task = "push the red cube, the green cube and the blue cube about a bit then tap them"
    messages = planner.messages(task, tabletop.world)
    grammar = planner.grammar(tabletop.world, task).gbnf()
    cancelled = threading.Event()
    asked = planner._converse(task, tabletop.world, (), messages, grammar, threading.Event())
    cancelled.set()
    told_to_stop = planner._converse(task, tabletop.world, (), messages, grammar, cancelled)
    assert asked.plan is None  # the 135M model's first restatement of this task leaves out a cube ...
    assert len(asked.records) == 2  # ... so a repair is asked ...
    assert len(told_to_stop.records) == 1  # ... but never once the search has settled the task
    assert (len(told_to_stop.rewrites), told_to_stop.refusal is not None) == (1, True)

"""The eval robots (tests/golden/robots) and the scoring rules that judge plans exact, wrong or refused.

Every robot folder with files loads (a bad skill id, scenario or argument is a load error). The gate runs
`auto` without a model (AutoPlanner(registry), no fallback) over each robot's TUNED tiers: no wrong plan, and
every must-refuse task refused (with the kind it names). The exact-rate thresholds are named below; the new
robots' now hold too; the home robot's must-refuse kinds are expected to fail (xfail, not strict). The scoring rules are
specified with a planner written here that returns whatever the test gives it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from bt_executive.llm.eval.eval_robots import EvalRobot, evaluate, expected_plan_problems, load_robot
from bt_executive.llm.eval.planner_eval import EvalFileError, EvalTask, ExpectedStep, TaskScore, score, summarise
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.llm.plan import Plan, PlannerError, PlannerRefused, RefusalKind
from bt_executive.runtime.paths import config_dir
from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState

GOLDEN = Path(__file__).parents[1] / "golden"
ROBOTS_DIR = GOLDEN / "robots"
TUNED = {"tabletop": GOLDEN / "planner_tasks.yaml"}
"""The tabletop's tuned tiers stay where the tabletop-only eval kept them."""
ROBOTS = sorted(d.name for d in ROBOTS_DIR.iterdir() if (d / "robot.yaml").is_file())
NEW_ROBOTS = ("home", "inspection")
OUTSIDE_ROBOTS = ("lab", "warehouse")
"""Robots an outsider wrote (manifests, world and tasks, from the manifests alone): the wrong-plan and refusal
gates hold for them, the exact rate is measured (benchmarks/planner_quality.py), not a gate; their tasks are
their only split, written before the planner read them."""

EXACT_MIN_TABLETOP = 0.95
EXACT_MIN = 0.85
"""The exact rate a new robot's tuned plannable tiers must reach."""
MIN_TASKS = 60
MIN_REFUSALS = 12
PENDING_KINDS = pytest.mark.xfail(
    strict=False,
    reason="no plan comes back for any must-refuse task (the wrong-plan gate holds that), but one is refused with "
    "another kind: 'light the candles on the table' as missing_skill (no skill lights anything), not "
    "no_such_object (no candles here); both are true, and the grammar reports the verb it cannot serve first",
)


def _robot(name: str) -> EvalRobot:
    return load_robot(ROBOTS_DIR / name, tuned=TUNED.get(name))


@pytest.fixture(scope="module")
def robots() -> dict[str, EvalRobot]:
    return {name: _robot(name) for name in ROBOTS}


@pytest.fixture(scope="module")
def auto_scores(robots: dict[str, EvalRobot]) -> dict[str, list[TaskScore]]:
    return {name: evaluate(AutoPlanner(robot.registry), robot, "tuned") for name, robot in robots.items()}


# -- the golden files --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ROBOTS)
def test_every_robot_folder_loads(name: str) -> None:
    assert _robot(name).name == name


def test_a_robot_that_states_its_hardware_offers_only_the_skills_it_can_run(robots: dict[str, EvalRobot]) -> None:
    # The inspection robot has a base and a pan-tilt front camera: inspect_object needs an arm and a wrist camera.
    offered = set(robots["inspection"].registry.ids())
    assert ("inspect/inspect_object" in offered, "inspect/read_gauge" in offered) == (False, True)


@pytest.mark.parametrize("name", ROBOTS)
def test_every_expected_plan_runs_symbolically_from_its_scenario(name: str, robots: dict[str, EvalRobot]) -> None:
    assert expected_plan_problems(robots[name]) == []


@pytest.mark.parametrize("name", NEW_ROBOTS)
def test_a_new_robot_has_enough_tuned_tasks(name: str, robots: dict[str, EvalRobot]) -> None:
    assert len(robots[name].tuned.tasks) >= MIN_TASKS


@pytest.mark.parametrize("name", NEW_ROBOTS)
def test_a_new_robot_has_enough_must_refuse_tasks(name: str, robots: dict[str, EvalRobot]) -> None:
    assert sum(t.tier == "must_refuse" for t in robots[name].tuned.tasks) >= MIN_REFUSALS


# -- the gate: auto without a model, tuned tiers -------------------------------------------------------------


@pytest.mark.parametrize("name", ROBOTS)
def test_auto_makes_no_wrong_plan_on_the_tuned_tiers(name: str, auto_scores: dict[str, list[TaskScore]]) -> None:
    wrong = [f"{s.task!r}: {s.why}" for s in auto_scores[name] if s.wrong]
    assert wrong == [], "\n".join(wrong)


BLIND_ROBOTS = [n for n in ROBOTS if (ROBOTS_DIR / n / "blind.yaml").is_file()]


@pytest.mark.parametrize("name", BLIND_ROBOTS)
def test_auto_makes_no_wrong_plan_on_the_blind_split(name: str, robots: dict[str, EvalRobot]) -> None:
    # Written by people who never read the grammar: whatever it cannot read yet, it refuses; it never misplans.
    scores = evaluate(AutoPlanner(robots[name].registry), robots[name], "blind")
    assert len(scores) >= 40
    wrong = [f"{s.task!r}: {s.why}" for s in scores if s.wrong]
    assert wrong == [], "\n".join(wrong)


def test_every_robot_has_a_blind_split() -> None:
    assert [n for n in ROBOTS if n not in OUTSIDE_ROBOTS] == BLIND_ROBOTS


PENDING_KINDS_LAB = pytest.mark.xfail(
    strict=False,
    reason="no plan comes back for any must-refuse task, but one is refused with another kind: 'read the absorbance "
    "of mp3 at 450 nm' as no_such_object (the phrase names no object), not missing_skill (no skill reads "
    "absorbance); the grammar reads 'read' as the barcode scan's verb and refuses the phrase it cannot ground",
)
PENDING = {"home": PENDING_KINDS, "lab": PENDING_KINDS_LAB}


@pytest.mark.parametrize("name", [pytest.param(n, marks=PENDING.get(n, ())) for n in ROBOTS])
def test_auto_refuses_every_must_refuse_task(name: str, auto_scores: dict[str, list[TaskScore]]) -> None:
    failed = [f"{s.task!r}: {s.why}" for s in auto_scores[name] if s.tier == "must_refuse" and not s.success]
    assert failed == [], "\n".join(failed)


@pytest.mark.parametrize(
    ("name", "minimum"),
    [
        pytest.param(name, EXACT_MIN_TABLETOP if name == "tabletop" else EXACT_MIN)
        for name in ROBOTS
        if name not in OUTSIDE_ROBOTS
    ],
)
def test_auto_meets_the_exact_rate_on_the_tuned_plannable_tiers(
    name: str, minimum: float, auto_scores: dict[str, list[TaskScore]]
) -> None:
    plannable = [s for s in auto_scores[name] if s.tier != "must_refuse"]
    misses = [f"{s.task!r}: {s.why}" for s in plannable if not s.success]
    assert sum(s.success for s in plannable) / len(plannable) >= minimum, "\n".join(misses)


# -- the scoring rules, with a planner that answers what it is told -----------------------------------------


class _Scripted:
    """A planner whose answer the test sets: a plan, or an exception to raise."""

    name = "scripted"

    def __init__(self, answer: Plan | PlannerError) -> None:
        self.answer = answer

    def plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord] = ()) -> Plan:
        """The scripted answer, whatever the task."""
        if isinstance(self.answer, PlannerError):
            raise self.answer
        return self.answer


@pytest.fixture(scope="module")
def cleaning() -> SkillRegistry:
    return SkillRegistry.discover([config_dir() / "catalog" / "cleaning"], use_entry_points=False)


WORLD = WorldState(objects=(ObjectState(id="kitchen_table", category="table", position=(1.0, 0.0, 0.4)),))
WIPE = EvalTask(
    tier="grammar",
    task="wipe the kitchen table",
    steps=(ExpectedStep(skill="cleaning/wipe_table", args={"surface": "kitchen_table"}),),
)
REFUSE = EvalTask(tier="must_refuse", task="open the door", refuse=RefusalKind.AMBIGUOUS)


def _wipe(**args: object) -> Plan:
    return Plan(steps=(SkillCall(skill="cleaning/wipe_table", args={"surface": "kitchen_table", **args}),))


def test_a_plan_with_the_expected_steps_and_defaults_is_exact(cleaning: SkillRegistry) -> None:
    result = score(_Scripted(_wipe(passes=1)), WIPE, WORLD, cleaning)
    assert (result.success, result.wrong) == (True, False)


def test_an_expected_argument_at_its_default_may_be_left_out_of_the_plan(cleaning: SkillRegistry) -> None:
    task = WIPE.model_copy(
        update={"steps": (ExpectedStep(skill="cleaning/wipe_table", args={"surface": "kitchen_table", "passes": 1}),)}
    )
    assert score(_Scripted(_wipe()), task, WORLD, cleaning).success


def test_an_extra_argument_that_is_not_its_default_makes_the_plan_wrong(cleaning: SkillRegistry) -> None:
    result = score(_Scripted(_wipe(passes=3)), WIPE, WORLD, cleaning)
    assert (result.success, result.wrong) == (False, True)


def test_an_extra_step_makes_the_plan_wrong(cleaning: SkillRegistry) -> None:
    plan = Plan(steps=(*_wipe().steps, *_wipe().steps))
    assert score(_Scripted(plan), WIPE, WORLD, cleaning).wrong


def test_a_refused_plannable_task_is_counted_apart_not_wrong(cleaning: SkillRegistry) -> None:
    result = score(_Scripted(PlannerRefused("no", RefusalKind.OUT_OF_SCOPE)), WIPE, WORLD, cleaning)
    assert (result.success, result.wrong, result.refused_plannable) == (False, False, True)


def test_a_planner_error_on_a_plannable_task_is_a_refusal_of_it(cleaning: SkillRegistry) -> None:
    result = score(_Scripted(PlannerError("cannot parse")), WIPE, WORLD, cleaning)
    assert (result.wrong, result.refused_plannable) == (False, True)


def test_a_must_refuse_task_refused_with_the_expected_kind_passes(cleaning: SkillRegistry) -> None:
    result = score(_Scripted(PlannerRefused("two doors", RefusalKind.AMBIGUOUS)), REFUSE, WORLD, cleaning)
    assert (result.success, result.refusal_kind) == (True, RefusalKind.AMBIGUOUS)


def test_a_must_refuse_task_refused_with_another_kind_fails_without_being_wrong(cleaning: SkillRegistry) -> None:
    result = score(_Scripted(PlannerRefused("no door", RefusalKind.NO_SUCH_OBJECT)), REFUSE, WORLD, cleaning)
    assert (result.success, result.wrong, result.wrong_kind) == (False, False, True)


def test_any_plan_for_a_must_refuse_task_is_wrong(cleaning: SkillRegistry) -> None:
    result = score(_Scripted(_wipe()), REFUSE, WORLD, cleaning)
    assert (result.success, result.wrong) == (False, True)


def test_the_tier_summary_counts_exact_wrong_and_refused_plannable(cleaning: SkillRegistry) -> None:
    scores = [
        score(_Scripted(_wipe()), WIPE, WORLD, cleaning),
        score(_Scripted(_wipe(passes=2)), WIPE, WORLD, cleaning),
        score(_Scripted(PlannerRefused("no")), WIPE, WORLD, cleaning),
    ]
    (row,) = summarise(scores)
    assert (row.tasks, row.exact, row.wrong, row.refused_plannable) == (3, 1, 1, 1)


# -- load errors name the file and the field ------------------------------------------------------------------


def _robot_dir(tmp_path: Path, tasks: str) -> Path:
    (tmp_path / "robot.yaml").write_text("name: tiny\nskills: [config/catalog/cleaning]\nworld: world.yaml\n")
    (tmp_path / "world.yaml").write_text("objects:\n  - {id: kitchen_table, category: table, position: [1, 0, 0.4]}\n")
    (tmp_path / "tasks.yaml").write_text(tasks)
    return tmp_path


WIPE_X = "{skill: cleaning/wipe_table, args: {surface: kitchen_table}}"


def _tasks(step: str = WIPE_X, scenario: str = "default", scenarios: str = "") -> str:
    """A one-task eval file with the given step, scenario and scenarios block."""
    head = f"scenarios: {{{scenarios}}}\n" if scenarios else ""
    return f"{head}tasks:\n  - {{tier: grammar, task: t, scenario: {scenario}, steps: [{step}]}}\n"


@pytest.mark.parametrize(
    ("tasks", "names"),
    [
        (_tasks(step="{skill: cleaning/mop_floor}"), "tasks[0].steps[0].skill"),
        (
            _tasks(step="{skill: cleaning/wipe_table, args: {surface: kitchen_table, cloth: red}}"),
            "tasks[0].steps[0].args.cloth",
        ),
        (
            _tasks(step="{skill: cleaning/wipe_table, args: {surface: kitchen_table, passes: 9}}"),
            "tasks[0].steps[0].args",
        ),
        (_tasks(scenario="dark"), "tasks[0].scenario"),
        (_tasks(scenario="far", scenarios="far: {unreachable: [sofa]}"), "scenarios.far.unreachable"),
    ],
)
def test_a_bad_eval_file_is_a_load_error_naming_the_file_and_field(tmp_path: Path, tasks: str, names: str) -> None:
    with pytest.raises(EvalFileError, match=r"tasks\.yaml") as err:
        load_robot(_robot_dir(tmp_path, tasks), root=config_dir().parent)
    assert names in str(err.value)

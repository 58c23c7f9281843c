"""The compiler's output shape: golden snapshots, stable names, and recovery branches only where needed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import py_trees
import pytest
from py_trees.display import unicode_tree

from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing.golden import UPDATE_OPTION, GoldenFiles
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.compiler import PlanCompiler
from bt_executive.trees.recovery import load_recovery_policy
from bt_executive.trees.task_context import TaskContext
from tests.trees.scripted_leaves import ScriptedLeafFactory

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"

PICK_AND_PLACE = Plan(
    steps=(
        SkillCall(skill="tabletop/pick", args={"object": "red_cube"}),
        SkillCall(skill="tabletop/place_on", args={"target": "plate"}),
    )
)
DRAWER_ROUTINE = Plan(
    steps=(
        SkillCall(skill="tabletop/open_drawer", args={"drawer": "drawer"}),
        SkillCall(skill="tabletop/pick", args={"object": "blue_cube"}),
        SkillCall(skill="tabletop/place_on", args={"target": "drawer"}),
        SkillCall(skill="tabletop/close_drawer", args={"drawer": "drawer"}),
        SkillCall(skill="tabletop/home"),
    )
)


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> GoldenFiles:
    return GoldenFiles(GOLDEN, update=bool(request.config.getoption(UPDATE_OPTION)))


def compile_plan(registry: SkillRegistry, plan: Plan, index: int = 0) -> py_trees.behaviour.Behaviour:
    context = TaskContext(
        task="test",
        planner=ScriptedPlanner([]),
        registry=registry,
        leaf_factory=ScriptedLeafFactory(),
        policy=load_recovery_policy(),
    )
    with ThreadPoolExecutor(max_workers=1) as executor:
        return PlanCompiler(context, executor, lambda node, plan: None).compile_plan(plan, index)


@pytest.mark.parametrize(
    ("name", "plan"), [("compiled_pick_and_place", PICK_AND_PLACE), ("compiled_drawer_routine", DRAWER_ROUTINE)]
)
def test_compiled_plans_match_their_golden_snapshots(
    name: str, plan: Plan, skill_registry: SkillRegistry, golden: GoldenFiles, clean_blackboard: None
) -> None:
    golden.check(compile_plan(skill_registry, plan), name)


def test_compiling_the_same_plan_twice_gives_the_same_tree(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    first = unicode_tree(compile_plan(skill_registry, PICK_AND_PLACE))
    assert unicode_tree(compile_plan(skill_registry, PICK_AND_PLACE)) == first


def test_step_names_read_well_in_a_viewer(skill_registry: SkillRegistry, clean_blackboard: None) -> None:
    root = compile_plan(skill_registry, PICK_AND_PLACE, index=1)
    assert [root.name, *(c.name for c in root.children)] == [
        "Plan #1",
        "Step 1 · pick(red_cube)",
        "Step 2 · place_on(plate)",
    ]


def test_an_empty_plan_compiles_to_a_sequence_that_succeeds_at_once(
    skill_registry: SkillRegistry, clean_blackboard: None
) -> None:
    root = compile_plan(skill_registry, Plan())
    root.tick_once()
    assert (root.name, root.status) == ("Plan #0 (already done)", py_trees.common.Status.SUCCESS)

"""Hand-written YAML trees: loading, golden renderings, round trips through dump, and errors that name the path."""

from __future__ import annotations

from pathlib import Path

import py_trees
import pytest
import yaml
from py_trees.common import Status

from bt_executive.runtime.paths import config_dir
from bt_executive.skills import ManifestError, SkillCall, SkillKind, SkillRegistry, SkillResult, WorldState
from bt_executive.skills.builtin_skills import make_builtin_leaf
from bt_executive.skills.leaf import SkillLeaf
from bt_executive.skills.world_state import GripperState, ObjectState
from bt_executive.testing import GoldenAssert, run_tree
from bt_executive.testing.golden import UPDATE_OPTION, GoldenFiles, render_tree
from bt_executive.trees.leaf_factory import SkillLeafFactory
from bt_executive.trees.world_condition import WorldCondition
from bt_executive.trees.yaml_tree import dump_tree, dump_yaml, load_tree

pytestmark = pytest.mark.usefixtures("clean_blackboard")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TREES = FIXTURES / "trees"
SHIPPED = sorted((config_dir() / "trees").glob("*.yaml"))
GOOD = [*SHIPPED, TREES / "every_node_kind.yaml"]
CUBE_ON_PLATE = WorldState(
    objects=(
        ObjectState(id="red_cube", position=(0.38, 0.22, 0.03), supported_by="plate"),
        ObjectState(id="plate", position=(0.38, 0.22, 0.006)),
    ),
    gripper=GripperState(holding=None),
)


class StubSkill(py_trees.behaviour.Behaviour):
    """A non-builtin skill leaf that succeeds at once: these tests are about the tree, not the robot."""

    def __init__(self, call: SkillCall, name: str) -> None:
        super().__init__(name)
        self.call = call
        self.result: SkillResult | None = None

    def update(self) -> Status:
        self.result = SkillResult.ok()
        return Status.SUCCESS


class RecordingFactory:
    """Builtins for real, other skills as StubSkill; records every (call, key) it was asked for."""

    def __init__(self, registry: SkillRegistry, world: WorldState | None = None) -> None:
        self.registry = registry
        self.world = (lambda: world) if world is not None else (lambda: None)
        self.built: list[tuple[str, str]] = []

    def __call__(self, call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        self.built.append((call.skill, key))
        manifest = self.registry.get(call.skill)
        if manifest.kind is SkillKind.BUILTIN:
            return make_builtin_leaf(manifest, call, name=name, key=key, world=self.world)
        return StubSkill(call, name)


@pytest.fixture
def factory(skill_registry: SkillRegistry) -> RecordingFactory:
    return RecordingFactory(skill_registry)


@pytest.fixture
def fixture_golden(request: pytest.FixtureRequest) -> GoldenAssert:
    """Golden renderings under tests/fixtures/golden (``pytest --update-golden`` rewrites them)."""
    return GoldenFiles(FIXTURES / "golden", update=bool(request.config.getoption(UPDATE_OPTION))).check


# good trees --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_a_tree_file_loads_to_its_golden_rendering(
    path: Path, factory: RecordingFactory, fixture_golden: GoldenAssert
) -> None:
    fixture_golden(load_tree(path, factory), f"tree_{path.stem}")


def test_the_project_ships_example_routines() -> None:
    assert {"home_then_pick", "tidy_red_cube"} <= {p.stem for p in SHIPPED}


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_loading_a_dumped_tree_gives_the_same_rendering(path: Path, factory: RecordingFactory) -> None:
    loaded = load_tree(path, factory)
    reloaded = load_tree(yaml.safe_load(dump_yaml(loaded)), factory)
    assert render_tree(reloaded) == render_tree(loaded)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_dumping_is_stable_across_a_round_trip(path: Path, factory: RecordingFactory) -> None:
    first = dump_tree(load_tree(path, factory))
    assert dump_tree(load_tree(first, factory)) == first


def describe(node: py_trees.behaviour.Behaviour) -> tuple[object, ...]:
    """A node's class and the parameters the format sets on it."""
    composites, decorators = py_trees.composites, py_trees.decorators
    match node:
        case composites.Sequence() | composites.Selector():
            return (type(node).__name__, node.memory)
        case composites.Parallel():
            return ("Parallel", type(node.policy).__name__, node.policy.synchronise)
        case decorators.Retry():
            return ("Retry", node.num_failures)
        case decorators.Timeout():
            return ("Timeout", node.duration)
        case decorators.Repeat():
            return ("Repeat", node.num_success)
        case SkillLeaf():
            return (type(node).__name__, node.call.skill, node.call.args, node.call.prompt)
    return (type(node).__name__,)


def test_each_node_kind_becomes_the_py_trees_behaviour_with_its_parameters(factory: RecordingFactory) -> None:
    root = load_tree(TREES / "every_node_kind.yaml", factory)
    assert [describe(node) for node in root.iterate()] == [
        ("WaitSkill", "builtin/wait", {"seconds": 0.01}, None),
        ("WorldCondition",),
        ("Inverter",),
        ("Parallel", "SuccessOnOne", False),
        ("WorldCondition",),
        ("SaySkill", "builtin/say", {"text": "trying", "level": "debug"}, None),
        ("Repeat", 2),
        ("Timeout", 2.5),
        ("Selector", True),
        (
            "StubSkill",
            "tabletop/vla_manipulate",
            {"object": "red_cube", "target": "plate"},
            "put the red cube on the plate",
        ),
        ("CheckSkill", "builtin/check", {"predicate": "on(red_cube, plate)"}, None),
        ("Parallel", "SuccessOnAll", True),
        ("StubSkill", "tabletop/pick", {"object": "red_cube", "grasp": {"lift_height": 0.1}}, None),
        ("Retry", 2),
        ("Sequence", False),
    ]


def test_each_leaf_gets_its_own_blackboard_key(factory: RecordingFactory) -> None:
    tree = {"root": {"sequence": {"children": [{"skill": "tabletop/home"}, {"skill": "tabletop/home"}]}}}
    load_tree(tree, factory)
    assert factory.built == [("tabletop/home", "home"), ("tabletop/home", "home_2")]


def test_a_hand_written_routine_of_builtins_runs_to_success(skill_registry: SkillRegistry) -> None:
    routine = {
        "root": {
            "sequence": {
                "children": [
                    {"skill": "builtin/say", "args": {"text": "checking the plate"}},
                    {"skill": "builtin/wait", "args": {"seconds": 0.01}},
                    {"condition": "on(red_cube, plate)"},
                    {"skill": "builtin/check", "args": {"predicate": "gripper_empty"}},
                ]
            }
        }
    }
    root = load_tree(routine, RecordingFactory(skill_registry, CUBE_ON_PLATE))
    assert run_tree(root, max_ticks=100, period_s=0.002).status == Status.SUCCESS


def test_a_condition_node_follows_the_latest_world_state() -> None:
    worlds: list[WorldState | None] = [None, WorldState(), CUBE_ON_PLATE]
    condition = WorldCondition("on(red_cube, plate)", lambda: worlds[0])
    statuses = []
    for _ in range(3):
        condition.tick_once()
        statuses.append(condition.status)
        worlds.pop(0)
    assert statuses == [Status.FAILURE, Status.FAILURE, Status.SUCCESS]


# bad trees -----------------------------------------------------------------------------------------

BAD = {
    "alias.yaml": ["line 4, column 9: invalid YAML: aliases (*name) are not allowed"],
    "bad_check_predicate.yaml": ["root.args.predicate: predicate 'on' takes 2 argument(s), got 1"],
    "bad_parallel_policy.yaml": ["root.parallel.policy: Input should be 'success_on_all' or 'success_on_one'"],
    "bad_retry_attempts.yaml": ["root.sequence.children[2].retry.attempts: Input should be greater than or equal to 1"],
    "bad_skill_args.yaml": [
        "root.sequence.children[0].args.grasp.lift_height: 2.0 is greater than the maximum of 0.3",
        "root.sequence.children[1].args: 'target' is a required property",
    ],
    "duplicate_key.yaml": ["line 4, column 5: invalid YAML: duplicate key 'attempts'"],
    "empty_children.yaml": ["root.parallel.children: a composite needs at least one child"],
    "no_kind_key.yaml": ["root.sequence.children[1]: a tree node needs one of the keys sequence, selector"],
    "prompt_on_ros_skill.yaml": ["root.prompt: tabletop/pick is a ros_action skill; only VLA skills take one"],
    "two_kind_keys.yaml": ["root.sequence.children[0]: a node has exactly one kind key; this one has condition, skill"],
    "unknown_field.yaml": [
        "root.sequence.children: required field is missing",
        "root.sequence.childs: unknown field",
    ],
    "unknown_predicate.yaml": ["root.selector.children[0].condition: unknown predicate 'is_holding'"],
    "unknown_skill.yaml": ["root.retry.child.skill: unknown skill 'tabletop/pik'; did you mean tabletop/pick"],
}
"""Each bad fixture and the start of every problem it must report, after ``<file>: ``."""


def test_every_bad_tree_fixture_has_its_expected_errors_listed() -> None:
    assert sorted(p.name for p in (TREES / "bad").glob("*.yaml")) == sorted(BAD)


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_tree_is_refused_with_every_problem_naming_file_and_path(name: str, factory: RecordingFactory) -> None:
    path = TREES / "bad" / name
    with pytest.raises(ManifestError) as caught:
        load_tree(path, factory, world=lambda: None)
    lines = str(caught.value).splitlines()
    expected = [f"{path}: {start}" for start in BAD[name]]
    assert [line[: len(want)] for line, want in zip(lines, expected, strict=False)] == expected
    assert len(lines) == len(expected)


def test_nothing_is_built_when_any_call_is_wrong(factory: RecordingFactory) -> None:
    with pytest.raises(ManifestError):
        load_tree(TREES / "bad" / "bad_skill_args.yaml", factory)
    assert factory.built == []


def test_a_condition_needs_a_world_state_source(skill_registry: SkillRegistry) -> None:
    bare = SkillLeafFactory(skill_registry)  # no world: neither given nor the factory's
    with pytest.raises(ManifestError, match=r"<tree>: root: a condition needs a world state source"):
        load_tree({"root": {"condition": "gripper_empty"}}, bare)


def test_the_leaf_factory_registry_checks_calls_when_none_is_given(skill_registry: SkillRegistry) -> None:
    bare = SkillLeafFactory(skill_registry)
    with pytest.raises(ManifestError, match=r"root.skill: unknown skill 'builtin/wiat'; did you mean builtin/wait"):
        load_tree({"root": {"skill": "builtin/wiat", "args": {"seconds": 1}}}, bare)


def test_without_a_registry_the_factory_error_names_the_node(skill_registry: SkillRegistry) -> None:
    def factory(call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        raise ValueError(f"{call.skill} is a ros_action skill: the leaf factory needs a ROS node")

    tree = {"root": {"inverter": {"child": {"skill": "tabletop/home"}}}}
    with pytest.raises(ManifestError, match=r"<tree>: root.inverter.child.skill: tabletop/home is a ros_action"):
        load_tree(tree, factory)


def test_a_tree_file_that_is_not_a_mapping_is_refused(tmp_path: Path, factory: RecordingFactory) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- skill: tabletop/home\n", encoding="utf-8")
    with pytest.raises(ManifestError, match=r"list.yaml: \(root\): expected a mapping"):
        load_tree(path, factory)


def test_dump_refuses_a_node_the_format_cannot_hold() -> None:
    root = py_trees.composites.Sequence("routine", memory=True, children=[py_trees.behaviours.Running("spin")])
    with pytest.raises(ValueError, match=r"cannot write node 'spin' \(py_trees.behaviours.Running\)"):
        dump_tree(root)

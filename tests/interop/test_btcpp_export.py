"""BT.CPP export: BehaviorTree.CPP itself (behaviortreepy) loads and ticks compiled plans and the shipped YAML trees."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import behaviortreepy
import pytest

from bt_executive.cli.export_command import plan_tree, yaml_tree
from bt_executive.runtime.paths import config_dir
from bt_executive.trees.btcpp_runtime import declared_leaves, load_btcpp_tree, without_port_attributes
from bt_executive.trees.export_btcpp import BTCPP_BUILTINS, btcpp_xml

S = behaviortreepy.NodeStatus
PLAN = {
    "task": "put the red cube on the plate",
    "plan": {
        "planner": "stub",
        "steps": [
            {"skill": "tabletop/pick", "args": {"object": "red_cube"}},
            {"skill": "tabletop/place_on", "args": {"target": "plate"}},
        ],
    },
}
TREES = sorted((config_dir() / "trees").glob("*.yaml"))


@pytest.fixture
def plan_xml(tmp_path: Path) -> str:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN))
    return btcpp_xml(plan_tree(path))


def recorder(statuses: Callable[[str], Any]) -> tuple[list[str], Callable[[Any], Any]]:
    """A tick callback answering ``statuses(name)`` and the names it was called with, in order."""
    ticked: list[str] = []

    def tick(node: Any) -> Any:
        ticked.append(node.name())
        return statuses(node.name())

    return ticked, tick


def effects_not_yet_held(name: str) -> Any:
    """Skills succeed; the ``Done?`` checks fail, so every step runs its skill."""
    return S.FAILURE if name.startswith("Done?") else S.SUCCESS


def test_btcpp_loads_and_ticks_a_compiled_pick_and_place_to_success(plan_xml: str) -> None:
    _, tick = recorder(effects_not_yet_held)
    assert load_btcpp_tree(plan_xml, tick).tree.tick_while_running(1) == S.SUCCESS


def test_btcpp_runs_the_compiled_skills_in_plan_order(plan_xml: str) -> None:
    ticked, tick = recorder(effects_not_yet_held)
    load_btcpp_tree(plan_xml, tick).tree.tick_while_running(1)
    assert [name for name in ticked if name in ("pick(red_cube)", "place_on(plate)")] == [
        "pick(red_cube)",
        "place_on(plate)",
    ]


def test_a_failed_attempt_runs_the_recovery_then_the_skill_again(plan_xml: str) -> None:
    picks = iter([S.FAILURE, S.SUCCESS])

    def statuses(name: str) -> Any:
        return next(picks) if name == "pick(red_cube)" else effects_not_yet_held(name)

    ticked, tick = recorder(statuses)
    load_btcpp_tree(plan_xml, tick).tree.tick_while_running(1)
    assert ticked[ticked.index("pick(red_cube)") :][:3] == ["pick(red_cube)", "home()", "pick(red_cube)"]


@pytest.mark.parametrize("path", TREES, ids=[p.name for p in TREES])
def test_btcpp_loads_and_ticks_every_shipped_yaml_tree(path: Path) -> None:
    _, tick = recorder(lambda name: S.SUCCESS)
    assert load_btcpp_tree(btcpp_xml(yaml_tree(path)), tick).tree.tick_while_running(1) == S.SUCCESS


def test_the_export_uses_only_builtin_controls_and_decorators(plan_xml: str) -> None:
    tags = {entry.tag for entry in ET.fromstring(plan_xml).find("TreeNodesModel") or []}
    assert tags <= {"Action", "Condition"}


def test_every_node_that_is_not_a_builtin_is_declared_with_its_ports(plan_xml: str) -> None:
    document = ET.fromstring(plan_xml)
    declared = declared_leaves(plan_xml)
    tree = document.find("BehaviorTree")
    assert tree is not None
    undeclared = [
        (element.tag, sorted(set(element.attrib) - {"name"} - declared.get(element.tag, ("", frozenset()))[1]))
        for element in tree.iter()
        if element is not tree and element.tag not in BTCPP_BUILTINS
        if element.tag not in declared or set(element.attrib) - {"name"} - declared[element.tag][1]
    ]
    assert undeclared == []


def test_the_skill_leaves_keep_their_ports_for_groot2(plan_xml: str) -> None:
    pick = ET.fromstring(plan_xml).find("TreeNodesModel/Action[@ID='tabletop_pick']/input_port")
    assert pick is not None
    assert (pick.get("name"), pick.get("type")) == ("object", "std::string")


def test_a_port_attribute_missing_from_the_model_is_refused_by_name(plan_xml: str) -> None:
    bad = plan_xml.replace('object="red_cube"', 'object="red_cube" colour="red"', 1)
    with pytest.raises(ValueError, match="attribute 'colour' is not a port of tabletop_pick"):
        without_port_attributes(bad)


def test_btcpp_refuses_a_port_its_registration_lacks_which_is_why_ports_are_checked_here(plan_xml: str) -> None:
    factory = behaviortreepy.BehaviorTreeFactory()
    for node_id, (tag, _) in declared_leaves(plan_xml).items():
        register = factory.register_simple_condition if tag == "Condition" else factory.register_simple_action
        register(node_id, lambda node: S.SUCCESS)
    with pytest.raises(RuntimeError, match="providedPorts"):
        factory.create_tree_from_text(plan_xml)

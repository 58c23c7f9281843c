"""Exporters: ascii and dot (golden), svg/png through graphviz, BehaviorTree.CPP v4 XML (structure)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bt_executive.cli.export_command import plan_tree, yaml_tree
from bt_executive.cli.main import main
from bt_executive.runtime.paths import config_dir
from bt_executive.testing.golden import GoldenAssert
from bt_executive.trees.export_btcpp import BTCPP_BUILTINS, btcpp_xml
from bt_executive.trees.exporters import export_tree

PICK = {"skill": "tabletop/pick", "args": {"object": "red_cube"}}
PLACE = {"skill": "tabletop/place_on", "args": {"target": "plate"}}
PLAN = json.dumps({"task": "put the red cube on the plate", "plan": {"planner": "stub", "steps": [PICK, PLACE]}})
TIDY = config_dir() / "trees" / "tidy_red_cube.yaml"
needs_graphviz = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(PLAN)
    return path


def undeclared_ids(xml: str) -> set[str]:
    """Node IDs used in the tree that are neither BT.CPP builtins nor declared in TreeNodesModel."""
    document = ET.fromstring(xml)
    declared = {entry.get("ID") for entry in document.find("TreeNodesModel") or []}
    tree = document.find("BehaviorTree")
    assert tree is not None
    used = {element.tag for element in tree.iter()} - {"BehaviorTree"}
    return used - BTCPP_BUILTINS - declared


def test_a_compiled_plan_draws_as_the_golden_ascii(plan_file: Path, assert_golden: GoldenAssert) -> None:
    assert_golden(export_tree(plan_tree(plan_file), "ascii").decode(), "export_pick_and_place_ascii")


def test_a_compiled_plan_draws_as_the_golden_dot(plan_file: Path, assert_golden: GoldenAssert) -> None:
    assert_golden(export_tree(plan_tree(plan_file), "dot").decode(), "export_pick_and_place_dot")


def test_dot_takes_colons_out_of_names() -> None:
    import py_trees

    root = py_trees.composites.Sequence("phase: one", memory=True, children=[py_trees.behaviours.Success("a:b")])
    dot = export_tree(root, "dot").decode()
    assert ("a:b" in dot, "phase: one" in dot, '"a-b"' in dot, '"phase - one"' in dot) == (False, False, True, True)


@needs_graphviz
def test_the_dot_export_renders_to_svg_with_every_node(plan_file: Path) -> None:
    svg = export_tree(plan_tree(plan_file), "svg").decode()
    assert svg.lstrip().startswith("<?xml")
    assert "<svg" in svg
    assert "Step 2 · place_on(plate)" in svg


@needs_graphviz
def test_png_export_writes_a_png_file(plan_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "plan.png"
    assert main(["export", "--format", "png", "--plan-file", str(plan_file), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_btcpp_xml_is_well_formed_version_4_with_every_id_declared(plan_file: Path) -> None:
    xml = btcpp_xml(plan_tree(plan_file))
    document = ET.fromstring(xml)
    assert (document.tag, document.get("BTCPP_format"), undeclared_ids(xml)) == ("root", "4", set())


def test_btcpp_xml_maps_memory_composites_and_skill_ports(plan_file: Path) -> None:
    document = ET.fromstring(btcpp_xml(plan_tree(plan_file)))
    pick = document.find(".//tabletop_pick")
    model = document.find("TreeNodesModel/Action[@ID='tabletop_pick']/input_port")
    assert pick is not None
    assert model is not None
    step = document.find(".//Fallback[@name='Step 1 · pick(red_cube)']")
    assert (pick.get("object"), model.get("name"), step is not None) == ("red_cube", "object", True)


def test_btcpp_xml_maps_retry_timeout_and_reactive_nodes() -> None:
    import py_trees

    reactive = py_trees.composites.Selector(
        "guard", memory=False, children=[py_trees.composites.Sequence("watch", memory=False)]
    )
    xml = btcpp_xml(py_trees.composites.Sequence("root", memory=True, children=[yaml_tree(TIDY), reactive]))
    document = ET.fromstring(xml)
    retry = document.find(".//RetryUntilSuccessful")
    timeout = document.find(".//Timeout")
    assert retry is not None
    assert timeout is not None
    assert (retry.get("num_attempts"), timeout.get("msec")) == ("2", "60000")
    assert document.find(".//ReactiveFallback/ReactiveSequence") is not None
    assert undeclared_ids(xml) == set()


def test_step_attempts_with_a_recovery_is_a_retry_around_the_leaf_then_the_recovery(plan_file: Path) -> None:
    document = ET.fromstring(btcpp_xml(plan_tree(plan_file)))
    attempts = document.find(".//RetryUntilSuccessful[@name='Attempts · pick(red_cube)']")
    assert attempts is not None
    shape = [(e.tag, e.get("name")) for e in attempts.iter()][1:]
    assert (attempts.get("num_attempts"), shape) == (
        "4",
        [
            ("Fallback", "Attempt · pick(red_cube)"),
            ("tabletop_pick", "pick(red_cube)"),
            ("ForceFailure", "then the leaf again"),
            ("Sequence", "Recover · home_then_retry"),
            ("tabletop_home", "home()"),
        ],
    )


def test_export_of_a_run_draws_its_last_tree_with_statuses(
    recorded_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "--format", "ascii", "--run", recorded_run.name, "--root", str(recorded_run.parent)]) == 0
    out = capsys.readouterr().out
    assert 'Task "put the red cube on the plate" [o]' in out
    assert "Plan #1 [o]" in out


def test_export_of_a_bad_plan_file_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "plan.json"
    bad.write_text('{"steps": [{"skill": "tabletop/pick", "args": {}, "colour": 1}]}')
    assert main(["export", "--format", "ascii", "--plan-file", str(bad)]) == 2
    assert "steps.0.colour" in capsys.readouterr().err


def test_export_of_a_yaml_tree_writes_the_file(tmp_path: Path) -> None:
    out = tmp_path / "tidy.xml"
    assert main(["export", "--format", "btcpp-xml", "--tree-yaml", str(TIDY), "-o", str(out)]) == 0
    assert ET.parse(out).getroot().find(".//tabletop_place_on[@target='plate']") is not None

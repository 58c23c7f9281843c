"""Golden snapshots: a small tree of skill leaves against its committed rendering, and the snapshot rules."""

from __future__ import annotations

from pathlib import Path

import py_trees
import pytest

from bt_executive.skills import SkillCall, SkillRegistry
from bt_executive.skills.action_skill import RosActionSkill
from bt_executive.testing import GoldenAssert, RosHarness
from bt_executive.testing.golden import GoldenFiles

pytestmark = pytest.mark.ros


def test_a_pick_and_place_tree_matches_its_golden_rendering(
    ros_harness: RosHarness, skill_registry: SkillRegistry, assert_golden: GoldenAssert
) -> None:
    node = ros_harness.node("executive")
    steps = [
        SkillCall(skill="tabletop/pick", args={"object": "red_cube"}),
        SkillCall(skill="tabletop/place_on", args={"target": "plate"}),
    ]
    leaves = [RosActionSkill(skill_registry.get(call.skill), call, node) for call in steps]
    root = py_trees.composites.Sequence("put the red cube on the plate", memory=True, children=leaves)
    assert_golden(root, "pick_and_place")


def test_a_tree_that_differs_from_its_golden_file_fails_with_a_diff(tmp_path: Path) -> None:
    (tmp_path / "shape.txt").write_text("[-] task\n    --> pick\n")
    with pytest.raises(AssertionError, match=r"(?s)-    --> pick.*\+    --> place"):
        GoldenFiles(tmp_path).check("[-] task\n    --> place\n", "shape")


def test_updating_golden_files_writes_the_rendering(tmp_path: Path) -> None:
    GoldenFiles(tmp_path, update=True).check("[-] task\n    --> place\n", "shape")
    assert (tmp_path / "shape.txt").read_text() == "[-] task\n    --> place\n"

"""Every YAML door refuses hostile files: symlinks out of their folder, loops, control characters, size."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bt_executive.sim.faults import FaultConfig
from bt_executive.sim.scene import Scene
from bt_executive.skills.errors import ManifestError, Problem
from bt_executive.skills.knowledge import load_knowledge
from bt_executive.skills.loader import MAX_FILE_BYTES, load_model
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import collect
from bt_executive.trees.yaml_tree import read_tree_spec

HOSTILE = Path(__file__).resolve().parent / "fixtures" / "hostile"
CONFIG = Path(__file__).resolve().parents[1] / "config"

DOORS: dict[str, Callable[[Path], Any]] = {
    "manifests": lambda path: load_model(path, SkillManifest),
    "knowledge": load_knowledge,
    "trees": read_tree_spec,
    "faults": FaultConfig.from_yaml,
    "scenes": Scene.from_yaml,
}
"""Each door: the folder of its hostile fixtures and the function that reads one."""

OUTSIDE = ("(file)", "symlink points outside")
LOOP = ("(file)", "symlink loop")
TEXT = "no other control characters"
LINE = "one line of text without control characters"

# door/fixture -> (field the problem must name, words its reason must hold)
EXPECTED: dict[str, tuple[str, str]] = {
    "manifests/link_outside.yaml": OUTSIDE,
    "manifests/link_system.yaml": OUTSIDE,
    "manifests/loop_a.yaml": LOOP,
    "manifests/loop_b.yaml": LOOP,
    "manifests/nul_in_description.yaml": (
        "description",
        f"U+0000 (NUL) at character 10; text may hold tab and newline but {TEXT}",
    ),
    "manifests/ansi_escape_in_description.yaml": ("description", "U+001B (ESC) at character 6"),
    "manifests/bell_in_default_goal.yaml": ("ros.default_goal.prompt", "U+0007 (BEL)"),
    "manifests/carriage_return_in_field_name.yaml": ("(root)", "field name 'time\\rout_s': control character U+000D"),
    "manifests/raw_escape_byte.yaml": ("line 8, column 19", "U+001B written raw in the file"),
    "manifests/tab_in_prompt_template.yaml": (
        "vla.prompt_template",
        f"U+0009 (TAB) at character 9; this field is {LINE}",
    ),
    "knowledge/link_outside": ("(file)", "symlink points outside the bundle"),
    "knowledge/loop": LOOP,
    "knowledge/nul_in_description": ("description", "U+0000 (NUL)"),
    "knowledge/ansi_escape_in_body": ("line 16", "U+001B (ESC) at character 13"),
    "trees/link_outside.yaml": OUTSIDE,
    "trees/link_system.yaml": OUTSIDE,
    "trees/loop_self.yaml": LOOP,
    "trees/ansi_escape_in_node_name.yaml": ("root.sequence.children[0].name", "U+001B (ESC)"),
    "trees/nul_in_skill_argument.yaml": ("root.args.text", "U+0000 (NUL)"),
    "faults/link_outside.yaml": OUTSIDE,
    "faults/link_system.yaml": OUTSIDE,
    "faults/loop_a.yaml": LOOP,
    "faults/loop_b.yaml": LOOP,
    "faults/nul_in_description.yaml": ("description", "U+0000 (NUL)"),
    "faults/tab_in_name.yaml": ("name", f"U+0009 (TAB) at character 7; this field is {LINE}"),
    "scenes/link_outside.yaml": OUTSIDE,
    "scenes/link_system.yaml": OUTSIDE,
    "scenes/loop_self.yaml": LOOP,
    "scenes/c1_control_in_name.yaml": ("name", "U+009B (C1 control)"),
    "scenes/escape_in_object_colour.yaml": ("objects[0].colour", "U+001B (ESC)"),
}


def _refusal(door: str, path: Path) -> Problem:
    with pytest.raises(ManifestError) as caught:
        DOORS[door](path)
    return caught.value.problems[0]


def test_every_hostile_fixture_has_an_expectation() -> None:
    found = {f"{door}/{entry.name}" for door in DOORS for entry in (HOSTILE / door).iterdir()}
    assert found == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_file_is_refused_naming_its_file_and_field(name: str) -> None:
    door = name.split("/")[0]
    path = HOSTILE / name
    problem = _refusal(door, path)
    source = path / "SKILL.md" if door == "knowledge" else path
    field, words = EXPECTED[name]
    assert (problem.source, problem.field, words in problem.reason) == (str(source), field, True), str(problem)


@pytest.mark.parametrize("door", ["manifests", "trees", "faults", "scenes"])
def test_a_file_over_the_size_limit_is_refused_by_every_yaml_door(door: str, tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# padding\n" * (MAX_FILE_BYTES // 10 + 1) + "name: big\n", encoding="utf-8")
    problem = _refusal(door, big)
    assert (problem.field, f"limited to {MAX_FILE_BYTES}" in problem.reason) == ("(file)", True), str(problem)


@pytest.mark.parametrize("door", ["manifests", "trees", "faults", "scenes"])
def test_a_fifo_is_refused_without_blocking(door: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert _refusal(door, fifo).reason == "not a regular file"


def test_a_symlink_inside_its_directory_is_loaded() -> None:
    manifest = load_model(HOSTILE / "manifests_ok" / "wave_link.yaml", SkillManifest)
    assert manifest.id == "hostile/wave_outside"


def test_tab_and_newline_are_allowed_in_a_description() -> None:
    manifest = load_model(HOSTILE / "manifests_ok" / "tab_and_newline_in_description.yaml", SkillManifest)
    assert manifest.description == "Move home.\tSafe to call\nat any time."


def test_a_scene_through_a_symlink_beside_it_loads(tmp_path: Path) -> None:
    (tmp_path / "tabletop.yaml").write_bytes((CONFIG / "scenes" / "tabletop.yaml").read_bytes())
    (tmp_path / "current.yaml").symlink_to("tabletop.yaml")
    assert Scene.from_yaml(tmp_path / "current.yaml").name == "tabletop"


# the skill-directory walk ---------------------------------------------------------------------------


def _skill_dir(tmp_path: Path) -> Path:
    """A skill directory whose one manifest lives in a hidden folder (not walked) and is linked from robot/."""
    skills = tmp_path / "skills"
    (skills / ".shared").mkdir(parents=True)
    (skills / ".shared" / "wave.yaml").write_bytes((HOSTILE / "outside" / "wave.yaml").read_bytes())
    (skills / "robot").mkdir()
    (skills / "robot" / "wave.yaml").symlink_to("../.shared/wave.yaml")
    return skills


def test_collect_loads_a_symlink_that_stays_inside_the_skill_directory(tmp_path: Path) -> None:
    report = collect([_skill_dir(tmp_path)], use_entry_points=False)
    assert ([s.manifest.id for s in report.skills], report.problems) == (["hostile/wave_outside"], [])


def test_collect_refuses_a_symlink_out_of_the_directory_it_was_given(tmp_path: Path) -> None:
    robot = _skill_dir(tmp_path) / "robot"
    report = collect([robot], use_entry_points=False)
    assert [(p.source, p.field, "symlink points outside" in p.reason) for p in report.problems] == [
        (str(robot / "wave.yaml"), "(file)", True)
    ]


def test_collect_refuses_a_symlinked_folder_that_loops(tmp_path: Path) -> None:
    skills = _skill_dir(tmp_path)
    (skills / "robot" / "again").symlink_to("..")
    report = collect([skills], use_entry_points=False)
    assert [(p.source, p.field, "loops back" in p.reason) for p in report.problems] == [
        (str(skills / "robot" / "again"), "(file)", True)
    ]


def test_collect_refuses_a_symlinked_folder_outside_the_skill_directory(tmp_path: Path) -> None:
    skills = _skill_dir(tmp_path)
    (skills / "elsewhere").symlink_to(HOSTILE / "outside")
    report = collect([skills], use_entry_points=False)
    assert [(p.source, p.field, "symlink points outside" in p.reason) for p in report.problems] == [
        (str(skills / "elsewhere"), "(file)", True)
    ]


def test_collect_names_a_skill_directory_that_is_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "skills").symlink_to("skills")
    report = collect([tmp_path / "skills"], use_entry_points=False)
    assert [(p.field, p.reason.startswith("symlink loop")) for p in report.problems] == [("(path)", True)]

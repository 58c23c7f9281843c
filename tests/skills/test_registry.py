"""The registry finds manifests in directories, bundles and entry points, without running code."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.registry import SkillRegistry, UnknownSkill, collect
from bt_executive.testing import valid_manifest_data

TABLETOP = {"pick", "place_on", "push", "home", "pour", "tap", "open_drawer", "close_drawer", "stack"}


def _write(path: Path, **overrides: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(valid_manifest_data(**overrides)), encoding="utf-8")
    return path


def test_shipped_tabletop_set_is_complete_with_one_vla_skill_and_three_builtins(skill_registry: SkillRegistry) -> None:
    names = {m.name for m in skill_registry}
    kinds = sorted(m.kind.value for m in skill_registry if m.name not in TABLETOP)
    assert (names >= TABLETOP, kinds) == (True, ["builtin", "builtin", "builtin", "vla"])


def test_every_shipped_ros_skill_declares_failure_kinds_and_timeout(skill_registry: SkillRegistry) -> None:
    lacking = [m.id for m in skill_registry if not m.failure_kinds or m.timeout_s <= 0]
    assert lacking == []


def test_bundle_directory_and_plain_yaml_files_are_both_found(tmp_path: Path) -> None:
    _write(tmp_path / "wave_bundle" / "skill.yaml", id="test/wave")
    _write(tmp_path / "nested" / "grab.yaml", id="test/grab")
    _write(tmp_path / "wave_bundle" / "notes.yaml", id="test/ignored")  # a bundle is its skill.yaml only
    registry = SkillRegistry.discover([tmp_path], use_entry_points=False)
    assert registry.ids() == ("test/grab", "test/wave")


def test_missing_path_is_reported(tmp_path: Path) -> None:
    report = collect([tmp_path / "nope"], use_entry_points=False)
    assert [p.reason for p in report.problems] == ["does not exist"]


def _fake_distribution(root: Path, value: str, init_body: str = "raise RuntimeError('imported!')\n") -> None:
    """An installed distribution on sys.path whose package raises if anything imports it."""
    (root / "robot_skills_pkg").mkdir(parents=True)
    (root / "robot_skills_pkg" / "__init__.py").write_text(init_body, encoding="utf-8")
    _write(root / "robot_skills_pkg" / "manifests" / "wave.yaml", id="fleet/wave")
    info = root / "robot_skills-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: robot-skills\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[bt_executive.skills]\nfleet = {value}\n", encoding="utf-8")


def test_entry_point_bundle_is_found_without_importing_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_distribution(tmp_path, "robot_skills_pkg.manifests")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = SkillRegistry.discover([], use_entry_points=True)
    assert "fleet/wave" in registry  # and the package's __init__ (which raises) never ran


def test_entry_point_naming_an_object_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_distribution(tmp_path, "robot_skills_pkg:load")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ManifestError, match="must name a package directory"):
        SkillRegistry.discover([], use_entry_points=True)


def test_unknown_skill_suggests_close_matches(skill_registry: SkillRegistry) -> None:
    with pytest.raises(UnknownSkill) as caught:
        skill_registry.get("tabletop/pik")
    assert caught.value.suggestions[0] == "tabletop/pick"


def test_capabilities_filter_keeps_only_what_the_robot_can_run(skill_registry: SkillRegistry) -> None:
    no_cameras = RobotCapabilities(name="blind_arm", arms=1, gripper=True)
    available, excluded = skill_registry.available_for(no_cameras)
    assert ("tabletop/vla_manipulate" in available, excluded) == (
        False,
        {"tabletop/vla_manipulate": "requires camera:front, camera:wrist"},
    )


def test_capabilities_action_allow_list_excludes_other_verbs(skill_registry: SkillRegistry) -> None:
    picker = RobotCapabilities(name="picker", arms=1, gripper=True, actions=("PICK", "GRASP", "REACH"))
    available, _ = skill_registry.available_for(picker)
    assert available.ids() == ("tabletop/home", "tabletop/pick")


def test_tabletop_robot_runs_every_shipped_skill(
    skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    _, excluded = skill_registry.available_for(tabletop_robot)
    assert excluded == {}

"""Scenes load from YAML, compile to MJCF, and lay objects out the same way for the same seed."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import mujoco
import pytest

from bt_executive.resources import config_dir
from bt_executive.sim.mjcf import build_mjcf
from bt_executive.sim.scene import Scene
from bt_executive.skills.errors import ManifestError

pytestmark = pytest.mark.sim

TABLETOP = config_dir() / "scenes" / "tabletop.yaml"


@pytest.fixture(scope="module")
def scene() -> Scene:
    return Scene.from_yaml(TABLETOP)


def test_tabletop_scene_has_three_cubes_a_green_plate_and_a_bowl(scene: Scene) -> None:
    kinds = sorted((o.category, o.colour) for o in scene.objects)
    assert kinds == [("bowl", "white"), ("cube", "blue"), ("cube", "green"), ("cube", "red"), ("plate", "green")]


def test_tabletop_scene_has_a_cabinet_with_a_drawer(scene: Scene) -> None:
    assert scene.cabinet is not None
    assert scene.cabinet.drawer_id == "drawer"


def test_scene_compiles_to_a_model_with_front_and_wrist_cameras(scene: Scene) -> None:
    model = mujoco.MjModel.from_xml_string(build_mjcf(scene))
    assert {model.camera(i).name for i in range(model.ncam)} == {"front", "wrist"}


def test_same_seed_gives_the_same_layout(scene: Scene) -> None:
    assert scene.layout(7) == scene.layout(7)


def test_different_seeds_give_different_layouts(scene: Scene) -> None:
    assert scene.layout(1) != scene.layout(2)


def test_no_seed_means_the_scene_seed(scene: Scene) -> None:
    assert scene.layout() == scene.layout(scene.seed)


@pytest.mark.parametrize("seed", range(20))
def test_layout_keeps_the_clearance_between_objects(scene: Scene, seed: int) -> None:
    layout = scene.layout(seed)
    gaps = [
        math.hypot(layout[a.id].x - layout[b.id].x, layout[a.id].y - layout[b.id].y)
        - a.footprint_radius
        - b.footprint_radius
        for a, b in itertools.combinations(scene.objects, 2)
    ]
    assert min(gaps) >= scene.randomisation.min_clearance - 1e-9


def test_a_scene_with_an_unknown_field_is_refused_naming_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(TABLETOP.read_text() + "gravity: 3\n")
    with pytest.raises(ManifestError, match="gravity: unknown field"):
        Scene.from_yaml(bad)


def test_a_cube_too_wide_for_the_gripper_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "wide.yaml"
    text = TABLETOP.read_text().replace("size: [0.04, 0.04, 0.04]", "size: [0.2, 0.2, 0.04]", 1)
    bad.write_text(text)
    with pytest.raises(ManifestError, match="must fit the gripper"):
        Scene.from_yaml(bad)


def test_duplicate_object_ids_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "dup.yaml"
    bad.write_text(TABLETOP.read_text().replace("id: green_cube", "id: red_cube"))
    with pytest.raises(ManifestError, match="unique"):
        Scene.from_yaml(bad)


def test_objects_that_state_no_affordances_get_their_category_defaults(scene: Scene) -> None:
    assert scene.affordances_of("red_cube") == ("graspable", "pushable", "support")
    assert scene.affordances_of("table") == ("support",)
    assert "graspable" not in scene.affordances_of("cabinet")
    assert "openable" in scene.affordances_of("drawer")


def test_a_scene_may_state_an_objects_affordances(tmp_path: Path) -> None:
    path = tmp_path / "glued.yaml"
    path.write_text(
        TABLETOP.read_text().replace(
            "mass: 0.05, pose: {x: 0.30, y: 0.12", "mass: 0.05, affordances: [support], pose: {x: 0.30, y: 0.12", 1
        )
    )
    assert Scene.from_yaml(path).affordances_of("red_cube") == ("support",)


def test_an_unknown_affordance_is_refused_naming_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "edible.yaml"
    bad.write_text(TABLETOP.read_text().replace("affordances: [support, pushable]", "affordances: [edible]", 1))
    with pytest.raises(ManifestError, match="affordances"):
        Scene.from_yaml(bad)

"""Scenes load from YAML, compile to MJCF, and lay objects out the same way for the same seed."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import mujoco
import pytest

from bt_executive.runtime.paths import config_dir
from bt_executive.sim.backend import SimBackend
from bt_executive.sim.mjcf import build_mjcf
from bt_executive.sim.scene import Scene
from bt_executive.skills.colours import COLOURS, colour_rgba
from bt_executive.skills.errors import ManifestError

pytestmark = pytest.mark.sim

TABLETOP = config_dir() / "scenes" / "tabletop.yaml"
RED_CUBE = "id: red_cube, category: cube, colour: red"


def _tabletop_with(tmp_path: Path, red_cube: str) -> Path:
    """The tabletop scene with its red cube's line replaced (id, category, colour)."""
    path = tmp_path / "scene.yaml"
    text = TABLETOP.read_text(encoding="utf-8")
    assert RED_CUBE in text
    path.write_text(text.replace(RED_CUBE, red_cube, 1), encoding="utf-8")
    return path


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


def test_a_pink_cube_loads_and_the_world_state_calls_it_pink(tmp_path: Path) -> None:
    path = _tabletop_with(tmp_path, "id: pink_cube, category: cube, colour: pink")
    backend = SimBackend(Scene.from_yaml(path), seed=0)
    try:
        found = backend.world_state().object("pink_cube")
    finally:
        backend.close()
    assert ((found.category, found.colour) if found is not None else None) == ("cube", "pink")


def test_a_pink_cube_is_compiled_with_the_pink_of_the_colour_table(tmp_path: Path) -> None:
    scene = Scene.from_yaml(_tabletop_with(tmp_path, "id: pink_cube, category: cube, colour: pink"))
    model = mujoco.MjModel.from_xml_string(build_mjcf(scene))
    assert model.geom("pink_cube").rgba.tolist() == pytest.approx(list(COLOURS["pink"]))


def test_a_colour_word_not_in_the_table_compiles_to_its_fixed_derived_rgba(tmp_path: Path) -> None:
    scene = Scene.from_yaml(_tabletop_with(tmp_path, "id: odd_cube, category: cube, colour: chartreuse"))
    model = mujoco.MjModel.from_xml_string(build_mjcf(scene))
    # Pinned: SHA-256 of the word, so every machine and run renders the same frames (Python's hash() would not).
    assert model.geom("odd_cube").rgba.tolist() == pytest.approx([0.3750980, 0.6825490, 0.1527451, 1.0])


@pytest.mark.parametrize(
    ("word", "rgba"), [("light blue", (0.56, 0.65, 0.925, 1.0)), ("dark-green", (0.075, 0.325, 0.1, 1.0))]
)
def test_light_and_dark_shades_mix_a_table_colour_towards_white_or_black(
    word: str, rgba: tuple[float, float, float, float]
) -> None:
    assert colour_rgba(word) == pytest.approx(rgba)


@pytest.mark.parametrize("word", ["Pink", "pink!", "0.9 0.4 0.6", "pink ", "", "a" * 33])
def test_a_colour_that_is_not_a_lower_case_word_is_refused_naming_the_field(tmp_path: Path, word: str) -> None:
    path = _tabletop_with(tmp_path, f"id: red_cube, category: cube, colour: {word!r}")
    with pytest.raises(ManifestError, match=r"objects\[0\]\.colour"):
        Scene.from_yaml(path)

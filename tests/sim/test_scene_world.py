"""The scene world state ``plan --dry-run`` plans on: simulated once, then read from the cache, never stale."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bt_executive.cli import scene_world
from bt_executive.cli.scene_world import scene_world_state
from bt_executive.runtime.paths import CACHE_ENV, config_dir
from bt_executive.sim.backend import SimBackend
from bt_executive.skills.world_state import WorldState

TABLETOP = config_dir() / "scenes" / "tabletop.yaml"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "world_states"


def _simulated(seed: int) -> WorldState:
    backend = SimBackend.from_files(TABLETOP, seed=seed)
    try:
        return backend.world_state()
    finally:
        backend.close()


def test_the_first_call_simulates_and_caches_the_state_a_fresh_sim_reports(cache: Path) -> None:
    world = scene_world_state(None, 3)
    assert (world, len(list(cache.glob("*.json")))) == (_simulated(3), 1)


def test_a_second_call_reads_the_cache_without_loading_the_scene(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = scene_world_state(None, 3)

    def no_sim(scene: Path, seed: int | None) -> WorldState:
        raise AssertionError("the scene was simulated again")

    monkeypatch.setattr(scene_world, "_simulated", no_sim)
    assert scene_world_state(None, 3) == first


def test_another_seed_or_an_edited_scene_is_simulated_anew(cache: Path, tmp_path: Path) -> None:
    scene = yaml.safe_load(TABLETOP.read_text(encoding="utf-8"))
    scene["randomisation"]["enabled"] = False
    path = tmp_path / "scene.yaml"
    path.write_text(yaml.safe_dump(scene), encoding="utf-8")
    before = scene_world_state(path, 0)
    scene["objects"][0]["pose"]["x"] = 0.22
    path.write_text(yaml.safe_dump(scene), encoding="utf-8")
    after = scene_world_state(path, 0)
    moved = [o.position[0] for o in (before.object("red_cube"), after.object("red_cube")) if o is not None]
    assert (round(moved[0], 2), round(moved[1], 2), len(list(cache.glob("*.json")))) == (0.30, 0.22, 2)


def test_a_corrupt_cache_file_is_replaced_by_the_simulated_state(cache: Path) -> None:
    scene_world_state(None, 4)
    [file] = cache.glob("*.json")
    file.write_text("{not json", encoding="utf-8")
    assert (scene_world_state(None, 4), WorldState.model_validate_json(file.read_bytes())) == (
        _simulated(4),
        _simulated(4),
    )

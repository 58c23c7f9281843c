"""The scripted skills do what their names say, checked from sim state rather than from their own reports."""

from __future__ import annotations

import numpy as np
import pytest

from bt_executive.sim.backend import SimBackend
from bt_executive.skills.world_state import ObjectState, WorldState

pytestmark = pytest.mark.sim


def _object(state: WorldState, object_id: str) -> ObjectState:
    found = state.object(object_id)
    if found is None:
        pytest.fail(f"{object_id} missing from the world state")
    return found


def _run(b: SimBackend, *calls: tuple[str, dict[str, object]]) -> None:
    for name, args in calls:
        result = b.run_skill(name, args)  # type: ignore[arg-type]
        assert result.success, f"{name}{args}: {result.failure_kind} {result.reason} {result.detail}"


def test_pick_place_on_home_puts_the_red_cube_on_the_plate(backend: SimBackend) -> None:
    _run(backend, ("pick", {"object": "red_cube"}), ("place_on", {"target": "plate"}), ("home", {}))
    state = backend.world_state()
    cube, plate = _object(state, "red_cube"), _object(state, "plate")
    centred = np.hypot(cube.position[0] - plate.position[0], cube.position[1] - plate.position[1]) < 0.03
    assert (cube.supported_by, centred, state.at_home, state.gripper.holding) == ("plate", True, True, None)


def test_pick_leaves_the_object_held_above_the_table(backend: SimBackend) -> None:
    _run(backend, ("pick", {"object": "green_cube"}))
    cube = _object(backend.world_state(), "green_cube")
    assert (backend.world_state().gripper.holding, cube.position[2] > 0.1) == ("green_cube", True)


def test_home_keeps_the_held_object(backend: SimBackend) -> None:
    _run(backend, ("pick", {"object": "blue_cube"}), ("home", {}))
    state = backend.world_state()
    assert (state.at_home, state.gripper.holding) == (True, "blue_cube")


def test_stack_puts_one_cube_on_another(backend: SimBackend) -> None:
    _run(backend, ("stack", {"object": "red_cube", "base": "green_cube"}))
    cube = _object(backend.world_state(), "red_cube")
    assert cube.supported_by == "green_cube"


def test_place_on_the_bowl_drops_the_cube_inside_it(backend: SimBackend) -> None:
    _run(backend, ("pick", {"object": "blue_cube"}), ("place_on", {"target": "bowl"}))
    cube = _object(backend.world_state(), "blue_cube")
    assert (cube.inside, cube.supported_by) == ("bowl", "bowl")


def test_place_on_the_table_finds_a_free_spot(backend: SimBackend) -> None:
    _run(backend, ("pick", {"object": "red_cube"}), ("place_on", {"target": "table"}))
    cube = _object(backend.world_state(), "red_cube")
    assert cube.supported_by == "table"


def test_push_moves_the_cube_the_asked_distance_in_the_asked_direction(backend: SimBackend) -> None:
    before = _object(backend.world_state(), "green_cube")
    _run(backend, ("push", {"object": "green_cube", "direction": "left", "distance": 0.06}))
    after = _object(backend.world_state(), "green_cube")
    assert after.position[1] - before.position[1] == pytest.approx(0.06, abs=0.02)


def test_tap_touches_the_cube_without_moving_it(backend: SimBackend) -> None:
    before = _object(backend.world_state(), "green_cube")
    result = backend.run_skill("tap", {"object": "green_cube"})
    after = _object(backend.world_state(), "green_cube")
    touched = float(result.evidence["contact_force_n"]) > 0.0  # type: ignore[arg-type]
    still = bool(np.allclose(before.position, after.position, atol=0.005))
    assert (result.success, touched, still) == (True, True, True)


def test_pour_tilts_the_held_cube_over_the_bowl_and_keeps_holding_it(backend: SimBackend) -> None:
    _run(backend, ("pick", {"object": "blue_cube"}))
    result = backend.run_skill("pour", {"source": "blue_cube", "target": "bowl", "tilt_deg": 90})
    tilted = float(result.evidence["max_tilt_deg"]) >= 80  # type: ignore[arg-type]
    assert (result.success, tilted, backend.world_state().gripper.holding) == (True, True, "blue_cube")


def test_open_drawer_then_close_drawer_moves_the_drawer_out_and_back(backend: SimBackend) -> None:
    _run(backend, ("open_drawer", {"drawer": "drawer"}))
    opened = backend.world_state().drawers["drawer"]
    _run(backend, ("close_drawer", {"drawer": "drawer"}))
    assert (opened > 0.8, backend.world_state().drawers["drawer"] < 0.05) == (True, True)


def test_a_cube_placed_in_the_open_drawer_is_inside_the_drawer(backend: SimBackend) -> None:
    _run(backend, ("open_drawer", {}), ("pick", {"object": "green_cube"}), ("place_on", {"target": "drawer"}))
    cube = _object(backend.world_state(), "green_cube")
    assert cube.inside == "drawer"


def test_every_skill_reports_its_duration_in_sim_seconds(backend: SimBackend) -> None:
    start = backend.sim_time
    result = backend.run_skill("home")
    assert result.duration_s == pytest.approx(backend.sim_time - start, abs=0.021)

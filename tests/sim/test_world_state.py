"""The WorldState the sim publishes: every object with its relations, the gripper, the arm and the drawer."""

from __future__ import annotations

import pytest

from bt_executive.sim import arm
from bt_executive.sim.backend import SimBackend
from bt_executive.skills.world_state import ObjectState, WorldState

pytestmark = pytest.mark.sim


def _object(state: WorldState, object_id: str) -> ObjectState:
    found = state.object(object_id)
    if found is None:
        pytest.fail(f"{object_id} missing from the world state")
    return found


@pytest.fixture
def state(backend: SimBackend) -> WorldState:
    return backend.world_state()


def test_world_state_names_every_object_with_its_category_and_colour(state: WorldState) -> None:
    named = {(o.id, o.category, o.colour) for o in state.objects}
    assert {
        ("red_cube", "cube", "red"),
        ("green_cube", "cube", "green"),
        ("blue_cube", "cube", "blue"),
        ("plate", "plate", "green"),
        ("bowl", "bowl", "white"),
        ("drawer", "drawer", "brown"),
        ("cabinet", "cabinet", "brown"),
        ("table", "table", "brown"),
    } <= named


def test_objects_at_reset_rest_on_the_table(state: WorldState) -> None:
    movable = [o for o in state.objects if o.category in ("cube", "plate", "bowl")]
    assert {o.supported_by for o in movable} == {"table"}


def test_objects_in_the_layout_are_reachable(state: WorldState) -> None:
    assert all(o.reachable for o in state.objects if o.category in ("cube", "plate", "bowl"))


def test_at_reset_the_arm_is_at_home(state: WorldState) -> None:
    assert (state.at_home, state.joint_positions == pytest.approx(arm.HOME_Q, abs=0.01)) == (True, True)


def test_at_reset_the_gripper_is_open_and_empty(state: WorldState) -> None:
    assert (round(state.gripper.opening, 3), state.gripper.holding) == (arm.MAX_OPENING, None)


def test_the_drawer_starts_shut(state: WorldState) -> None:
    assert state.drawers == {"drawer": 0.0}


def test_sizes_are_full_extents(state: WorldState) -> None:
    assert _object(state, "red_cube").size == (0.04, 0.04, 0.04)


def test_orientations_are_unit_quaternions(state: WorldState) -> None:
    assert all(sum(v * v for v in o.orientation) == pytest.approx(1.0, abs=1e-4) for o in state.objects)


def test_a_cube_moved_beyond_the_arm_is_not_reachable(backend: SimBackend) -> None:
    backend.set_object_pose("blue_cube", (0.95, 0.55, 0.02))
    cube = _object(backend.world_state(), "blue_cube")
    assert cube.reachable is False


def test_a_removed_object_is_absent(backend: SimBackend) -> None:
    backend.remove_object("green_cube")
    assert backend.world_state().object("green_cube") is None


def test_a_cube_set_on_another_is_supported_by_it(backend: SimBackend) -> None:
    green = _object(backend.world_state(), "green_cube")
    backend.set_object_pose("red_cube", (green.position[0], green.position[1], 0.0605))
    for _ in range(20):
        backend.tick()
    cube = _object(backend.world_state(), "red_cube")
    assert cube.supported_by == "green_cube"


def test_a_cube_set_in_the_bowl_is_inside_it(backend: SimBackend) -> None:
    bowl = _object(backend.world_state(), "bowl")
    backend.set_object_pose("red_cube", (bowl.position[0], bowl.position[1], 0.04))
    for _ in range(25):
        backend.tick()
    cube = _object(backend.world_state(), "red_cube")
    assert (cube.inside, cube.supported_by) == ("bowl", "bowl")


def test_the_stamp_is_sim_time(backend: SimBackend) -> None:
    for _ in range(3):
        backend.tick()
    assert backend.world_state().stamp == pytest.approx(0.06)


def test_world_state_round_trips_through_json(state: WorldState) -> None:
    assert WorldState.model_validate_json(state.model_dump_json()) == state


def test_objects_carry_their_affordances_from_the_scene(state: WorldState) -> None:
    assert _object(state, "red_cube").affordances == ("graspable", "pushable", "support")
    assert _object(state, "table").affordances == ("support",)
    assert not _object(state, "cabinet").affords("graspable")
    assert not _object(state, "plate").affords("graspable")
    assert _object(state, "drawer").affords("openable")
    assert _object(state, "bowl").affords("container")

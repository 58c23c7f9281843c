"""Predicates bound to calls and evaluated on world states, live and symbolic."""

from __future__ import annotations

import pytest

from bt_executive.skills.conditions import SymbolicState, bind, first_unmet, goal_effects, holds
from bt_executive.skills.predicates import parse_predicate
from bt_executive.skills.world_state import GripperState, ObjectState, WorldState

WORLD = WorldState(
    objects=(
        ObjectState(id="red_cube", position=(0.4, 0.0, 0.02), supported_by="plate"),
        ObjectState(id="blue_cube", position=(0.3, 0.1, 0.02), inside="bowl", reachable=False),
        ObjectState(id="plate", position=(0.4, 0.0, 0.0)),
        ObjectState(id="bowl", position=(0.3, 0.1, 0.0)),
    ),
    gripper=GripperState(holding="green_cube"),
    drawers={"drawer": 0.8, "shelf_drawer": 0.1},
    at_home=True,
    regions={"left": ((0.2, 0.0, 0.0), (0.6, 0.3, 0.3))},
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("holding(green_cube)", True),
        ("holding(red_cube)", False),
        ("gripper_empty", False),
        ("not gripper_empty", True),
        ("on(red_cube, plate)", True),
        ("on(blue_cube, plate)", False),
        ("in(blue_cube, bowl)", True),
        ("at(blue_cube, left)", True),
        ("at(red_cube, left)", True),
        ("at(red_cube, nowhere)", False),
        ("drawer_open(drawer)", True),
        ("drawer_open(shelf_drawer)", False),
        ("reachable(red_cube)", True),
        ("reachable(blue_cube)", False),
        ("reachable(ghost)", False),
        ("exists(bowl)", True),
        ("exists(ghost)", False),
        ("at_home", True),
    ],
)
def test_each_predicate_evaluates_against_the_world_state(text: str, expected: bool) -> None:
    assert holds(parse_predicate(text), WORLD) is expected


def test_binding_replaces_parameter_names_and_keeps_literal_ids() -> None:
    assert str(bind("on(object, plate)", {"object": "red_cube"})) == "on(red_cube, plate)"


def test_first_unmet_names_the_first_predicate_that_does_not_hold() -> None:
    bound = [bind(p, {"object": "red_cube"}) for p in ("exists(object)", "gripper_empty", "reachable(object)")]
    unmet = first_unmet(bound, WORLD)
    assert str(unmet) == "gripper_empty"


def test_goal_effects_are_those_that_name_an_argument() -> None:
    assert goal_effects(["on(object, base)", "gripper_empty"], {"object": "a", "base": "b"}) == ("on(object, base)",)


def test_symbolic_grasp_then_place_moves_the_object_out_of_the_gripper() -> None:
    state = SymbolicState(WorldState(objects=WORLD.objects))
    state.apply(parse_predicate("holding(red_cube)"))
    held = (state.holds(parse_predicate("holding(red_cube)")), state.holds(parse_predicate("gripper_empty")))
    state.apply(parse_predicate("on(red_cube, bowl)"))
    placed = (state.holds(parse_predicate("gripper_empty")), state.holds(parse_predicate("on(red_cube, plate)")))
    assert (held, placed) == ((True, False), (True, False))


def test_symbolic_state_reads_unset_atoms_from_the_world() -> None:
    state = SymbolicState(WORLD)
    state.apply(parse_predicate("not drawer_open(drawer)"))
    assert (
        state.holds(parse_predicate("drawer_open(drawer)")),
        state.holds(parse_predicate("in(blue_cube, bowl)")),
    ) == (
        False,
        True,
    )


AFFORDING = WorldState(
    objects=(
        ObjectState(id="red_cube", category="cube", position=(0.4, 0.0, 0.02), supported_by="table"),
        ObjectState(id="blue_cube", category="cube", position=(0.4, 0.0, 0.06), supported_by="red_cube"),
        ObjectState(id="table", category="table", position=(0.0, 0.0, 0.0)),
        ObjectState(id="gadget", category="widget", position=(0.3, 0.1, 0.0)),
        ObjectState(id="sponge", category="widget", position=(0.3, 0.2, 0.0), affordances=("graspable",)),
    ),
    drawers={"drawer": 0.0},
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("graspable(red_cube)", True),  # a cube's category defaults
        ("graspable(table)", False),  # a table supports, it is not picked up
        ("support(table)", True),
        ("container(red_cube)", False),
        ("graspable(gadget)", False),  # an unknown category affords nothing
        ("graspable(sponge)", True),  # stated affordances win over the category's
        ("support(sponge)", False),
        ("openable(drawer)", True),  # a drawer known only from the drawers map
        ("graspable(missing)", False),
        ("clear(blue_cube)", True),
        ("clear(red_cube)", False),  # the blue cube rests on it
    ],
)
def test_affordances_and_clear_hold_as_the_world_states(text: str, expected: bool) -> None:
    assert holds(parse_predicate(text), AFFORDING) is expected


def test_an_object_becomes_clear_once_what_rested_on_it_is_picked() -> None:
    state = SymbolicState(AFFORDING)
    state.apply(parse_predicate("holding(blue_cube)"))
    assert state.holds(parse_predicate("clear(red_cube)"))

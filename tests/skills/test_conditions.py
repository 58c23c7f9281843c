"""Predicates bound to calls and evaluated on world states, live and symbolic."""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.llm.eval.planner_eval import execute
from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.skills.conditions import (
    SymbolicState,
    apply_step,
    bind,
    bound_to_call,
    call_args,
    first_unmet,
    goal_effects,
    goal_predicates,
    holds,
)
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.predicates import parse_predicate
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import GripperState, ObjectState, WorldState
from bt_executive.trees.plan_check import check_plan

TABLETOP_WORLD = Path(__file__).parents[1] / "golden" / "robots" / "tabletop" / "world.yaml"

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


# -- one plan simulator: the plan check, the planner eval and the grammar planner imagine steps alike -------


def test_the_plan_check_and_the_eval_imagine_a_plan_alike(skill_registry: SkillRegistry) -> None:
    world = load_model(TABLETOP_WORLD, WorldState)
    plan = Plan(
        steps=(
            SkillCall(skill="tabletop/pick", args={"object": "red_cube"}),
            SkillCall(skill="tabletop/place_on", args={"target": "bowl"}),
        ),
        planner="test",
    )
    state, why = execute(plan, skill_registry, world)
    assert (why, check_plan(plan, skill_registry, world)) == ("", [])
    wanted = ["in(red_cube, bowl)", "on(red_cube, bowl)", "gripper_empty", "not at_home", "not holding(red_cube)"]
    assert [text for text in wanted if not state.holds(parse_predicate(text))] == []


def test_an_arm_skill_leaves_the_arm_away_from_home_and_a_base_move_does_not(skill_registry: SkillRegistry) -> None:
    world = load_model(TABLETOP_WORLD, WorldState)
    state = SymbolicState(world)
    base_move = skill_registry.get("tabletop/pick").model_copy(update={"requires": ("mobile_base",), "effects": ()})
    apply_step(state, base_move, {"object": "red_cube"})
    home_after_base = state.holds(parse_predicate("at_home"))
    apply_step(state, skill_registry.get("tabletop/pick"), {"object": "red_cube"})
    assert (home_after_base, state.holds(parse_predicate("at_home"))) == (True, False)


def test_the_robot_is_at_one_place_and_a_base_move_to_no_named_place_leaves_it_nowhere_known(
    skill_registry: SkillRegistry,
) -> None:
    """A second ``at(robot, kitchen)`` ends ``at(robot, hallway)``; a skill that moves the base and says no
    ``at`` (a vacuum of a zone) leaves no place known, so a later trip back is not skipped."""
    world = load_model(TABLETOP_WORLD, WorldState)
    state = SymbolicState(world)
    state.apply(parse_predicate("at(robot, hallway)"))
    state.apply(parse_predicate("at(robot, kitchen)"))
    where = [state.holds(parse_predicate(f"at(robot, {p})")) for p in ("hallway", "kitchen")]
    base_move = skill_registry.get("tabletop/pick").model_copy(update={"requires": ("mobile_base",), "effects": ()})
    apply_step(state, base_move, {"object": "red_cube"})
    after = [state.holds(parse_predicate(f"at(robot, {p})")) for p in ("hallway", "kitchen")]
    assert (where, after) == ([False, True], [False, False])


def test_a_base_move_takes_what_was_in_reach_out_of_it_but_not_what_is_held() -> None:
    world = WorldState(
        objects=(
            ObjectState(id="mug", position=(0.4, 0.0, 0.8)),
            ObjectState(id="bin", position=(3.0, 2.0, 0.3)),
            ObjectState(id="cup", position=(0.4, 0.1, 0.8)),
        ),
        gripper=GripperState(holding="cup"),
    )
    state = SymbolicState(world)
    state.apply(parse_predicate("reachable(bin)"))
    reach = {o: state.holds(parse_predicate(f"reachable({o})")) for o in ("mug", "bin", "cup")}
    assert reach == {"mug": False, "bin": True, "cup": True}


def test_a_parameter_left_out_is_bound_at_its_default_and_one_with_no_default_says_nothing() -> None:
    """A lab's stow_rack ("put the blue rack away") left its ``storage`` out: its goal read in(tr1, storage), a
    rack in a place called "storage", which no world ever shows; the default is what the skill uses, and an
    effect on a parameter with neither a value nor a default is not known."""
    manifest = SkillManifest.model_validate(
        {
            "id": "lab/stow_rack",
            "description": "Carry a rack back to cold storage.",
            "kind": "ros_action",
            "actions": ["PICK_AND_PLACE"],
            "parameters": {
                "type": "object",
                "properties": {
                    "rack": {"type": "string"},
                    "storage": {"type": "string", "default": "fr1"},
                    "shelf": {"type": "string"},
                },
                "required": ["rack"],
            },
            "preconditions": ["reachable(rack)", "reachable(shelf)"],
            "effects": ["in(rack, storage)", "on(rack, shelf)"],
            "ros": {"action_type": "bt_executive_interfaces/action/RunSkill", "action_name": "skills/stow"},
        }
    )
    assert call_args(manifest, {"rack": "tr1"}) == {"storage": "fr1", "rack": "tr1"}
    assert [str(p) for p in goal_predicates(manifest, {"rack": "tr1"})] == ["in(tr1, fr1)"]
    assert [str(p) for p in bound_to_call(manifest.preconditions, manifest, {"rack": "tr1"})] == ["reachable(tr1)"]
    state = SymbolicState(WorldState())
    apply_step(state, manifest, {"rack": "tr1", "storage": "fz2"})
    assert state.holds(parse_predicate("in(tr1, fz2)"))
    assert not state.holds(parse_predicate("on(tr1, shelf)"))

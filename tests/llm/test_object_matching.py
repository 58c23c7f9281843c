"""Object matching: the user's words resolve to one world-state id, or to an error naming the candidates."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bt_executive.llm.grounding.object_matching import (
    AmbiguousObject,
    RuledOutObject,
    UnknownObject,
    match_objects,
    resolve_object,
)
from bt_executive.llm.plan import PlannerError
from bt_executive.sim.backend import SimBackend
from bt_executive.skills.world_state import ObjectState, WorldState


@pytest.fixture(scope="module")
def world() -> Iterator[WorldState]:
    """The shipped tabletop scene's world state (layout seed 0), read from the real sim."""
    backend = SimBackend.from_files(seed=0)
    yield backend.world_state()
    backend.close()


def with_second_red_cube(world: WorldState) -> WorldState:
    """The world plus another red cube, ``red_cube_2``."""
    twin = world.object("red_cube")
    assert twin is not None
    extra = twin.model_copy(update={"id": "red_cube_2", "position": (0.3, -0.2, 0.02)})
    return world.model_copy(update={"objects": (*world.objects, extra)})


RESOLVES = [
    ("red_cube", "red_cube", "exact"),
    ("the red cube", "red_cube", "exact"),
    ("Plate", "plate", "exact"),
    ("red", "red_cube", "substring"),
    ("blu", "blue_cube", "substring"),
    ("green", "green_cube", "substring"),
    ("the green plate", "plate", "words"),
    ("red block", "red_cube", "words"),
    ("the small blue block", "blue_cube", "words"),
    ("white bowl", "bowl", "words"),
    ("green dish", "plate", "words"),
    ("cabinet drawer", "drawer", "words"),
]


@pytest.mark.parametrize(("phrase", "object_id", "rule"), RESOLVES)
def test_a_phrase_resolves_to_one_id_by_the_first_rule_that_matches(
    world: WorldState, phrase: str, object_id: str, rule: str
) -> None:
    match = resolve_object(phrase, world)
    assert (match.ids, match.rule) == ((object_id,), rule)


def test_a_phrase_matching_several_objects_is_ambiguous_and_lists_them(world: WorldState) -> None:
    with pytest.raises(AmbiguousObject) as err:
        resolve_object("the cube", world)
    assert err.value.candidates == ("blue_cube", "green_cube", "red_cube")
    assert "blue_cube, green_cube, red_cube" in str(err.value)
    assert "'the cube'" in str(err.value)


def test_a_colour_shared_by_two_kinds_of_object_is_ambiguous(world: WorldState) -> None:
    with pytest.raises(AmbiguousObject) as err:
        resolve_object("the green thing", world)
    assert err.value.candidates == ("green_cube", "plate")


def test_ambiguity_is_a_planner_error(world: WorldState) -> None:
    with pytest.raises(PlannerError):
        resolve_object("block", world)


def test_a_phrase_nothing_matches_names_the_objects_there_are(world: WorldState) -> None:
    with pytest.raises(UnknownObject) as err:
        resolve_object("the purple cube", world)
    assert "'the purple cube'" in str(err.value)
    assert "blue_cube, bowl, cabinet, drawer, green_cube, plate, red_cube, table" in str(err.value)


def test_an_excluded_id_is_never_chosen_and_the_next_match_is(world: WorldState) -> None:
    two = with_second_red_cube(world)
    assert resolve_object("the red cube", two, exclude={"red_cube"}).ids == ("red_cube_2",)


def test_an_id_said_as_words_is_ambiguous_beside_another_object_it_describes(world: WorldState) -> None:
    # "the red cube" beside red_cube_2 is either red cube: an id is a name, not proof of which one was meant.
    with pytest.raises(AmbiguousObject):
        resolve_object("the red cube", with_second_red_cube(world))
    recoloured = world.model_copy(
        update={
            "objects": tuple(
                o.model_copy(update={"colour": "blue"}) if o.id == "red_cube" else o for o in world.objects
            )
        }
    )
    with pytest.raises(AmbiguousObject):
        resolve_object("the blue cube", recoloured)
    assert resolve_object("blue_cube", recoloured).ids == ("blue_cube",)  # the id itself, as written, is exact


def test_excluding_the_only_match_says_it_was_ruled_out(world: WorldState) -> None:
    with pytest.raises(RuledOutObject) as err:
        resolve_object("the bowl", world, exclude={"bowl"})
    assert "ruled out after failed attempts: bowl" in str(err.value)


def test_among_restricts_the_pool_so_the_cabinet_names_its_drawer(world: WorldState) -> None:
    assert resolve_object("the cabinet", world).ids == ("cabinet",)
    assert resolve_object("the cabinet", world, among={"drawer"}).ids == ("drawer",)


def test_an_object_missing_from_the_world_state_matches_nothing(world: WorldState) -> None:
    without = world.model_copy(update={"objects": tuple(o for o in world.objects if o.id != "bowl")})
    assert match_objects("bowl", without).ids == ()


def test_words_of_the_container_name_an_object_inside_it() -> None:
    marble = ObjectState(id="marble", colour="red", category="ball", position=(0.0, 0.0, 0.0), inside="jar")
    world = WorldState(objects=(marble,))
    assert resolve_object("the jar ball", world).ids == ("marble",)


def test_a_container_is_named_by_its_own_words_not_also_by_what_is_inside_it() -> None:
    bowl = ObjectState(id="bowl", colour="white", category="bowl", position=(0.0, 0.0, 0.0))
    cube = ObjectState(id="blue_cube", colour="blue", category="cube", position=(0.0, 0.0, 0.0), inside="bowl")
    world = WorldState(objects=(bowl, cube))
    assert [resolve_object(p, world).ids for p in ("the bowl", "the bowl cube")] == [("bowl",), ("blue_cube",)]


def test_a_head_noun_the_lexicon_lacks_links_to_a_category_present_only_above_the_bar(world: WorldState) -> None:
    """MiniLM reads 'cabinetry' as the cabinet (cosine 0.88); 'cubicle' (0.74 to cube) stays unmatched."""
    linked = match_objects("the cabinetry", world, among=["cabinet", "red_cube", "plate"])
    assert (linked.ids, linked.rule, match_objects("the red cubicle", world).ids) == (("cabinet",), "embedding", ())


def test_a_colour_word_is_never_linked_to_another_colour_or_a_category(world: WorldState) -> None:
    assert [match_objects(p, world).ids for p in ("the pink plate", "the burgundy cube", "the purple cube")] == [
        (),
        (),
        (),
    ]


def resting(world: WorldState, obj: str, on: str, *, inside: bool = False) -> WorldState:
    """The world with ``obj`` resting on (or inside) ``on``."""
    moved = [
        o.model_copy(update={"supported_by": on, "inside": on if inside else None}) if o.id == obj else o
        for o in world.objects
    ]
    return world.model_copy(update={"objects": tuple(moved)})


def test_an_object_is_named_by_what_it_rests_on_or_is_in(world: WorldState) -> None:
    on_plate = resting(world, "green_cube", "plate")
    in_bowl = resting(world, "blue_cube", "bowl", inside=True)
    found = [
        match_objects("the cube on the plate", on_plate),
        match_objects("the block that is on the green plate", on_plate),
        match_objects("the cube in the bowl", in_bowl),
        match_objects("the cube out of the bowl", in_bowl),
    ]
    assert [(m.ids, m.rule) for m in found] == [
        (("green_cube",), "relation"),
        (("green_cube",), "relation"),
        (("blue_cube",), "relation"),
        (("blue_cube",), "relation"),
    ]


def test_a_relation_that_does_not_hold_matches_nothing_and_the_table_as_a_source_filters_nothing(
    world: WorldState,
) -> None:
    assert (
        match_objects("the cube on the plate", world).ids,
        match_objects("the red cube in the bowl", world).ids,
        match_objects("the red cube from the table", world).ids,
    ) == ((), (), ("red_cube",))


def test_an_object_is_named_by_its_position_in_the_robots_frame(world: WorldState) -> None:
    """Seed 0: blue is furthest left (largest y) and furthest away, green nearest and furthest right."""
    phrases = ["the leftmost cube", "the cube on the right", "the nearest block", "the cube closest to the bowl"]
    found = [match_objects(p, world) for p in phrases]
    assert [(m.ids, m.rule) for m in found] == [
        (("blue_cube",), "position"),
        (("green_cube",), "position"),
        (("green_cube",), "position"),
        (("blue_cube",), "position"),
    ]


@pytest.mark.parametrize(
    ("phrase", "ids"),
    [
        # seed 0, in the robot's frame: blue (y 0.30) left of red (y 0.15) left of green (y -0.04)
        ("the cube to the left of the red cube", ("blue_cube",)),
        ("the cube which is on the right hand side of the red cube", ("green_cube",)),
        ("the block left of the plate", ("blue_cube",)),
        # of two on that side, the clearly nearer one: red is 0.20 m from green, blue 0.34 m
        ("the cube to the left of the green cube", ("red_cube",)),
        # behind is further from the robot: of red and green, both behind the plate, green is clearly nearer
        ("the cube behind the plate", ("green_cube",)),
        # within 45 degrees of that way: green is 0.34 m to the side of blue and only 0.03 m nearer the robot
        ("the cube in front of the blue cube", ()),
        ("the cube to the right of the green cube", ()),
    ],
)
def test_an_object_is_named_by_the_side_of_another_it_is_on(
    world: WorldState, phrase: str, ids: tuple[str, ...]
) -> None:
    assert match_objects(phrase, world).ids == ids


def test_the_middle_one_of_an_odd_number_is_the_one_with_as_many_either_side(world: WorldState) -> None:
    assert match_objects("the middle cube", world).ids == ("red_cube",)
    assert match_objects("the block in the centre", world).ids == ("red_cube",)
    with pytest.raises(AmbiguousObject):  # four cubes have no middle one
        resolve_object("the middle cube", with_second_red_cube(world))
    with pytest.raises(UnknownObject):  # the middle of something is a place on it
        resolve_object("the middle of the table", world)


def test_nothing_is_on_or_in_itself(world: WorldState) -> None:
    assert match_objects("the bowl in the bowl", world).ids == ()


def test_a_side_of_something_with_no_object_before_it_is_a_place(world: WorldState) -> None:
    with pytest.raises(UnknownObject):
        resolve_object("the left side of the table", world)
    with pytest.raises(UnknownObject, match="purple"):
        resolve_object("the cube left of the purple plate", world)


def test_two_objects_level_with_each_other_are_a_tie(world: WorldState) -> None:
    twin = with_second_red_cube(world)
    red = twin.object("red_cube")
    assert red is not None
    level = [
        o.model_copy(update={"position": (0.2, red.position[1], 0.02)}) if o.id == "red_cube_2" else o
        for o in twin.objects
    ]
    with pytest.raises(AmbiguousObject):
        resolve_object("the leftmost red block", twin.model_copy(update={"objects": tuple(level)}))


def test_a_relation_that_does_not_hold_is_refused_saying_so(world: WorldState) -> None:
    with pytest.raises(UnknownObject) as refused:
        resolve_object("the red cube out of the bowl", world)
    assert "(red_cube is not in or on bowl)" in str(refused.value)

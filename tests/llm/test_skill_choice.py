"""Skills chosen from their manifests: the home robot of the eval, a user's new skill, typos, amounts, blanks.

Planned with the grammar planner alone (GrammarPlanner) against the eval's home robot (the shipped skills plus
the catalog's home families, tests/golden/robots/home): no skill id is in planner code, so each case here is
the manifests' `actions`, `objects`, `language` and preconditions deciding.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.grounding.object_matching import match_objects
from bt_executive.llm.language.clause_forms import parse_clause
from bt_executive.llm.language.quantities import QuantityOutOfBounds
from bt_executive.llm.language.task_grammar import TaskNotUnderstood
from bt_executive.llm.plan import Plan, PlannerRefused, RefusalKind
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

ROOT = Path(__file__).parents[2]
HOME = ROOT / "tests" / "golden" / "robots" / "home"
TABLETOP = ROOT / "tests" / "golden" / "robots" / "tabletop"


def _robot(folder: Path, extra: list[Path] | None = None) -> tuple[GrammarPlanner, WorldState]:
    spec = yaml.safe_load((folder / "robot.yaml").read_text())
    registry = SkillRegistry.discover([ROOT / d for d in spec["skills"]] + (extra or []), use_entry_points=False)
    return GrammarPlanner(registry), load_model(folder / spec["world"], WorldState)


@pytest.fixture(scope="module")
def home_far() -> tuple[GrammarPlanner, WorldState]:
    """The eval's home world as written: the base at the origin, nothing in the arm's reach."""
    return _robot(HOME)


@pytest.fixture(scope="module")
def home(home_far: tuple[GrammarPlanner, WorldState]) -> tuple[GrammarPlanner, WorldState]:
    """The home world with the base beside everything, so each case is about the skill chosen alone."""
    planner, world = home_far
    near = [obj.model_copy(update={"reachable": True}) for obj in world.objects]
    return planner, world.model_copy(update={"objects": near})


def test_a_far_object_is_approached_first_and_a_second_drop_approaches_the_bin_again(
    home_far: tuple[GrammarPlanner, WorldState],
) -> None:
    planner, world = home_far
    assert _calls(planner.plan("open the fridge", world)) == [
        ("nav/approach_object", {"object": "fridge"}),
        ("storage/open_cabinet", {"cabinet": "fridge"}),
    ]
    bin_drops = _calls(planner.plan("put the red mug and the blue mug in the bin", world))
    assert bin_drops == [
        ("nav/approach_object", {"object": "m7"}),
        ("tabletop/pick", {"object": "m7"}),
        ("nav/approach_object", {"object": "bin"}),
        ("storage/place_in", {"container": "bin"}),
        ("nav/approach_object", {"object": "blue_mug"}),
        ("tabletop/pick", {"object": "blue_mug"}),
        ("nav/approach_object", {"object": "bin"}),
        ("storage/place_in", {"container": "bin"}),
    ]


@pytest.fixture(scope="module")
def tabletop() -> tuple[GrammarPlanner, WorldState]:
    return _robot(TABLETOP)


def _calls(plan: Plan) -> list[tuple[str, dict[str, object]]]:
    return [(call.skill, dict(call.args)) for call in plan.steps]


@pytest.mark.parametrize(
    ("task", "calls"),
    [
        ("open the front door", [("doors/open_door", {"door": "front_door"})]),
        ("open the brown door", [("doors/open_door", {"door": "d2"})]),
        ("open the fridge", [("storage/open_cabinet", {"cabinet": "fridge"})]),
        ("go to the kitchen", [("nav/navigate_to", {"location": "kitchen"})]),
        ("wipe the kitchen table", [("cleaning/wipe_table", {"surface": "kitchen_table"})]),
        ("turn off the light", [("manip/flip_switch", {"switch": "s1", "state": "off"})]),
        ("vacuum the living room", [("cleaning/vacuum_floor", {"zone": "living_room"})]),
        ("empty the trash", [("cleaning/empty_trash", {"bin": "bin"})]),
        ("go to the dock", [("nav/dock", {"dock": "dock"})]),
        (
            "go to the kitchen and wipe the table",
            [("nav/navigate_to", {"location": "kitchen"}), ("cleaning/wipe_table", {"surface": "kitchen_table"})],
        ),
        ("wipe down the counter twice", [("cleaning/wipe_table", {"surface": "counter", "passes": 2})]),
        ("give me the blue mug", [("handover/fetch", {"object": "blue_mug"})]),  # fetch's phrase, not hand_over's
        ("hand me the blue mug", [("handover/fetch", {"object": "blue_mug"})]),
        (
            "put the red mug in the bin",
            [("tabletop/pick", {"object": "m7"}), ("storage/place_in", {"container": "bin"})],
        ),
    ],
)
def test_the_home_robot_plans_its_tasks_with_the_skill_its_manifests_fit(
    home: tuple[GrammarPlanner, WorldState], task: str, calls: list[tuple[str, dict[str, object]]]
) -> None:
    planner, world = home
    assert _calls(planner.plan(task, world)) == calls


def test_open_the_door_with_two_doors_is_refused_as_ambiguous_naming_both(
    home: tuple[GrammarPlanner, WorldState],
) -> None:
    planner, world = home
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("open the door", world)
    assert (refused.value.kind, set(refused.value.candidates)) == (RefusalKind.AMBIGUOUS, {"front_door", "d2"})


def test_a_verb_no_skill_of_the_robot_does_on_that_object_is_refused_missing_skill(
    home: tuple[GrammarPlanner, WorldState],
) -> None:
    planner, world = home
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("read the pressure gauge", world)  # tap lists INSPECT, but second: it is not a reading
    assert refused.value.kind is RefusalKind.MISSING_SKILL


def test_a_users_new_skill_is_planned_from_its_manifest_alone(tmp_path: Path) -> None:
    manifest = {
        "id": "garden/water_plant",
        "description": "Water one potted plant with the watering can until the soil is damp.",
        "kind": "ros_action",
        "actions": ["POUR"],
        "objects": ["plant", "pot"],
        "parameters": {
            "type": "object",
            "properties": {
                "plant": {"type": "string", "minLength": 1},
                "volume": {"type": "number", "minimum": 0.05, "maximum": 1.0, "unit": "l"},
            },
            "required": ["plant"],
            "additionalProperties": False,
        },
        "language": {"phrases": ["water"], "roles": {"plant": "object", "volume": "quantity"}},
        "ros": {"action_type": "bt_executive_interfaces/action/RunSkill", "action_name": "skills/water_plant"},
    }
    SkillManifest.model_validate(manifest)
    (tmp_path / "water_plant.yaml").write_text(yaml.safe_dump(manifest))
    planner, world = _robot(HOME, [tmp_path])
    world = world.model_copy(
        update={"objects": (*world.objects, world.objects[0].model_copy(update={"id": "p3", "category": "plant"}))}
    )
    assert _calls(planner.plan("water the plant", world)) == [("garden/water_plant", {"plant": "p3"})]


def test_a_role_that_names_no_parameter_is_refused_at_load() -> None:
    with pytest.raises(ValueError, match=r"language\.roles names 'thing'"):
        SkillManifest.model_validate(
            {
                "id": "a/b",
                "description": "d",
                "kind": "ros_action",
                "actions": ["PUSH"],
                "parameters": {"type": "object", "properties": {"object": {"type": "string"}}},
                "language": {"roles": {"thing": "object"}},
                "ros": {"action_type": "x/action/Y", "action_name": "y"},
            }
        )


def test_an_amount_is_converted_to_the_parameters_unit(tabletop: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = tabletop
    plan = planner.plan("push the red cube 10 cm to the left", world)
    assert _calls(plan) == [("tabletop/push", {"object": "red_cube", "direction": "left", "distance": 0.1})]


def test_an_amount_beyond_the_schemas_bound_is_refused_naming_the_bound(
    tabletop: tuple[GrammarPlanner, WorldState],
) -> None:
    planner, world = tabletop
    with pytest.raises(QuantityOutOfBounds, match=r"maximum 0\.2 m"):
        planner.plan("push the red cube 50 cm left", world)


def test_an_amount_no_parameter_takes_is_not_guessed_at(tabletop: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = tabletop
    with pytest.raises(TaskNotUnderstood):
        planner.plan("pick up the red cube twice", world)


def test_a_typo_is_read_as_the_word_meant_and_the_notes_say_so(tabletop: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = tabletop
    plan = planner.plan("put teh red cueb on the plate", world)
    assert [c.label() for c in plan.steps] == ["pick(red_cube)", "place_on(plate)"]
    assert '"teh" -> "the", "cueb" -> "cube"' in plan.notes


def test_a_colour_is_never_fuzzed_into_another(tabletop: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = tabletop
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("pick up the purple cube", world)
    assert refused.value.kind is RefusalKind.NO_SUCH_OBJECT


@pytest.mark.parametrize("task", ["", "   ", "x" * 2001])
def test_a_blank_or_oversized_task_is_refused_at_once(tabletop: tuple[GrammarPlanner, WorldState], task: str) -> None:
    planner, world = tabletop
    with pytest.raises(PlannerRefused) as refused:
        planner.plan(task, world)
    assert refused.value.kind is RefusalKind.OUT_OF_SCOPE


@pytest.mark.parametrize(
    ("task", "labels"),
    [
        ("pick up the second cube from the left", ["pick(red_cube)"]),
        ("grasp and lift the red block", ["pick(red_cube)"]),
        ("pull the handle to open the drawer", ["open_drawer(drawer)"]),
        ("grasp the drawer handle and open it", ["open_drawer(drawer)"]),
        ("go push the red block right", ["push(red_cube, right)"]),
        ("pick up the blue cube and put the grasped object on the plate", ["pick(blue_cube)", "place_on(plate)"]),
    ],
)
def test_object_words_and_clause_shapes_read_as_a_person_means_them(
    tabletop: tuple[GrammarPlanner, WorldState], task: str, labels: list[str]
) -> None:
    planner, world = tabletop
    assert [c.label() for c in planner.plan(task, world).steps] == labels


def test_a_size_word_picks_the_clearly_largest_of_the_matches(tabletop: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = tabletop
    big_blue = world.object("blue_cube")
    assert big_blue is not None
    grown = big_blue.model_copy(update={"colour": "red", "size": (0.06, 0.06, 0.06)})
    world = world.model_copy(update={"objects": tuple(grown if o.id == "blue_cube" else o for o in world.objects)})
    assert [c.label() for c in planner.plan("pick up the big red cube", world).steps] == ["pick(blue_cube)"]


def test_a_size_word_among_equal_sizes_is_refused_as_ambiguous(tabletop: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = tabletop
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("pick up the big cube", world)
    assert refused.value.kind is RefusalKind.AMBIGUOUS


def test_a_negated_colour_leaves_out_what_it_names(tabletop: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = tabletop
    world = world.model_copy(update={"objects": tuple(o for o in world.objects if o.id != "blue_cube")})
    assert [c.label() for c in planner.plan("pick up the cube that is not red", world).steps] == ["pick(green_cube)"]


def test_a_skill_default_that_names_nothing_here_is_never_sent(home: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = home  # nav/dock's default dock is main_dock; this home's dock is 'dock'
    assert _calls(planner.plan("recharge", world)) == [("nav/dock", {"dock": "dock"})]


def test_a_verb_whose_every_skill_needs_what_the_object_lacks_is_refused_not_afforded(
    tabletop: tuple[GrammarPlanner, WorldState],
) -> None:
    planner, world = tabletop
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("open the bowl", world)  # open_drawer needs openable(drawer); a bowl does not open
    assert (refused.value.kind, "openable" in refused.value.reason) == (RefusalKind.NOT_AFFORDED, True)


def test_an_object_that_affords_the_verb_but_no_skill_takes_its_kind_is_missing_skill(tmp_path: Path) -> None:
    # The fridge opens (openable), but the only opening skill here is for drawers: the robot lacks the skill.
    planner, world = _robot(TABLETOP)
    fridge = world.objects[0].model_copy(update={"id": "fridge", "category": "fridge", "affordances": ["openable"]})
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("open the fridge", world.model_copy(update={"objects": (*world.objects, fridge)}))
    assert refused.value.kind is RefusalKind.MISSING_SKILL


def test_a_place_word_that_several_regions_hold_is_ambiguous_naming_them() -> None:
    planner, world = _robot(ROOT / "tests" / "golden" / "robots" / "inspection")
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("please proceed to the room", world)
    assert (refused.value.kind, set(refused.value.candidates)) == (
        RefusalKind.AMBIGUOUS,
        {"boiler_room", "control_room"},
    )
    assert _calls(planner.plan("go to the corridor", world)) == [("nav/navigate_to", {"location": "corridor_b"})]


def test_finding_an_object_first_names_what_it_means(tabletop: tuple[GrammarPlanner, WorldState]) -> None:
    planner, world = tabletop
    assert _calls(planner.plan("find the red cube and put it on the plate", world)) == [
        ("tabletop/pick", {"object": "red_cube"}),
        ("tabletop/place_on", {"target": "plate"}),
    ]
    with pytest.raises(PlannerRefused) as refused:  # not "it refers to nothing": the banana is not here
        planner.plan("find the banana and put it on the plate", world)
    assert (refused.value.kind, "banana" in refused.value.reason) == (RefusalKind.NO_SUCH_OBJECT, True)


def test_an_amount_of_a_put_goes_to_the_call_whose_parameter_it_names(
    tabletop: tuple[GrammarPlanner, WorldState],
) -> None:
    planner, world = tabletop
    plan = planner.plan("place the green cube on the plate with a release height of 3 cm", world)
    assert _calls(plan) == [
        ("tabletop/pick", {"object": "green_cube"}),
        ("tabletop/place_on", {"target": "plate", "release_height": 0.03}),
    ]
    with pytest.raises(PlannerRefused) as refused:  # beyond the schema's bound: refused, naming it
        planner.plan("put the red cube on the plate with a release height of 50 cm", world)
    assert refused.value.kind is RefusalKind.NOT_AFFORDED


def test_a_clause_of_only_another_direction_repeats_the_move_that_way(
    tabletop: tuple[GrammarPlanner, WorldState],
) -> None:
    planner, world = tabletop
    assert _calls(planner.plan("push the green cube left 5cm then right 3cm", world)) == [
        ("tabletop/push", {"object": "green_cube", "direction": "left", "distance": 0.05}),
        ("tabletop/push", {"object": "green_cube", "direction": "right", "distance": 0.03}),
    ]
    with pytest.raises(TaskNotUnderstood):  # back where it was, or backwards? not guessed
        planner.plan("push the green cube left 5 cm and then back", world)


def test_a_unit_and_a_count_said_after_the_object_go_to_the_parameters_they_name() -> None:
    planner, world = _robot(ROOT / "tests" / "golden" / "robots" / "inspection")
    assert _calls(planner.plan("read p7 in psi", world)) == [("inspect/read_gauge", {"gauge": "p7", "unit": "psi"})]
    assert _calls(planner.plan("scan shelf_a, 4 levels", world)) == [
        ("inspect/scan_shelf", {"shelf": "shelf_a", "levels": 4})
    ]


def test_a_remembered_clause_reading_is_one_per_set_of_skill_phrases() -> None:
    assert parse_clause("zap the red cube") is None  # no verb of the lexicon: outside the grammar
    zapped = parse_clause("zap the red cube", ["zap"])  # a robot whose skill says "zap"
    assert zapped is not None
    assert (zapped.verb, zapped.object) == ("zap", "the red cube")
    assert parse_clause("zap the red cube", ("zap",)) is zapped  # remembered, whatever collection holds the phrases
    assert parse_clause("zap the red cube") is None


def _skill(
    skill_id: str, actions: list[str], objects: list[str], params: dict[str, str], **more: object
) -> dict[str, object]:
    """A manifest of a user's own catalog: string parameters with the roles given, all required."""
    return {
        "id": skill_id,
        "description": f"{skill_id}, a skill of a user's own catalog.",
        "kind": "ros_action",
        "actions": actions,
        "objects": objects,
        "parameters": {
            "type": "object",
            "properties": {p: {"type": "string", "minLength": 1} for p in params},
            "required": list(params),
            "additionalProperties": False,
        },
        "language": {"roles": params, **more.pop("language", {})},  # type: ignore[dict-item]
        "ros": {"action_type": "bt_executive_interfaces/action/RunSkill", "action_name": f"skills/{skill_id}"},
        **more,
    }


def _warehouse(folder: Path) -> tuple[GrammarPlanner, WorldState]:
    """A user's warehouse catalog (a pallet fork sorted before a tote puller, a tote drop that takes only where)
    and a floor with a tote, a pallet and a station."""
    skills = [
        _skill(
            "wh/fork_pallet",
            ["PICK"],
            ["pallet"],
            {"pallet": "object"},
            effects=["holding(pallet)"],
            preconditions=["gripper_empty"],
            language={"phrases": ["lift"]},
        ),
        _skill(
            "wh/pull_tote",
            ["PICK", "PULL"],
            ["tote"],
            {"tote": "object"},
            effects=["holding(tote)"],
            preconditions=["gripper_empty"],
            language={"phrases": ["pull"]},
        ),
        _skill(
            "wh/drop_tote",
            ["PLACE"],
            ["station", "conveyor"],
            {"station": "destination"},
            effects=["on(held, station)", "gripper_empty"],
            preconditions=["not gripper_empty"],
            language={"phrases": ["drop off", "offload"]},
        ),
        _skill("wh/cycle_count", ["INSPECT"], ["tote"], {"location": "object"}, language={"phrases": ["count"]}),
        _skill("wh/travel", ["NAVIGATE"], ["aisle", "zone"], {"zone": "place"}, language={"phrases": ["travel to"]}),
        _skill("wh/return_to_dock", ["NAVIGATE"], ["dock"], {}, language={"phrases": ["go home", "return to dock"]}),
    ]
    fork = skills[0]["parameters"]
    assert isinstance(fork, dict)
    fork["properties"]["height"] = {"type": "number", "minimum": 5, "maximum": 180, "default": 15, "unit": "cm"}
    pull = skills[1]["parameters"]
    assert isinstance(pull, dict)
    pull["properties"]["slot"] = {"type": "string", "description": "rack slot label, e.g. A3-04, if known"}
    skills[1]["language"] = {"phrases": ["pull"], "roles": {"tote": "object", "slot": "place"}}
    skills[0]["requires"] = [
        "mobile_base",
        "lift",
    ]  # the pallet fork holds with the lift, the tote arm with its gripper
    skills[1]["requires"] = skills[2]["requires"] = ["arm", "gripper"]
    skills[0]["language"] = {"phrases": ["lift", "raise"], "roles": {"pallet": "object", "height": "quantity"}}
    for manifest in skills:
        (folder / f"{str(manifest['id']).split('/')[1]}.yaml").write_text(yaml.safe_dump(manifest))
    world = WorldState.model_validate(
        {
            "objects": [
                {"id": "t305", "category": "tote", "position": [0.5, 0.0, 0.3], "affordances": ["graspable"]},
                {"id": "p88", "category": "pallet", "position": [0.6, 0.3, 0.1], "affordances": ["graspable"]},
                {"id": "rack_b1", "category": "rack", "position": [2.0, 2.0, 1.0], "affordances": ["container"]},
                {"id": "t221", "category": "tote", "position": [2.0, 2.0, 0.8], "inside": "rack_b1"},
                {"id": "tote_7", "category": "tote", "position": [0.2, 0.6, 0.3], "affordances": ["graspable"]},
                {
                    "id": "pack_station_2",
                    "category": "station",
                    "position": [0.4, -0.3, 0.4],
                    "affordances": ["support"],
                },
            ],
            "regions": {"aisle_1": [[6.0, 0.0, 0.0], [26.0, 3.5, 5.0]], "aisle_3": [[6.0, 4.5, 0.0], [26.0, 8.0, 5.0]]},
        }
    )
    return GrammarPlanner(SkillRegistry.discover([folder], use_entry_points=False), owner="wh"), world


def test_a_step_planned_for_a_precondition_uses_a_skill_for_that_kind_of_thing(tmp_path: Path) -> None:
    """A pallet fork sorted before the tote puller took a tote on its tines when a tote had to be held first
    ("take t305 to pack station 2"); a skill chosen to meet a precondition is held to the kinds its ``objects``
    name, as a skill named by the task's verb is."""
    planner, world = _warehouse(tmp_path)
    assert _calls(planner.plan("put t305 on pack station 2", world)) == [
        ("wh/pull_tote", {"tote": "t305"}),
        ("wh/drop_tote", {"station": "pack_station_2"}),
    ]
    assert _calls(planner.plan("put t221 on pack station 2", world))[0] == ("wh/pull_tote", {"tote": "t221"})


def test_a_thing_held_is_set_down_by_what_holds_it_and_an_optional_place_is_not_guessed(tmp_path: Path) -> None:
    """A pallet forked onto the lift was "dropped" by the tote arm's drop ("put p88 on pack station 2"), and a
    tote pulled from rack b1 was pulled with slot=rack_b1, a slot label taken only "if known": the drop holds with
    the gripper, not the lift, so no skill here sets the pallet down there; the slot is left out."""
    planner, world = _warehouse(tmp_path)
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("put p88 on pack station 2", world)
    assert refused.value.kind is RefusalKind.MISSING_SKILL
    assert _calls(planner.plan("put t221 on pack station 2", world)) == [
        ("wh/pull_tote", {"tote": "t221"}),
        ("wh/drop_tote", {"station": "pack_station_2"}),
    ]


def test_a_skill_that_puts_down_what_is_held_is_told_where_never_onto_itself(tmp_path: Path) -> None:
    """Holding a tote, "offload to pack station 2" dropped the tote onto itself (the station was read as what the
    drop acts on, and where went to 'it', the held tote); where is the station, and a drop that says no where is
    refused."""
    planner, world = _warehouse(tmp_path)
    holding = world.model_copy(update={"gripper": world.gripper.model_copy(update={"holding": "t305"})})
    for task in ("offload to pack station 2", "offload it onto pack station 2"):
        assert _calls(planner.plan(task, holding)) == [("wh/drop_tote", {"station": "pack_station_2"})]
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("offload the tote", holding)
    assert (refused.value.kind, "does not say where" in refused.value.reason) == (RefusalKind.AMBIGUOUS, True)


def test_an_object_named_that_no_skill_takes_is_never_what_it_holds(tmp_path: Path) -> None:
    """ "count rack b1" counted the tote inside it (the skill counts totes; the rack's name was read as the tote's
    container words): the rack is named, and no skill here counts racks."""
    planner, world = _warehouse(tmp_path)
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("count rack b1", world)
    assert refused.value.kind is RefusalKind.MISSING_SKILL
    assert _calls(planner.plan("count t221", world)) == [("wh/cycle_count", {"location": "t221"})]


def _lab(folder: Path) -> tuple[GrammarPlanner, WorldState]:
    """A user's lab catalog: a plate loader (its own verbs "load", "seat") and an unloader that takes the plate
    from where it is (a place) to a bench (a destination with a default); a plate in the incubator."""
    skills = [
        _skill(
            "lab/load_plate",
            ["PICK_AND_PLACE", "INSERT"],
            ["microplate", "plate", "incubator", "reader"],
            {"plate": "object", "instrument": "destination"},
            effects=["in(plate, instrument)", "gripper_empty"],
            preconditions=["gripper_empty"],
            language={"phrases": ["load", "seat"]},
        ),
        _skill(
            "lab/unload_plate",
            ["PICK_AND_PLACE", "PULL"],
            ["microplate", "plate", "incubator", "reader", "bench"],
            {"plate": "object", "instrument": "place", "bench": "destination"},
            effects=["on(plate, bench)", "gripper_empty"],
            preconditions=["gripper_empty"],
            language={"phrases": ["unload", "eject"]},
        ),
        _skill(
            "lab/pipette",
            ["TRANSFER", "POUR"],
            ["reservoir", "microplate", "tube"],
            {"source": "object", "destination": "destination", "volume": "quantity"},
            language={"phrases": ["pipette", "transfer", "dispense"]},
        ),
    ]
    pipette = skills[2]["parameters"]
    assert isinstance(pipette, dict)
    pipette["properties"]["volume"] = {"type": "number", "minimum": 0.5, "maximum": 1000, "unit": "uL"}
    pipette["properties"]["mix_cycles"] = {
        "type": "integer",
        "minimum": 0,
        "maximum": 10,
        "default": 0,
        "unit": "count",
    }
    pipette["required"] = ["source", "destination", "volume"]
    skills[2]["language"] = {
        "phrases": ["pipette", "transfer", "dispense"],
        "roles": {"source": "object", "destination": "destination", "volume": "quantity", "mix_cycles": "quantity"},
    }
    unload = skills[1]["parameters"]
    assert isinstance(unload, dict)
    unload["required"] = ["plate", "instrument"]
    unload["properties"]["bench"]["default"] = "bench1"
    for manifest in skills:
        (folder / f"{str(manifest['id']).split('/')[1]}.yaml").write_text(yaml.safe_dump(manifest))
    objects = [
        {"id": "mp9", "category": "microplate", "colour": "white", "position": [0.5, 0.1, 0.3], "inside": "inc1"},
        {
            "id": "mp3",
            "category": "microplate",
            "colour": "clear",
            "position": [0.4, -0.2, 0.3],
            "supported_by": "bench1",
        },
        {"id": "inc1", "category": "incubator", "position": [0.5, 0.1, 0.3], "affordances": ["container"]},
        {"id": "pr1", "category": "plate_reader", "position": [0.6, -0.3, 0.3], "affordances": ["container"]},
        {"id": "bench1", "category": "bench", "position": [0.4, -0.2, 0.1], "affordances": ["support"]},
        {"id": "bench2", "category": "bench", "position": [0.3, 0.4, 0.1], "affordances": ["support"]},
        {"id": "res1", "category": "reservoir", "position": [0.35, 0.3, 0.2], "affordances": ["container"]},
        {"id": "tr1", "category": "tube_rack", "position": [0.3, 0.35, 0.2], "affordances": ["container"]},
    ]
    world = WorldState.model_validate({"objects": objects})
    return GrammarPlanner(SkillRegistry.discover([folder], use_entry_points=False), owner="lab"), world


def test_a_placement_verb_a_skill_claims_is_that_skill(tmp_path: Path) -> None:
    """ "load mp3 into the reader" planned the unloader (any skill that ends with the plate somewhere served a
    put): a verb a manifest lists as its own asks for that skill; a plain "put ... in" takes the skill whose
    effect is "in"."""
    planner, world = _lab(tmp_path)
    for task in ("load mp3 into the reader", "seat mp3 in the reader", "put mp3 in the reader"):
        assert _calls(planner.plan(task, world)) == [("lab/load_plate", {"plate": "mp3", "instrument": "pr1"})]


def test_where_from_and_where_to_each_take_their_own_words(tmp_path: Path) -> None:
    """ "eject mp9 from the incubator" set the plate down on the incubator (every place parameter took the one
    place said): what "from" says is where it is taken from; where to is then the skill's default."""
    planner, world = _lab(tmp_path)
    assert _calls(planner.plan("eject mp9 from the incubator", world)) == [
        ("lab/unload_plate", {"plate": "mp9", "instrument": "inc1"})
    ]
    assert _calls(planner.plan("unload mp9", world)) == [("lab/unload_plate", {"plate": "mp9", "instrument": "inc1"})]


def test_a_volume_from_one_container_into_another(tmp_path: Path) -> None:
    """ "pipette 50 µL from the reservoir into mp3" was refused: no volume was read as an amount, "from the
    reservoir" was the object phrase, and "into mp3" (an id, no article) was not a second phrase."""
    planner, world = _lab(tmp_path)
    for task, volume in (
        ("pipette 50 µL from the reservoir into mp3", 50.0),
        ("transfer 0.5 ml from res1 to mp3", 500.0),
        ("dispense 20 microlitres from res1 into mp3", 20.0),
    ):
        assert _calls(planner.plan(task, world)) == [
            ("lab/pipette", {"source": "res1", "destination": "mp3", "volume": volume})
        ]
    with pytest.raises(PlannerRefused):
        planner.plan("transfer 5 ml from res1 to mp3", world)  # 5000 µL: over the pipette's 1000


def test_a_height_said_with_to_and_a_drop_said_at_a_place(tmp_path: Path) -> None:
    """ "lift p88 to 40 cm" was refused ('p88 to' named nothing: "to" did not frame the amount), and "drop it at
    pack station 2" too ('it at pack station 2')."""
    planner, world = _warehouse(tmp_path)
    assert _calls(planner.plan("lift p88 to 40 cm", world)) == [("wh/fork_pallet", {"pallet": "p88", "height": 40.0})]
    holding = world.model_copy(update={"gripper": world.gripper.model_copy(update={"holding": "t305"})})
    assert _calls(planner.plan("drop it at pack station 2", holding)) == [
        ("wh/drop_tote", {"station": "pack_station_2"})
    ]


def test_a_place_numbered_in_words(tmp_path: Path) -> None:
    """ "travel to aisle one" was refused as naming aisle_1 and aisle_3 ("one" is a word that names nothing)."""
    planner, world = _warehouse(tmp_path)
    for task, aisle in (("travel to aisle one", "aisle_1"), ("travel to aisle three", "aisle_3")):
        assert _calls(planner.plan(task, world)) == [("wh/travel", {"zone": aisle})]


def test_a_plate_is_a_microplate_not_the_plate_reader_and_a_loader_loads_only_its_kinds(tmp_path: Path) -> None:
    """In a lab, "the plate" named the plate reader ('plate' qualifies a reader) and never a microplate (one word
    that ends in it); a loader for readers and incubators loaded a plate into the reservoir; "twice" after a
    transfer filled its mix cycles."""
    planner, world = _lab(tmp_path)
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("load the plate into the plate reader", world)  # two microplates here: which?
    assert (refused.value.kind, set(refused.value.candidates)) == (RefusalKind.AMBIGUOUS, {"mp3", "mp9"})
    assert _calls(planner.plan("load the clear plate into the plate reader", world)) == [
        ("lab/load_plate", {"plate": "mp3", "instrument": "pr1"})
    ]
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("put mp3 in the reservoir", world)
    assert refused.value.kind in (RefusalKind.NOT_AFFORDED, RefusalKind.MISSING_SKILL)
    twice = _calls(planner.plan("pipette 10 ul from res1 into mp3 twice", world))
    assert twice == [("lab/pipette", {"source": "res1", "destination": "mp3", "volume": 10.0})] * 2


def test_go_home_is_a_skill_that_claims_it_and_a_bare_number_names_nothing(tmp_path: Path) -> None:
    """A hospital courier's "go home" was an empty plan (the arm's home pose held) while its return-to-dock skill
    lists "go home" as its own phrase; and "pull up to 9" took parcel_9 by the end of its id."""
    planner, world = _warehouse(tmp_path)
    assert _calls(planner.plan("go home", world)) == [("wh/return_to_dock", {})]
    with pytest.raises(PlannerRefused):
        planner.plan("count 7", world)
    assert _calls(planner.plan("count tote 7", world)) == [("wh/cycle_count", {"location": "tote_7"})]


def test_a_kind_is_named_by_what_it_is_not_by_a_word_that_qualifies_it(tmp_path: Path) -> None:
    """A pipette for tubes dispensed into a tube rack, and a restaurant's serve for dishes served into the dish
    pit: a skill's ``objects`` name a kind by its last word (a tube rack is a rack; a plate reader a reader)."""
    planner, world = _lab(tmp_path)
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("pipette 10 ul from res1 into tr1", world)
    assert refused.value.kind is RefusalKind.NOT_AFFORDED
    assert _calls(planner.plan("load mp3 into the plate reader", world)) == [
        ("lab/load_plate", {"plate": "mp3", "instrument": "pr1"})
    ]


def test_a_kind_and_a_number_name_the_one_id_of_that_kind_ending_in_it(tmp_path: Path) -> None:
    """A restaurant's "table 4" named nothing where the table's id is t4, nor a lab's "bench 2" bench2: the one
    object of the kind said whose id ends in the number said is it; a number that two of the kind end in is not."""
    planner, world = _lab(tmp_path)
    assert _calls(planner.plan("load the clear plate into reader 1", world)) == [
        ("lab/load_plate", {"plate": "mp3", "instrument": "pr1"})
    ]
    assert match_objects("bench two", world).ids == ("bench2",)
    assert match_objects("the bench 2", world).ids == ("bench2",)
    assert match_objects("bench 3", world).ids == ()

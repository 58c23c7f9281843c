"""Faithfulness rules 6-13 (``llm/model/faithful_details.py``): model plans the earlier rules let through.

Each wrong plan of rules 6-9 is one SmolLM2 made in rewrite mode on a blind task
(``benchmarks/rewrite_modes.py``); rules 10 and 11 (clauses done out of turn, or interleaved) are ones no earlier rule
could see.
Each right plan beside it is what the task asks, and stays faithful.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from bt_executive.llm.eval.eval_robots import EvalRobot, load_robot
from bt_executive.llm.model.faithfulness import check_faithful
from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.fixture(scope="module")
def robots() -> dict[str, EvalRobot]:
    tuned = {"tabletop": GOLDEN / "planner_tasks.yaml"}
    return {n: load_robot(GOLDEN / "robots" / n, tuned=tuned.get(n)) for n in ("tabletop", "home", "inspection")}


def _problems(robot: EvalRobot, task: str, *calls: tuple[str, Mapping[str, object]]) -> tuple[str, ...]:
    plan = Plan(steps=tuple(SkillCall.model_validate({"skill": s, "args": a}) for s, a in calls))
    return check_faithful(plan, task, robot.world, robot.registry).problems


WIPE_COUNTER = ("cleaning/wipe_table", {"surface": "counter"})


def test_a_call_made_three_times_for_a_task_that_asks_once_is_unfaithful(robots: dict[str, EvalRobot]) -> None:
    task = "Crumbs on the counter attract ants, so before you finish for the day, wipe the counter down."
    home = robots["home"]
    assert [p for p in _problems(home, task, *[WIPE_COUNTER] * 3) if "made 3 times" in p] != []
    assert _problems(home, task, WIPE_COUNTER) == ()


def test_a_repetition_the_task_says_is_faithful(robots: dict[str, EvalRobot]) -> None:
    home = robots["home"]
    assert _problems(home, "wipe the counter down twice", WIPE_COUNTER, WIPE_COUNTER) == ()
    assert _problems(home, "wipe the counter, then wipe it again", WIPE_COUNTER, WIPE_COUNTER) == ()


def test_numbers_the_plan_drops_make_it_unfaithful(robots: dict[str, EvalRobot]) -> None:
    task = "Would you clear the kitchen table, give it two wipes, and then lay it for four?"
    problems = _problems(robots["home"], task, ("kitchen/clear_table", {"table": "kitchen_table"}))
    assert [p for p in problems if "'two'" in p or "'four'" in p] == [
        "the task says 'two' (in 'give it two wipes'), which no step uses",
        "the task says 'four' (in 'lay it for four'), which no step uses",
    ]


def test_numbers_that_name_objects_or_count_them_are_not_dropped(robots: dict[str, EvalRobot]) -> None:
    inspection = robots["inspection"]
    approach = ("nav/approach_object", {"object": "pump_2"})
    assert [p for p in _problems(inspection, "go up to pump two", approach) if "which no step uses" in p] == []
    tabletop = robots["tabletop"]
    in_bowl = ("tabletop/place_on", {"target": "bowl"})
    calls = [("tabletop/pick", {"object": "red_cube"}), in_bowl, ("tabletop/pick", {"object": "green_cube"}), in_bowl]
    assert [p for p in _problems(tabletop, "put the two cubes in the bowl", *calls) if "'two'" in p] == []


def test_a_placement_made_the_wrong_way_round_is_unfaithful(robots: dict[str, EvalRobot]) -> None:
    tabletop = robots["tabletop"]
    task = "Kindly keep the green cube on top of the red cube."
    backwards = _problems(
        tabletop, task, ("tabletop/pick", {"object": "red_cube"}), ("tabletop/place_on", {"target": "green_cube"})
    )
    right = _problems(
        tabletop, task, ("tabletop/pick", {"object": "green_cube"}), ("tabletop/place_on", {"target": "red_cube"})
    )
    assert ([p for p in backwards if "the task says green_cube on red_cube" in p], right) == (
        ["the plan ends with red_cube on green_cube; the task says green_cube on red_cube"],
        (),
    )


def test_a_placement_the_wrong_way_round_is_unfaithful_when_the_task_names_objects_by_id(
    robots: dict[str, EvalRobot],
) -> None:
    """ "stack green_cube on top of red_cube": the ids are said as their phrases ("green cube"), so the
    relation between them was not seen and both orders were faithful (refused as ambiguous)."""
    tabletop = robots["tabletop"]
    task = "Test 4: stack green_cube on top of red_cube in one motion."
    backwards = _problems(tabletop, task, ("tabletop/stack", {"object": "red_cube", "base": "green_cube"}))
    right = _problems(tabletop, task, ("tabletop/stack", {"object": "green_cube", "base": "red_cube"}))
    assert ([p for p in backwards if "the task says green_cube on red_cube" in p], right) == (
        ["the plan ends with red_cube on green_cube; the task says green_cube on red_cube"],
        (),
    )


def test_a_clause_naming_what_a_skill_makes_needs_that_skill(robots: dict[str, EvalRobot]) -> None:
    task = "Go to the boiler room, snap one photo there, then come back to the control room."
    go = [("nav/navigate_to", {"location": "boiler_room"}), ("nav/navigate_to", {"location": "control_room"})]
    inspection = robots["inspection"]
    skipped = _problems(inspection, task, *go)
    with_photo = _problems(inspection, task, go[0], ("inspect/take_photo", {}), go[1])
    assert ([p for p in skipped if "snap one photo there" in p] != [], with_photo) == (True, ())


def test_a_count_the_call_takes_as_its_argument_is_no_repetition(robots: dict[str, EvalRobot]) -> None:
    scan = ("inspect/scan_shelf", {"shelf": "shelf_a", "levels": 4})
    problems = _problems(robots["inspection"], "3) Stock count on shelf_a, 4 levels.", scan, scan, scan)
    assert [p for p in problems if "made 3 times" in p] != []


def test_an_option_the_task_says_is_not_left_at_its_default(robots: dict[str, EvalRobot]) -> None:
    task = "From where you are standing, you try reading the barcode on label L4."
    inspection = robots["inspection"]
    left = _problems(inspection, task, ("inspect/read_label", {"object": "label_l4"}))
    taken = _problems(inspection, task, ("inspect/read_label", {"object": "label_l4", "code": "barcode"}))
    assert (left, taken) == (("step 1 read_label(label_l4): code any, but the task says barcode",), ())


def test_an_empty_plan_for_a_task_that_asks_for_an_action_is_unfaithful(robots: dict[str, EvalRobot]) -> None:
    """SmolLM2's skill-call answer to this tuned task was an empty plan ("already done")."""
    home = robots["home"]
    assert _problems(home, "I'm handing you something, take it") != ()
    assert _problems(home, "I'm handing you something, take it", ("handover/receive_object", {})) == ()


def test_clauses_done_out_of_turn_are_unfaithful(robots: dict[str, EvalRobot]) -> None:
    tabletop = robots["tabletop"]
    red, green = ("tabletop/tap", {"object": "red_cube"}), ("tabletop/tap", {"object": "green_cube"})
    assert _problems(tabletop, "tap the red cube, then tap the green cube", green, red) == (
        "the task says 'tap the green cube' after 'tap the red cube', and the plan does it before "
        "(step 1 tap(green_cube) comes before step 2 tap(red_cube))",
    )
    assert _problems(tabletop, "tap the red cube, then tap the green cube", red, green) == ()
    # "before" says the order things happen in, whatever order they are said in
    assert _problems(tabletop, "before you tap the green cube, tap the red cube", red, green) == ()
    assert _problems(tabletop, "before you tap the green cube, tap the red cube", green, red) != ()


def test_one_step_may_serve_two_clauses_in_turn(robots: dict[str, EvalRobot]) -> None:
    inspection = robots["inspection"]
    read = ("inspect/read_gauge", {"gauge": "t3"})
    assert _problems(inspection, "whats the temp on the thermometer, can u read it", read) == ()


def test_going_back_to_a_clause_after_starting_the_next_is_unfaithful(robots: dict[str, EvalRobot]) -> None:
    tabletop = robots["tabletop"]
    red, blue = ("tabletop/tap", {"object": "red_cube"}), ("tabletop/tap", {"object": "blue_cube"})
    task = "tap red twice and blue once"  # the bare "blue once" asks for what the clause before it asked
    assert _problems(tabletop, task, red, blue, red) == (
        "the plan goes back to 'tap red twice' (step 3 tap(red_cube)) after starting 'blue once' "
        "(step 2 tap(blue_cube))",
    )
    assert _problems(tabletop, task, red, red, blue) == ()
    # the place on the plate serves both clauses: it belongs to neither alone
    put = "put the red cube on the plate and the blue cube on the plate"
    plan = [
        ("tabletop/pick", {"object": "red_cube"}),
        ("tabletop/place_on", {"target": "plate"}),
        ("tabletop/pick", {"object": "blue_cube"}),
        ("tabletop/place_on", {"target": "plate"}),
    ]
    assert _problems(tabletop, put, *plan) == ()


def test_a_request_no_verb_here_reads_makes_the_plan_of_the_rest_unfaithful(robots: dict[str, EvalRobot]) -> None:
    inspection = robots["inspection"]
    photo = ("inspect/take_photo", {"target": "pump_2"})
    # a small model restated this must-refuse task as "examine the blue pump": the report was dropped
    assert _problems(inspection, "examine the blue pump for cracks and report its condition", photo) == (
        "the task also says 'report its condition' (in 'examine the blue pump for cracks and report its "
        "condition'), which no verb of this robot reads",
    )
    assert _problems(inspection, "photograph the blue pump, then email it", photo) != ()
    # what a read returns is told, not a request of its own
    read = ("inspect/read_gauge", {"gauge": "t3"})
    assert _problems(inspection, "read t3 and report the reading", read) == ()
    assert _problems(inspection, "read the thermometer, then tell me the value", read) == ()


def test_a_phrase_described_by_a_relative_clause_names_the_one_it_describes(robots: dict[str, EvalRobot]) -> None:
    tabletop = robots["tabletop"]
    task = "Open please the drawer and put there the cube which is on the left of the red cube."
    plan = [
        ("tabletop/open_drawer", {}),
        ("tabletop/pick", {"object": "red_cube"}),
        ("tabletop/place_on", {"target": "green_cube"}),
    ]  # a restatement SmolLM2 made: the red cube is only named to say which cube
    assert "the task names 'cube left of red cube' (blue_cube), which no step uses" in _problems(tabletop, task, *plan)


def test_a_look_from_near_by_needs_an_approach_first(robots: dict[str, EvalRobot]) -> None:
    inspection = robots["inspection"]
    task = "7. Detail photo of boiler gauge dial face (check for cracked glass)."
    photo = ("inspect/take_photo", {"target": "boiler_gauge"})
    approach = ("nav/approach_object", {"object": "boiler_gauge"})
    assert _problems(inspection, task, photo) == (
        "step 1 take_photo(boiler_gauge): the task asks for 'detail photo of boiler gauge dial face' from near by, "
        "and no step approaches first",
    )
    assert _problems(inspection, task, approach, photo) == ()


def test_a_plan_that_drives_the_base_for_a_task_that_says_not_to_move_is_unfaithful(
    robots: dict[str, EvalRobot],
) -> None:
    inspection = robots["inspection"]
    task = "without moving from where you are, take a photo of the pump"
    photo = ("inspect/take_photo", {"target": "pump_2"})
    assert "the task says not to move, and step 1 approach_object(pump_2) moves the base" in _problems(
        inspection, task, ("nav/approach_object", {"object": "pump_2"}), photo
    )
    assert _problems(inspection, task, photo) == ()

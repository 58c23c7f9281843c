"""The restatement search: every sentence of a task's narrowed language planned and held against the task.

No model here: a search that settles a task asks none (the planner's api_base is a closed port, so any
request would end in a planner error, not the answers asserted). Sentences are this file's own, none from
an eval split.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from bt_executive.llm.eval.eval_robots import EvalRobot, load_robot
from bt_executive.llm.eval.planner_eval import Scenario
from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.llm.model.faithfulness import Faithfulness, check_faithful, view_steps
from bt_executive.llm.model.restatement_search import Restatements, faithful_restatements
from bt_executive.llm.model.rewrite_grammar import task_focus
from bt_executive.llm.model.rewrite_planner import RewritePlanner
from bt_executive.llm.model.task_reading import read_task
from bt_executive.llm.plan import Plan, PlannerRefused, RefusalKind
from bt_executive.llm.profiles import LLMProfile, load_llm_config
from bt_executive.skills.call import SkillCall
from bt_executive.skills.conditions import SymbolicState, apply_step
from bt_executive.skills.predicates import parse_predicate

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.fixture(scope="module")
def tabletop() -> EvalRobot:
    return load_robot(GOLDEN / "robots" / "tabletop", tuned=GOLDEN / "planner_tasks.yaml")


@pytest.fixture(scope="module")
def home() -> EvalRobot:
    return load_robot(GOLDEN / "robots" / "home")


@pytest.fixture(scope="module")
def inspection() -> EvalRobot:
    return load_robot(GOLDEN / "robots" / "inspection")


def _closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens once the socket is closed


def _planner(robot: EvalRobot) -> RewritePlanner:
    shipped = load_llm_config().profile("local-rewrite")
    profile = LLMProfile.model_validate({**shipped.model_dump(), "api_base": _closed_port(), "local_server": None})
    return RewritePlanner(profile, robot.registry)


def _search(robot: EvalRobot, task: str) -> Restatements:
    world = robot.world
    reading, focus = read_task(task, world, robot.registry), task_focus(task, world, robot.registry)
    return faithful_restatements(task, reading, focus, world, robot.registry, GrammarPlanner(robot.registry))


def _on(plan: Plan, robot: EvalRobot, thing: str, support: str) -> bool:
    """Whether ``thing`` rests on ``support`` once the plan's steps are imagined (as the plan check does)."""
    state = SymbolicState(robot.world)
    for step in plan.steps:
        apply_step(state, robot.registry.get(step.skill), step.args)
    return state.holds(parse_predicate(f"on({thing}, {support})"))


def test_a_task_with_one_faithful_meaning_is_planned_from_it_without_the_model(tabletop: EvalRobot) -> None:
    task = "i reckon the blue block belongs on the dish"
    assert AutoPlanner(tabletop.registry).asks_model(task, tabletop.world)  # the grammar cannot read it
    found = _search(tabletop, task)
    assert found.complete
    assert len(found.found) >= 1
    assert len(found.meanings(tabletop.world, tabletop.registry)) == 1  # a stack and a pick-and-place alike
    planner = _planner(tabletop)
    plan = planner.plan(task, tabletop.world)
    assert _on(plan, tabletop, "blue_cube", "plate")
    assert "no model call" in plan.notes
    assert planner.last_trace is not None
    assert planner.last_trace.requests == ()
    assert check_faithful(plan, task, tabletop.world, tabletop.registry).faithful


def test_a_task_no_sentence_restates_faithfully_is_refused_before_the_model_is_asked(tabletop: EvalRobot) -> None:
    task = "tap the red cube and then swap it with the green one"  # no command of the language swaps
    found = _search(tabletop, task)
    assert found.none_can_pass
    assert found.tried > 0
    planner = _planner(tabletop)
    with pytest.raises(PlannerRefused) as refused:
        planner.plan(task, tabletop.world)
    assert refused.value.kind is RefusalKind.MISSING_SKILL  # it names the cubes: a skill this robot lacks
    assert "no sentence of this robot's language" in refused.value.reason
    assert planner.last_trace is not None
    assert planner.last_trace.requests == ()


def test_faithful_plans_with_different_outcomes_are_refused_ambiguous_naming_them(tabletop: EvalRobot) -> None:
    task = "the red or the green cube into the bowl please"
    planner = _planner(tabletop)
    with pytest.raises(PlannerRefused) as refused:
        planner.plan(task, tabletop.world)
    assert refused.value.kind is RefusalKind.AMBIGUOUS
    assert "'put the red cube" in refused.value.reason
    assert "'put the green cube" in refused.value.reason
    assert len(planner.last_rewrites) == 2
    # which did you mean? Each candidate is a task of its own, and says one meaning: planned as it is
    assert refused.value.candidates == planner.last_rewrites
    chosen = [planner.plan(sentence, tabletop.world) for sentence in refused.value.candidates]
    assert {plan.steps[0].args["object"] for plan in chosen} == {"red_cube", "green_cube"}


def test_a_skill_taking_no_object_is_not_a_meaning_of_a_task_naming_none_of_its_objects(home: EvalRobot) -> None:
    # "take it" reads as a load of the dishwasher too, but that acts on the dishwasher and the mugs
    plan = _planner(home).plan("i'm holding something out for you, take it", home.world)
    assert [s.skill for s in plan.steps] == ["handover/receive_object"]


def test_either_of_two_objects_is_one_of_them_not_both(tabletop: EvalRobot) -> None:
    task = "the red or the green cube into the bowl please"
    world, registry = tabletop.world, tabletop.registry
    grammar = GrammarPlanner(registry)
    one = grammar.plan("put the green cube in the bowl", world)
    both = grammar.plan("put all the cubes in the bowl", world)
    assert check_faithful(one, task, world, registry).faithful
    verdict = check_faithful(both, task, world, registry)
    assert any("names one of them" in p for p in verdict.problems), verdict.problems
    meanings = _search(tabletop, task).meanings(world, registry)
    assert len(meanings) == 2  # the red one or the green one: the planner asks which


def test_a_question_of_which_state_holds_asks_for_a_report_no_skill_makes(inspection: EvalRobot) -> None:
    task = "look at the yellow valve, is it open or closed"
    reading = read_task(task, inspection.world, inspection.registry)
    assert "is it open or closed" in {u for c in reading.clauses for u in c.unread}
    photo = GrammarPlanner(inspection.registry).plan("take a look at the yellow valve", inspection.world)
    assert not check_faithful(photo, task, inspection.world, inspection.registry).faithful
    assert (
        not read_task("open the door if it is shut or stuck", inspection.world, inspection.registry).clauses[0].unread
    )


def test_an_opaque_id_said_alone_names_its_object(inspection: EvalRobot) -> None:
    reading = read_task("have a look at v12, something is off with it", inspection.world, inspection.registry)
    assert "v12" in {i for m in reading.mentions for i in m.ids}


def test_a_language_too_large_to_search_is_left_to_the_model(tabletop: EvalRobot) -> None:
    found = _search(
        tabletop, "push the red cube, the green cube and the blue cube about a bit then tap them"
    )  # 3 objects, 3 commands
    assert not found.complete
    assert not found.none_can_pass


def test_a_task_asking_for_nothing_a_skill_does_is_refused_with_no_search_and_no_model(tabletop: EvalRobot) -> None:
    task = "the green cube, I would love it sitting in the bowl"  # no verb the lexicon knows: rule 3 fails every plan
    found = _search(tabletop, task)
    assert (found.none_can_pass, found.tried) == (True, 0)
    with pytest.raises(PlannerRefused) as refused:
        _planner(tabletop).plan(task, tabletop.world)  # a closed port: a model request would be a planner error
    assert refused.value.kind is RefusalKind.MISSING_SKILL
    assert "no verb the lexicon knows" in refused.value.reason


def test_the_search_says_once_and_early_that_it_cannot_try_every_sentence(tabletop: EvalRobot) -> None:
    planner = _planner(tabletop)
    calls: list[int] = []
    found = planner.search(
        "push the red cube, the green cube and the blue cube about a bit then tap them",
        tabletop.world,
        on_incomplete=lambda: calls.append(1),
    )
    assert (found.complete, len(calls)) == (False, 1)
    settled = planner.search("put the red cube on the plate", tabletop.world, on_incomplete=lambda: calls.append(2))
    assert (settled.complete, calls) == (True, [1])


def test_a_step_that_takes_no_object_acts_on_the_one_its_skill_names(inspection: EvalRobot) -> None:
    [step] = view_steps((SkillCall(skill="nav/undock"),), inspection.world, inspection.registry)
    assert step.acted == ("charging_dock",)


def test_a_step_that_takes_no_object_may_not_act_on_what_the_task_never_names(home: EvalRobot) -> None:
    task = "that fridge sits too near the wall, lift it and set it down further out"
    plan = Plan(
        steps=(SkillCall(skill="handover/fetch", args={"object": "fridge"}), SkillCall(skill="kitchen/load_dishwasher"))
    )
    verdict = check_faithful(plan, task, home.world, home.registry)
    assert any("load_dishwasher() acts on" in p and "none of which the task names" in p for p in verdict.problems)


def _labels(plan: Plan) -> list[str]:
    return [step.label() for step in plan.steps]


def test_going_to_a_named_room_to_photograph_it_is_an_inserted_step_and_one_to_an_unnamed_room_is_not(
    inspection: EvalRobot,
) -> None:
    world, registry = inspection.world, inspection.registry
    there = Plan(
        steps=(
            SkillCall(skill="nav/navigate_to", args={"location": "pump_house"}),
            SkillCall(skill="inspect/take_photo"),
        )
    )
    task = "i'd like a picture of the pump house, send it over"
    verdict = check_faithful(there, task, world, registry)
    assert verdict.faithful, verdict.problems
    assert any("to bring the robot to pump_house for step 2" in i for i in verdict.inserted)
    elsewhere = there.model_copy(
        update={"steps": (SkillCall(skill="nav/navigate_to", args={"location": "boiler_room"}), there.steps[1])}
    )
    assert not check_faithful(elsewhere, task, world, registry).faithful  # the boiler room is never named


def test_a_one_letter_word_of_an_id_is_no_name_on_its_own(inspection: EvalRobot) -> None:
    # shelf_a's words are "shelf" and "a": "a picture" names no shelf
    for task in ("pump house, send me a pic, thanks", "get a proper look at the pump house"):
        reading = read_task(task, inspection.world, inspection.registry)
        assert [m.phrase for m in reading.mentions] == ["pump house"], task


def test_right_now_and_right_away_say_no_side(tabletop: EvalRobot) -> None:
    for task in ("tap the red cube right now please", "the blue cube needs a tap right away"):
        reading = read_task(task, tabletop.world, tabletop.registry)
        assert reading.directions == (), task
    assert read_task("nudge the red cube to the right", tabletop.world, tabletop.registry).directions == ("right",)


def test_right_and_a_comma_before_a_request_says_no_side(inspection: EvalRobot) -> None:
    assert read_task("Right, shadow me then.", inspection.world, inspection.registry).directions == ()


def test_a_step_said_to_come_in_between_must_come_between(tabletop: EvalRobot) -> None:
    task = "could you tap the green cube three times and wait one second in between the taps"
    world, registry = tabletop.world, tabletop.registry
    tap = SkillCall(skill="tabletop/tap", args={"object": "green_cube"})
    wait = SkillCall(skill="builtin/wait", args={"seconds": 1.0})
    between = check_faithful(Plan(steps=(tap, wait, tap, wait, tap)), task, world, registry)
    after = check_faithful(Plan(steps=(tap, tap, tap, wait)), task, world, registry)
    assert between.faithful, between.problems
    assert any("between the steps of" in p for p in after.problems), after.problems


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        # a count said with a plural noun: "N times"
        ("so yeah, grab me four pictures of the boiler gauge, cheers", ["take_photo(boiler_gauge)"] * 4),
        # places listed for a skill that takes a list, with a count of loops
        ("evening round - boiler room, pump house - 5 loops", ["patrol(…, 5)"]),
        # an option of a parameter that the task says
        ("read me label l4, it's a qr", ["read_label(label_l4, qr)"]),
        # a look from near by: the approach first
        (
            "the fire extinguisher needs documenting, a close-up picture please",
            ["approach_object(fire_extinguisher)", "take_photo(fire_extinguisher)"],
        ),
        # a photo at a place: going there first, then back
        (
            "roll over to the pump house, snap a pic, and come back to the control room after",
            ["navigate_to(pump_house)", "take_photo()", "navigate_to(control_room)"],
        ),
    ],
)
def test_the_language_says_counts_lists_options_closeness_and_a_photo_at_a_place(
    inspection: EvalRobot, task: str, expected: list[str]
) -> None:
    meanings = _search(inspection, task).meanings(inspection.world, inspection.registry)
    assert [_labels(plan) for _, plan, _ in meanings] == [expected]


@pytest.mark.parametrize(
    ("task", "scenario", "expected"),
    [
        # an amount after a form: the grammar binds it to the parameter of its kind
        (
            "tip what you hold over the bowl, 60 degrees is enough",
            {"holding": "blue_cube"},
            ["pour(blue_cube, bowl, 60.0)"],
        ),
        ("drop it onto the plate from 1 cm above please", {"holding": "green_cube"}, ["place_on(plate, 0.01)"]),
    ],
)
def test_the_language_says_an_amount_after_any_form(
    tabletop: EvalRobot, task: str, scenario: dict[str, Any], expected: list[str]
) -> None:
    world = Scenario.model_validate(scenario).apply(tabletop.world)
    searched = faithful_restatements(
        task,
        read_task(task, world, tabletop.registry),
        task_focus(task, world, tabletop.registry),
        world,
        tabletop.registry,
        GrammarPlanner(tabletop.registry),
    )
    assert [_labels(plan) for _, plan, _ in searched.meanings(world, tabletop.registry)] == [expected]


def test_a_clause_saying_how_long_it_lasts_asks_for_a_wait(tabletop: EvalRobot, inspection: EvalRobot) -> None:
    meanings = _search(tabletop, "sit tight for 3 seconds, then tap the red cube").meanings(
        tabletop.world, tabletop.registry
    )
    assert [_labels(plan) for _, plan, _ in meanings] == [["wait(3.0)", "tap(red_cube)"]]
    # a skill the clause asks for takes the time itself: no wait
    reading = read_task("tag along behind me for 2 minutes", inspection.world, inspection.registry)
    assert "builtin/wait" not in reading.skills


def test_a_robot_said_to_be_docked_undocks_first(inspection: EvalRobot) -> None:
    meanings = _search(inspection, "still docked? then walk behind me").meanings(inspection.world, inspection.registry)
    assert [_labels(plan) for _, plan, _ in meanings] == [["undock()", "follow_person()"]]


def test_a_heading_over_a_bare_list_says_what_the_list_asks_for(inspection: EvalRobot) -> None:
    meanings = _search(inspection, "Weekend round: corridor b and control room, 4 laps").meanings(
        inspection.world, inspection.registry
    )
    assert [[s.args for s in plan.steps] for _, plan, _ in meanings] == [
        [{"waypoints": ["corridor_b", "control_room"], "loops": 4}]
    ]
    # under a heading, a clause that asks for something by its own verb is what is asked: the heading is not
    reading = read_task("Morning round: take a photo of the pump house", inspection.world, inspection.registry)
    assert [c.text for c in reading.clauses] == ["take a photo of the pump house"]


def test_commands_no_earlier_step_can_make_possible_leave_the_search(tabletop: EvalRobot) -> None:
    task = "grab the green block; tip it into the bowl at 60 deg, and then set it down on the plate"
    searched = _search(tabletop, task)
    assert searched.complete, "a put of the plate or of a cube onto itself is never possible: not searched"
    assert [_labels(plan) for _, plan, _ in searched.meanings(tabletop.world, tabletop.registry)] == [
        ["pick(green_cube)", "pour(green_cube, bowl, 60.0)", "place_on(plate)"]
    ]


def test_a_skill_taking_an_object_and_where_it_goes_is_said_with_into(home: EvalRobot) -> None:
    meanings = _search(home, "once we have eaten, everything on the kitchen table goes into the dishwasher").meanings(
        home.world, home.registry
    )
    assert [[(s.skill, s.args) for s in plan.steps] for _, plan, _ in meanings] == [
        [("kitchen/clear_table", {"table": "kitchen_table", "destination": "dishwasher"})]
    ]


def test_a_put_read_from_a_relation_beside_a_thing_not_here_is_no_put(home: EvalRobot) -> None:
    reading = read_task("light the lanterns on the table", home.world, home.registry)
    assert "the lanterns" in [m.phrase for m in reading.mentions if not m.ids]
    assert _search(home, "light the lanterns on the table").meanings(home.world, home.registry) == []


@pytest.mark.parametrize(
    ("task", "order"),
    [
        ("tap every cube once, blue then red then green", ["blue_cube", "red_cube", "green_cube"]),
        ("give each cube a single tap, green then blue then red", ["green_cube", "blue_cube", "red_cube"]),
    ],
)
def test_past_the_bound_the_chains_in_the_tasks_order_are_tried_and_kept_in_it(
    tabletop: EvalRobot, task: str, order: list[str]
) -> None:
    meanings = _search(tabletop, task).meanings(tabletop.world, tabletop.registry)
    assert [_labels(plan) for _, plan, _ in meanings] == [[f"tap({obj})" for obj in order]]


def test_an_opaque_word_of_an_id_names_its_object_beside_its_kind(inspection: EvalRobot) -> None:
    reading = read_task("need the qr on l4 read", inspection.world, inspection.registry)
    assert ("label_l4",) in [m.ids for m in reading.mentions]


def test_a_look_from_close_at_a_distance_approaches_to_that_distance(inspection: EvalRobot) -> None:
    meanings = _search(inspection, "picture of the fire extinguisher from close, 40 cm").meanings(
        inspection.world, inspection.registry
    )
    assert [_labels(plan) for _, plan, _ in meanings] == [
        ["approach_object(fire_extinguisher, 0.4)", "take_photo(fire_extinguisher)"]
    ]


def test_an_object_said_to_be_where_the_world_has_it_locates_and_need_not_be_used(inspection: EvalRobot) -> None:
    reading = read_task("scan l4 on shelf a for me", inspection.world, inspection.registry)
    assert [m.required for m in reading.mentions if m.ids == ("shelf_a",)] == [False]
    # where the world does not have it there, the second object is asked for too
    reading = read_task("scan v12 on shelf a for me", inspection.world, inspection.registry)
    assert [m.required for m in reading.mentions if m.ids == ("shelf_a",)] == [True]


def test_a_step_in_between_repeats_makes_room_for_each_repeat(tabletop: EvalRobot) -> None:
    task = "poke the green cube 2 times and pause for 3 seconds in between the pokes"
    meanings = _search(tabletop, task).meanings(tabletop.world, tabletop.registry)
    assert [_labels(plan) for _, plan, _ in meanings] == [["tap(green_cube)", "wait(3.0)", "tap(green_cube)"]]


def test_a_follow_phrase_that_needs_its_person_is_said_with_me(inspection: EvalRobot) -> None:
    meanings = _search(inspection, "would you mind tagging along behind me for a while").meanings(
        inspection.world, inspection.registry
    )
    assert [_labels(plan) for _, plan, _ in meanings] == [["follow_person()"]]


def test_plans_that_reach_the_same_place_differently_are_different_meanings(home: EvalRobot) -> None:
    def drive(speed: float | None) -> Plan:
        args: dict[str, Any] = {"location": "kitchen"} if speed is None else {"location": "kitchen", "speed": speed}
        return Plan(steps=(SkillCall(skill="nav/navigate_to", args=args),))

    found = Restatements(
        found=(("default", drive(None), Faithfulness()), ("slow", drive(0.3), Faithfulness())), complete=True, tried=2
    )
    assert [s for s, _, _ in found.meanings(home.world, home.registry)] == ["default", "slow"]


def test_the_kitchen_is_the_room_not_the_kitchen_table(home: EvalRobot) -> None:
    reading = read_task("head for the kitchen, would you", home.world, home.registry)
    assert [m.ids for m in reading.mentions] == [("kitchen",)]
    table = read_task("wipe the kitchen table down", home.world, home.registry)
    assert [m.ids for m in table.mentions] == [("kitchen_table",)]


def test_a_command_that_puts_down_what_the_gripper_holds_acts_on_it_in_the_search(home: EvalRobot) -> None:
    # The mug is in the gripper: "put the red mug in the bin" names only the bin in its calls, yet it
    # acts on the mug, which the task names, so the one-command restatement is tried and found.
    world = Scenario(holding="m7").apply(home.world)
    task = "that red mug I'm done with, could you pop it in the bin"
    reading = read_task(task, world, home.registry)
    focus = task_focus(task, world, home.registry, reading=reading)
    found = faithful_restatements(task, reading, focus, world, home.registry, GrammarPlanner(home.registry))
    meanings = found.meanings(world, home.registry)
    assert [_labels(plan) for _, plan, _ in meanings] == [["approach_object(bin)", "place_in(bin)"]]


def test_the_same_speed_again_is_that_speed_on_the_later_step_too(home: EvalRobot) -> None:
    task = "head to the kitchen at 0.4 metres per second, and after that the hallway, at the same speed"
    world, registry = home.world, home.registry

    def drive(kitchen: float | None, hallway: float | None) -> Plan:
        steps = []
        for place, speed in (("kitchen", kitchen), ("hallway", hallway)):
            args: dict[str, Any] = {"location": place} if speed is None else {"location": place, "speed": speed}
            steps.append(SkillCall(skill="nav/navigate_to", args=args))
        return Plan(steps=tuple(steps))

    assert check_faithful(drive(0.4, 0.4), task, world, registry).faithful
    assert not check_faithful(drive(0.4, None), task, world, registry).faithful
    assert not check_faithful(drive(None, 0.4), task, world, registry).faithful


def test_of_restatements_alike_in_outcome_the_one_in_the_tasks_verb_is_planned(tabletop: EvalRobot) -> None:
    """ "stack green_cube on top of red_cube in one motion": a put and a stack end alike, and the task says
    stack; the put was planned (a pick and a place), which the task did not ask for."""
    task = "Test 4: stack green_cube on top of red_cube in one motion."
    meanings = _search(tabletop, task).meanings(tabletop.world, tabletop.registry)
    assert [(s, [c.label() for c in p.steps]) for s, p, _ in meanings] == [
        ("stack the green cube on the red cube", ["stack(green_cube, red_cube)"])
    ]

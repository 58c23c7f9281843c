"""How people write, read by the grammar planner: one example per rule, on the eval robots' worlds.

Each rule is general (a lexicon list or a grammar form), not the sentence: the blind splits
(tests/golden/robots/*/blind.yaml) hold more of each, written by people who never read the grammar.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.llm.eval.eval_robots import EvalRobot, load_robot
from bt_executive.llm.eval.planner_eval import Scenario
from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.language.clause_split import normalise_task
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.llm.plan import PlannerError, PlannerRefused, RefusalKind
from bt_executive.skills.world_state import WorldState

GOLDEN = Path(__file__).parents[1] / "golden"


@pytest.fixture(scope="module")
def robots() -> dict[str, EvalRobot]:
    tuned = {"tabletop": GOLDEN / "planner_tasks.yaml"}
    return {n: load_robot(GOLDEN / "robots" / n, tuned=tuned.get(n)) for n in ("tabletop", "home", "inspection")}


def _labels(robot: EvalRobot, task: str, world: WorldState | None = None) -> list[str]:
    plan = AutoPlanner(robot.registry).plan(task, world or robot.world)
    return [f"{s.skill.split('/')[-1]}({', '.join(f'{k}={v}' for k, v in s.args.items())})" for s in plan.steps]


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # a presenter's third person, and what is done "for you" or "all by itself"
        ("tabletop", "Let's have it grab the blue cube for you.", ["pick(object=blue_cube)"]),
        ("tabletop", "watch as it pushes the red cube left", ["push(object=red_cube, direction=left)"]),
        (
            "tabletop",
            "For my next trick, the robot will open that drawer all by itself.",
            ["open_drawer(drawer=drawer)"],
        ),
        # a part of an object said before it
        ("tabletop", "the robot will gently touch the top of the bowl", ["tap(object=bowl)"]),
        # informal spellings and politeness around the request
        ("tabletop", "pls pick up teh green box", ["pick(object=green_cube)"]),
        (
            "tabletop",
            "would you mind putting the green block into the bowl for me? thanks!",
            ["pick(object=green_cube)", "place_on(target=bowl)"],
        ),
        # a statement says what 'it' means
        ("home", "the bin is full, empty it please", ["empty_trash(bin=bin)"]),
        # a request said as what needs doing
        ("home", "the living room floor needs vacuuming", ["vacuum_floor(zone=living_room)"]),
        # a count no parameter takes repeats the call
        ("tabletop", "tap red x3", ["tap(object=red_cube)"] * 3),
        # a position, not a direction
        (
            "tabletop",
            "the block furthest to the left goes on the plate",
            ["pick(object=blue_cube)", "place_on(target=plate)"],
        ),
        # a skill that needs no object, asked at a place: go there first
        ("inspection", "photograph the control room", ["navigate_to(location=control_room)", "take_photo()"]),
        # a list put 'inside' goes inside what came before it, each one
        (
            "tabletop",
            "open drawer, put the red cube and the green cube inside",
            [
                "open_drawer(drawer=drawer)",
                "pick(object=red_cube)",
                "place_on(target=drawer)",
                "pick(object=green_cube)",
                "place_on(target=drawer)",
            ],
        ),
        # an amount said without a number is the skill's own
        ("tabletop", "push the red cube forward a little bit", ["push(object=red_cube, direction=forward)"]),
        # a light verb and its noun ("give a push to") mean the verb
        ("tabletop", "give a gentle push to the red cube to the left", ["push(object=red_cube, direction=left)"]),
        # seeking an object first names what 'it' means
        ("tabletop", "locate the blue cube, then push it left", ["push(object=blue_cube, direction=left)"]),
        # a reason run on after the object, with no comma
        (
            "home",
            "close the front door theres a draft",
            ["approach_object(object=front_door)", "close_door(door=front_door)"],
        ),
        # an id said outright; a skill asked for by name
        ("home", "return to charging dock id 'dock'", ["dock(dock=dock)"]),
        ("home", "Execute undock.", ["undock()"]),
        ("inspection", "perform a scan of shelf_a", ["scan_shelf(shelf=shelf_a)"]),
        # politeness that stands as a clause of its own
        (
            "home",
            "I wonder if you might close the fridge for me, if it isn't too much bother.",
            ["approach_object(object=fridge)", "close_cabinet(cabinet=fridge)"],
        ),
        # a count without 'the' asks for any that many (the nearest); 'the others' are those not named yet
        (
            "tabletop",
            "put two cubes on the plate",
            [
                "pick(object=green_cube)",
                "place_on(target=plate)",
                "pick(object=red_cube)",
                "place_on(target=plate)",
            ],
        ),
        (
            "tabletop",
            "put the blue cube in the bowl, then the rest of the cubes on the plate",
            [
                "pick(object=blue_cube)",
                "place_on(target=bowl)",
                "pick(object=green_cube)",
                "place_on(target=plate)",
                "pick(object=red_cube)",
                "place_on(target=plate)",
            ],
        ),
        # a photo or a reading asked for by its noun alone; a tight or detail shot is taken from near by
        ("inspection", "snap boiler_gauge", ["take_photo(target=boiler_gauge)"]),
        ("inspection", "chk p7 reading", ["read_gauge(gauge=p7)"]),
        (
            "inspection",
            "get me a tight shot of pump two",
            ["approach_object(object=pump_2)", "take_photo(target=pump_2)"],
        ),
        ("inspection", "what temperature is the thermometer showing right now", ["read_gauge(gauge=t3)"]),
        # whom the words are for, and a radio caller saying who speaks
        (
            "tabletop",
            "Arm, this is Ops. Push the red cube three centimetres forward, then two centimetres to the right. Over.",
            [
                "push(object=red_cube, direction=forward, distance=0.03)",
                "push(object=red_cube, direction=right, distance=0.02)",
            ],
        ),
        # a repetition of the clause before: to the skill's count where it has one, else the calls again
        (
            "tabletop",
            "Nudge the blue cube back towards you by 15 mm. Do that twice.",
            ["push(object=blue_cube, direction=back, distance=0.015)"] * 2,
        ),
        (
            "inspection",
            "patrol the control room then corridor b and do that twice",
            ["patrol(waypoints=['control_room', 'corridor_b'], loops=2)"],
        ),
        # arrows between commands; a state asked for ("get it open"); "make it go inside"
        (
            "tabletop",
            "open drawer -> wait 5 s -> close drawer",
            ["open_drawer(drawer=drawer)", "wait(seconds=5.0)", "close_drawer(drawer=drawer)"],
        ),
        ("tabletop", "Get the drawer open, please.", ["open_drawer(drawer=drawer)"]),
        (
            "tabletop",
            "Please to make the blue cube go inside of the white bowl.",
            ["pick(object=blue_cube)", "place_on(target=bowl)"],
        ),
        (
            "tabletop",
            "Okay sweetie, the red block and the green block BOTH go in the white bowl, can you do that?",
            ["pick(object=red_cube)", "place_on(target=bowl)", "pick(object=green_cube)", "place_on(target=bowl)"],
        ),
        # waits said as a state kept, "a minute", and "w/"
        (
            "home",
            "Turn the light on, leave it 10 seconds, then turn it off again.",
            [
                "approach_object(object=s1)",
                "flip_switch(switch=s1, state=on)",
                "wait(seconds=10.0)",
                "flip_switch(switch=s1, state=off)",
            ],
        ),
        (
            "home",
            "Go stand 60 cm from the dishwasher and stay put for a minute.",
            ["approach_object(object=dishwasher, standoff=0.6)", "wait(seconds=60.0)"],
        ),
        (
            "home",
            "undock w/ 80 cm clearance, then nav to kitchen",
            ["undock(clearance=0.8)", "navigate_to(location=kitchen)"],
        ),
        # what is presented ("there's a draught") asks for nothing
        ("home", "There's a draught, shut the brown door.", ["approach_object(object=d2)", "close_door(door=d2)"]),
        ("home", "Would you mind swinging by the hallway?", ["navigate_to(location=hallway)"]),
        # a unit for each reading, said apart; a look from a stated distance; rounds and shadowing
        ("inspection", "read p7 and t3, in bar", ["read_gauge(gauge=p7, unit=bar)", "read_gauge(gauge=t3, unit=bar)"]),
        (
            "inspection",
            "drive up to p7, read it in psi",
            ["approach_object(object=p7)", "read_gauge(gauge=p7, unit=psi)"],
        ),
        (
            "inspection",
            "Photograph the thermometer from half a metre away.",
            ["approach_object(object=t3, standoff=0.5)", "take_photo(target=t3)"],
        ),
        (
            "inspection",
            "Do the rounds of corridor B and the pump house.",
            ["patrol(waypoints=['corridor_b', 'pump_house'])"],
        ),
        ("inspection", "Shadow me.", ["follow_person()"]),
        # an order said for a plural; "once"; a checklist's label and a one-line numbered list
        (
            "tabletop",
            "Step 4 of the checklist: tap every cube once, going from your left to your right.",
            ["tap(object=blue_cube)", "tap(object=red_cube)", "tap(object=green_cube)"],
        ),
        (
            "tabletop",
            "1) open the drawer 2) put the red cube in it 3) close it",
            [
                "open_drawer(drawer=drawer)",
                "pick(object=red_cube)",
                "place_on(target=drawer)",
                "close_drawer(drawer=drawer)",
            ],
        ),
        # placements listed without verbs; what is left alone plans nothing
        (
            "tabletop",
            "Green cube into the bowl, red cube onto the plate. Leave the blue one where it is.",
            ["pick(object=green_cube)", "place_on(target=bowl)", "pick(object=red_cube)", "place_on(target=plate)"],
        ),
        # dictation's "too" for "two"; an amount named after it ("at a 60 degree tilt"); "tuck X away in Y"
        ("tabletop", "ok robot tap the blue cube too times", ["tap(object=blue_cube)"] * 2),
        (
            "tabletop",
            "Pick up the blue cube, pour it into the bowl at a 60 degree tilt, then set it down on the plate.",
            ["pick(object=blue_cube)", "pour(source=blue_cube, target=bowl, tilt_deg=60.0)", "place_on(target=plate)"],
        ),
        ("tabletop", "blue_cube on top of green_cube pls", ["pick(object=blue_cube)", "place_on(target=green_cube)"]),
        # a statement that the robot is on its charger: undock first
        (
            "inspection",
            "You're still sitting on the charger. Head over to the pump house.",
            ["undock()", "navigate_to(location=pump_house)"],
        ),
        # throwing away is discarding
        (
            "home",
            "throw the blue mug away",
            [
                "approach_object(object=blue_mug)",
                "pick(object=blue_mug)",
                "approach_object(object=bin)",
                "place_in(container=bin)",
            ],
        ),
        # a place said before the request: where its object is
        ("home", "in the kitchen, wipe the table", ["wipe_table(surface=kitchen_table)"]),
        (
            "home",
            "in the living room make the light on",
            ["approach_object(object=s1)", "flip_switch(switch=s1, state=on)"],
        ),
        # a light put or made on and off, whatever its room's words before it
        (
            "home",
            "be a pet and put the living room light off",
            ["approach_object(object=s1)", "flip_switch(switch=s1, state=off)"],
        ),
        # other names of a room: the world's region
        ("home", "go to the lounge", ["navigate_to(location=living_room)"]),
        ("home", "vacuum the hall", ["vacuum_floor(zone=hallway)"]),
        (
            "home",
            "switch off the front room light",
            ["approach_object(object=s1)", "flip_switch(switch=s1, state=off)"],
        ),
        ("inspection", "head to the control centre", ["navigate_to(location=control_room)"]),
        # a request written as a letter: its greeting and sign-off say nothing
        (
            "tabletop",
            "Dear robot, could you kindly tap the blue cube? Best regards, M. Okafor",
            ["tap(object=blue_cube)"],
        ),
        (
            "home",
            "Good morning, I would be grateful if you could bring me the blue mug. Thanks, Sam",
            ["fetch(object=blue_mug)"],
        ),
        # other words for a skill's option, before its noun or alone when they are a phrase
        ("home", "vacuum the kitchen on the quiet setting", ["vacuum_floor(zone=kitchen, power=eco)"]),
        ("home", "hoover the hallway on full whack", ["vacuum_floor(zone=hallway, power=max)"]),
        # a technician's words: an axis of the robot's frame (REP 103), a nav goal, a speed cap, a primitive
        ("tabletop", "Push the blue cube 80 mm in +X.", ["push(object=blue_cube, direction=forward, distance=0.08)"]),
        (
            "inspection",
            "nav goal pump house, cap linear vel at 0.5 m/s",
            ["navigate_to(location=pump_house, speed=0.5)"],
        ),
        ("tabletop", "Execute a tap primitive on the red cube.", ["tap(object=red_cube)"]),
        ("tabletop", "Actuate the drawer to the open position.", ["open_drawer(drawer=drawer)"]),
        # a learner's English: "during" a time, "in the hand", "read for me X"
        (
            "inspection",
            "Follow me during ten minutes, at a distance of 150 centimetres.",
            ["follow_person(max_duration_s=600.0, distance=1.5)"],
        ),
        ("home", "Please take the red cup in the hand.", ["approach_object(object=m7)", "pick(object=m7)"]),
        ("inspection", "Please read for me the black gauge.", ["read_gauge(gauge=p7)"]),
        # a child's wish to watch
        ("tabletop", "i wanna see you pick up the green block!!", ["pick(object=green_cube)"]),
        # hesitation: a filler's commas go with it
        (
            "home",
            "oh, um, empty the bin and then, er, vacuum the kitchen, sorry",
            ["empty_trash(bin=bin)", "vacuum_floor(zone=kitchen)"],
        ),
        (
            "tabletop",
            "could you maybe, like, hold still for, I dunno, forty-five seconds or so?",
            ["wait(seconds=45.0)"],
        ),
    ],
)
def test_a_way_of_writing_plans_as_meant(robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]) -> None:
    assert _labels(robots[robot], task) == steps


@pytest.mark.parametrize(
    ("robot", "task", "kind"),
    [
        ("home", "throw the blue mug at the door", RefusalKind.UNSAFE),  # not an idiom: still unsafe
        ("home", "lock the front door", RefusalKind.MISSING_SKILL),  # unread, names something here
        ("home", "order me a pizza online", RefusalKind.OUT_OF_SCOPE),
        ("tabletop", "flip the green cube upside down", RefusalKind.MISSING_SKILL),  # the object is there
        ("home", "i want the red mug, go home", None),  # a wish no later clause uses is not dropped
    ],
)
def test_what_it_cannot_read_is_refused_not_misplanned(
    robots: dict[str, EvalRobot], robot: str, task: str, kind: RefusalKind | None
) -> None:
    with pytest.raises(PlannerRefused) as err:
        AutoPlanner(robots[robot].registry).plan(task, robots[robot].world)
    if kind is not None:
        assert err.value.kind is kind


@pytest.mark.parametrize(
    ("task", "steps"),
    [
        ("pick up the red cube", ["open_drawer(drawer=drawer)", "pick(object=red_cube)"]),
        ("take the red cube out and put it on the plate", None),
        (
            "put the red cube on the plate",
            ["open_drawer(drawer=drawer)", "pick(object=red_cube)", "place_on(target=plate)"],
        ),
    ],
)
def test_what_lies_in_a_closed_drawer_is_picked_after_opening_it(
    robots: dict[str, EvalRobot], task: str, steps: list[str] | None
) -> None:
    robot = robots["tabletop"]
    world = Scenario(inside={"red_cube": "drawer"}).apply(robot.world)
    labels = _labels(robot, task, world)
    assert labels[:2] == ["open_drawer(drawer=drawer)", "pick(object=red_cube)"]
    if steps is not None:
        assert labels == steps


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # an amount said with the name of what it is goes to the parameter of that name
        ("home", "undock with a clearance of 120 cm", ["undock(clearance=1.2)"]),
        ("home", "approach the counter with a standoff of 300 mm", ["approach_object(object=counter, standoff=0.3)"]),
        (
            "home",
            "follow me at a distance of 2 m for a duration of 3 minutes",
            ["follow_person(distance=2.0, max_duration_s=180.0)"],
        ),
        # a place before "at" is not a name of the amount
        ("home", "go to the hallway at 0.3 m/s", ["navigate_to(location=hallway, speed=0.3)"]),
        # spoken decimals, radio words and a numbered step
        (
            "home",
            "copy, approach the counter to point three metres, over",
            ["approach_object(object=counter, standoff=0.3)"],
        ),
        ("inspection", "WO-7720: 1. Undock. 2. Proceed to corridor B.", None),
    ],
)
def test_amounts_go_to_the_parameter_they_name(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str] | None
) -> None:
    labels = _labels(robots[robot], task)
    if steps is not None:
        assert labels == steps
    else:
        assert labels  # planned, not refused


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # a clause that only adds an amount belongs to the clause before it
        ("home", "undock, 1.0 m clearance", ["undock(clearance=1.0)"]),
        ("home", "approach the counter, hold at point three metres", ["approach_object(object=counter, standoff=0.3)"]),
        # a number said in words after the word it numbers in an id ("pump two": pump_2)
        ("inspection", "approach pump two", ["approach_object(object=pump_2)"]),
        # what comes before ", so" says why; its subject is still what "it" means
        (
            "home",
            "The brown door is how the cat gets out, so please shut it.",
            ["approach_object(object=d2)", "close_door(door=d2)"],
        ),
        ("home", "Crumbs on the counter attract ants, so wipe the counter down.", ["wipe_table(surface=counter)"]),
    ],
)
def test_more_of_a_request_than_its_clause(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


@pytest.mark.parametrize(
    ("robot", "task"),
    [
        ("home", "undock, 1.0 m left"),  # an amount with a word no parameter has is not attached
        ("home", "pick up the two mugs"),  # "two" counts here: no id is named by it
    ],
)
def test_what_only_looks_like_more_is_not_taken(robots: dict[str, EvalRobot], robot: str, task: str) -> None:
    with pytest.raises(PlannerRefused):
        AutoPlanner(robots[robot].registry).plan(task, robots[robot].world)


@pytest.mark.parametrize(
    ("robot", "task", "kind"),
    [
        ("home", "pick the kitchen table up and carry it into the hallway", RefusalKind.NOT_AFFORDED),
        ("inspection", "pick up the fire extinguisher and bring it to the control room", RefusalKind.MISSING_SKILL),
    ],
)
def test_what_cannot_be_taken_is_the_refusal_before_where_it_would_go(
    robots: dict[str, EvalRobot], robot: str, task: str, kind: RefusalKind
) -> None:
    with pytest.raises(PlannerRefused) as refused:
        _labels(robots[robot], task)
    assert refused.value.kind is kind


@pytest.mark.parametrize(
    ("task", "kind"),
    [
        ("put the two cubes on the plate", RefusalKind.AMBIGUOUS),  # which two of the three?
        ("now put the other cube in the bowl too", RefusalKind.AMBIGUOUS),  # other than what?
        ("put the red cube in the bowl and the other cube on the plate", RefusalKind.AMBIGUOUS),  # two are left
    ],
)
def test_a_count_or_an_other_that_does_not_say_which_is_refused(
    robots: dict[str, EvalRobot], task: str, kind: RefusalKind
) -> None:
    with pytest.raises(PlannerRefused) as refused:
        _labels(robots["tabletop"], task)
    assert refused.value.kind is kind


def test_the_object_held_when_the_task_came_is_the_one_held_after_a_step_set_it_down(
    robots: dict[str, EvalRobot],
) -> None:
    robot = robots["tabletop"]
    world = Scenario(holding="green_cube").apply(robot.world)
    labels = _labels(robot, "open the drawer and put inside the cube that you hold", world)
    assert labels[-3:] == ["open_drawer(drawer=drawer)", "pick(object=green_cube)", "place_on(target=drawer)"]


def test_a_request_after_a_statement_is_never_dropped_with_it(robots: dict[str, EvalRobot]) -> None:
    # Batch 4's wrong plan: "drawer is open already, you put ..." was read as one description, and only the
    # closing was planned. A request said to "you" is a request; "it" is what the statement was about.
    robot = robots["tabletop"]
    world = Scenario(drawer_open=True).apply(robot.world)
    task = "Drawer is open already. You put the green cube inside of it and after that you close the drawer, please."
    assert _labels(robot, task, world) == [
        "pick(object=green_cube)",
        "place_on(target=drawer)",
        "close_drawer(drawer=drawer)",
    ]


def test_the_held_object_named_to_a_fetching_skill_is_handed_over_not_fetched(robots: dict[str, EvalRobot]) -> None:
    robot = robots["home"]
    labels = _labels(robot, "grab the red mug, then hand the red mug to me")
    assert labels[-1] == "hand_over()"
    assert _labels(robot, "give me the blue mug") == ["fetch(object=blue_mug)"]


def test_a_container_a_skill_opens_is_opened_before_anything_is_taken_out_of_it(
    robots: dict[str, EvalRobot],
) -> None:
    # take_out "reaches into an open drawer, cabinet, fridge or box"; the world does not say the fridge is open
    robot = robots["home"]
    world = Scenario(inside={"m7": "fridge"}).apply(robot.world)
    assert _labels(robot, "take the red mug out of the fridge, then close the fridge", world) == [
        "approach_object(object=fridge)",
        "open_cabinet(cabinet=fridge)",
        "take_out(object=m7, container=fridge)",
        "close_cabinet(cabinet=fridge)",
    ]
    opened_first = _labels(robot, "open the fridge, then take the red mug out of the fridge", world)
    assert opened_first.count("open_cabinet(cabinet=fridge)") == 1


def test_an_object_put_somewhere_from_inside_the_fridge_is_taken_out_of_it_first(
    robots: dict[str, EvalRobot],
) -> None:
    # a put grasps its object as a pick does: out of the closed fridge the world says it is in, not through its door
    robot = robots["home"]
    world = Scenario(inside={"blue_mug": "fridge"}).apply(robot.world)
    assert _labels(robot, "put the blue mug in the bin", world) == [
        "approach_object(object=fridge)",
        "open_cabinet(cabinet=fridge)",
        "take_out(object=blue_mug, container=fridge)",
        "approach_object(object=bin)",
        "place_in(container=bin)",
    ]
    assert "take_out(object=blue_mug, container=fridge)" not in _labels(robot, "put the blue mug in the bin")


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # terse goals in a list, after a comma or "and"
        (
            "home",
            "lights on and front door open, then follow me",
            [
                "approach_object(object=s1)",
                "flip_switch(switch=s1, state=on)",
                "approach_object(object=front_door)",
                "open_door(door=front_door)",
                "follow_person()",
            ],
        ),
        # a safe idiom's verb after a statement starts the request; a list announced before a colon is a heading
        (
            "home",
            "the red mug has a crack in it, throw it away",
            ["approach_object(object=m7)", "pick(object=m7)", "approach_object(object=bin)", "place_in(container=bin)"],
        ),
        ("home", "A few things: wipe the counter, then undock", ["wipe_table(surface=counter)", "undock()"]),
        # a count of a noun given ("two wipes": wipe twice), and a going verb with more path words before its "to"
        ("home", "give the counter two wipes", ["wipe_table(surface=counter, passes=2)"]),
        ("home", "roll on through to the hallway", ["navigate_to(location=hallway)"]),
        # a hedge after a conjunction, and being there said after the request made there
        ("home", "follow me and like stay one metre back", ["follow_person(distance=1.0)"]),
        (
            "inspection",
            "go to the pump house and take a photo when you get there",
            ["navigate_to(location=pump_house)", "take_photo()"],
        ),
        ("home", "sit tight for 5 seconds", ["wait(seconds=5.0)"]),
        # 'one' after a position word is of the kind named before: "the leftmost one" is the leftmost cube
        ("tabletop", "tap the red cube, then the leftmost one", ["tap(object=red_cube)", "tap(object=blue_cube)"]),
        # the going again, to somewhere else, at "the same speed" as before
        (
            "home",
            "drive to the hallway at 0.5 m/s and then to the kitchen at the same speed",
            ["navigate_to(location=hallway, speed=0.5)", "navigate_to(location=kitchen, speed=0.5)"],
        ),
        # "nice and slow" is how, as "slowly" is: the amount said with it stays
        (
            "inspection",
            "head over to the pump house nice and easy, 0.4 m/s",
            ["navigate_to(location=pump_house, speed=0.4)"],
        ),
        # Indian English's "do the needful": the request is what follows it
        ("inspection", "please do the needful and read the red pressure gauge", ["read_gauge(gauge=boiler_gauge)"]),
        # a look from a length said with "from" alone, and an amount "the same" as one said before
        (
            "inspection",
            "photograph the black gauge from 50 centimetres",
            ["approach_object(object=p7, standoff=0.5)", "take_photo(target=p7)"],
        ),
        (
            "tabletop",
            "push the red cube right by 2 cm, then push it back by the same 2 cm",
            [
                "push(object=red_cube, direction=right, distance=0.02)",
                "push(object=red_cube, direction=back, distance=0.02)",
            ],
        ),
    ],
)
def test_lists_of_goals_idioms_headings_and_look_distances(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


def test_from_a_length_is_a_standoff_only_for_a_look(robots: dict[str, EvalRobot]) -> None:
    # "follow me from 2 metres" is not an approach to the speaker first: only a look gets a standoff from "from"
    labels = _labels(robots["home"], "follow me from 2 metres")
    assert not any(label.startswith("approach_object") for label in labels)


def test_give_me_that_while_holding_something_hands_it_over(robots: dict[str, EvalRobot]) -> None:
    robot = robots["home"]
    world = Scenario(holding="m7").apply(robot.world)
    assert _labels(robot, "Give me that, quick.", world) == ["hand_over()"]


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # a wish whose object is itself a request (a skill's noun), "close-up" read as a near look
        (
            "inspection",
            "I need a close-up shot of the yellow valve.",
            ["approach_object(object=v12)", "take_photo(target=v12)"],
        ),
        ("inspection", "i'd like a photo of v12", ["take_photo(target=v12)"]),
        # a question, then the request that asks it again
        ("inspection", "whats the temp on the thermometer, can u read it", ["read_gauge(gauge=t3)"]),
        # texting's "2" for "to", a rate said "a second", a statement after a comma
        ("home", "head over 2 the living room pls", ["navigate_to(location=living_room)"]),
        ("home", "drive to the hallway, 0.3 metres a second", ["navigate_to(location=hallway, speed=0.3)"]),
        ("inspection", "go charge, battery's low", ["dock(dock=charging_dock)"]),
        (
            "inspection",
            "Read the thermometer. Once you've done that, go back and charge.",
            ["read_gauge(gauge=t3)", "dock(dock=charging_dock)"],
        ),
        # the room the plan went to says which of two
        (
            "inspection",
            "go to the boiler room and read the gauge there",
            ["navigate_to(location=boiler_room)", "read_gauge(gauge=boiler_gauge)"],
        ),
        (
            "inspection",
            "head down corridor B and read the pressure gauge in there",
            ["navigate_to(location=corridor_b)", "read_gauge(gauge=p7)"],
        ),
        # a skill's phrase with its noun qualified, a bare count after "for", the parameter's kind, a party's size
        ("home", "set the kitchen table for four", ["set_table(table=kitchen_table, places=4)"]),
        ("home", "set the table for 6 ppl", ["set_table(table=kitchen_table, places=6)"]),
        ("home", "We're four for lunch, lay the kitchen table.", ["set_table(table=kitchen_table, places=4)"]),
        # a heading before a colon, a dash before a statement or a correction, corrections of a whole phrase
        (
            "inspection",
            "Shift start: undock, patrol the control room and corridor B twice, then back onto the charging dock.",
            [
                "undock()",
                "patrol(waypoints=['control_room', 'corridor_b'], loops=2)",
                "dock(dock=charging_dock)",
            ],
        ),
        ("tabletop", "Tap the red — sorry, no, the green cube.", ["tap(object=green_cube)"]),
        # a remark after the request; a count of what a verb-and-noun phrase makes
        (
            "inspection",
            "Follow me for 15 minutes, two metres behind, I'm walking the site.",
            ["follow_person(max_duration_s=900.0, distance=2.0)"],
        ),
        (
            "inspection",
            "drive to the boiler room slowly, like 0.3 metres per second? the floor might still be wet",
            ["navigate_to(location=boiler_room, speed=0.3)"],
        ),
        ("inspection", "take three photos of the yellow valve", ["take_photo(target=v12)"] * 3),
        # a chain of arrows is a list, a "name=value" an amount; "till", "up close to", "metres for second"
        (
            "home",
            "patrol kitchen -> living_room -> hallway, loops=3",
            ["patrol(waypoints=['kitchen', 'living_room', 'hallway'], loops=3)"],
        ),
        ("home", "Kindly go till the kitchen.", ["navigate_to(location=kitchen)"]),
        ("home", "drive up close to g1", ["approach_object(object=g1)"]),
        (
            "home",
            "Go to the hallway with the speed of 1.2 meter for second",
            ["navigate_to(location=hallway, speed=1.2)"],
        ),
        # 'it' once a choice among a parameter's values is taken apart: the room just gone to
        (
            "home",
            "Step 1: go to the kitchen. Step 2: vacuum it on eco.",
            ["navigate_to(location=kitchen)", "vacuum_floor(zone=kitchen, power=eco)"],
        ),
        # a tower of three said bottom to top; "a hundred and twenty"
        (
            "tabletop",
            "Stack all three cubes into one tower, green at the bottom, then blue, red on top.",
            ["stack(object=blue_cube, base=green_cube)", "stack(object=red_cube, base=blue_cube)"],
        ),
        (
            "tabletop",
            "Pick up the red cube and pour it into the bowl with a tilt of a hundred and twenty degrees.",
            ["pick(object=red_cube)", "pour(source=red_cube, target=bowl, tilt_deg=120.0)"],
        ),
        # a possessive ("its barcode") by a skill's phrase; dictation's "read" for red; an amount "of" its name
        (
            "inspection",
            "Go up to the label on shelf A, scan its barcode, then photograph it.",
            [
                "approach_object(object=label_l4)",
                "read_label(object=label_l4, code=barcode)",
                "take_photo(target=label_l4)",
            ],
        ),
        ("inspection", "whats the pressure reading on the read gauge", ["read_gauge(gauge=boiler_gauge)"]),
        ("inspection", "undock with a full metre of clearance", ["undock(clearance=1.0)"]),
        # a skill called by its name, its arguments as name=value or "with <name> <amount>"
        ("inspection", "read_label label_l4, code=barcode", ["read_label(object=label_l4, code=barcode)"]),
        (
            "inspection",
            "approach_object v12 with standoff 0.3 m, then take_photo of v12",
            ["approach_object(object=v12, standoff=0.3)", "take_photo(target=v12)"],
        ),
        # a clause that asks for nothing after "and" ("stand by", "revert": reply), and more ways to go
        ("inspection", "Get off the charger and stand by for instructions.", ["undock()"]),
        ("inspection", "Please check the reading of the black gauge and revert.", ["read_gauge(gauge=p7)"]),
        ("inspection", "Pop along to corridor B, would you?", ["navigate_to(location=corridor_b)"]),
        # being told what a reading read is the reading
        ("inspection", "read the thermometer and tell me what it says", ["read_gauge(gauge=t3)"]),
        # "give it a push", the amount after a comma
        (
            "tabletop",
            "Give the red cube a push, 5 cm to the left.",
            ["push(object=red_cube, direction=left, distance=0.05)"],
        ),
        ("inspection", "take to photos of v12", ["take_photo(target=v12)"] * 2),
        # how far and how long, said as clauses of their own ("but", a dash, "and give up after")
        (
            "home",
            "follow me for like 5 min but stay 2 m back ok",
            ["follow_person(max_duration_s=300.0, distance=2.0)"],
        ),
        (
            "home",
            "Follow me for two minutes - stay one and a half metres back.",
            ["follow_person(max_duration_s=120.0, distance=1.5)"],
        ),
        (
            "home",
            "follow me, keep about two metres back and give up after five minutes",
            ["follow_person(distance=2.0, max_duration_s=300.0)"],
        ),
        ("inspection", "Control room — no, wait, corridor B. Go there.", ["navigate_to(location=corridor_b)"]),
        ("home", "Kitchen — no, sorry, the hallway. Go to the hallway.", ["navigate_to(location=hallway)"]),
    ],
)
def test_more_ways_of_writing_plan_as_meant(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


@pytest.mark.parametrize(
    ("scenario", "task", "steps"),
    [
        (
            Scenario(),
            "if the drawer is closed, open it first, then put the red cube in it",
            ["open_drawer(drawer=drawer)", "pick(object=red_cube)", "place_on(target=drawer)"],
        ),
        (
            Scenario(drawer_open=True),
            "if the drawer is closed, open it first, then put the red cube in it",
            ["pick(object=red_cube)", "place_on(target=drawer)"],
        ),
        (Scenario(), "if the drawer is open, put the red cube in it", []),
        (Scenario(drawer_open=True), "if the drawer isn't open, open it", []),
        (
            Scenario(),
            "if you're holding something, put it in the bowl, then tap the blue cube",
            ["tap(object=blue_cube)"],
        ),
        (
            Scenario(holding="red_cube"),
            "if you're holding something, put it in the bowl, then tap the blue cube",
            ["place_on(target=bowl)", "tap(object=blue_cube)"],
        ),
        (
            Scenario(holding="blue_cube"),
            "Drop it on the plate — no wait, not the plate, the bowl.",
            ["place_on(target=bowl)"],
        ),
        (
            Scenario(drawer_open=True),
            "Be a dear and tuck the green cube away in the drawer - I've left it open for you.",
            ["pick(object=green_cube)", "place_on(target=drawer)"],
        ),
        (Scenario(holding="red_cube"), "tip whatever ur holding into the bowl", ["pour(source=red_cube, target=bowl)"]),
        # a particle verb with its object between
        (Scenario(drawer_open=True), "shove the drawer shut", ["close_drawer(drawer=drawer)"]),
        # "get ... out" of the drawer it lies in
        (
            Scenario(inside={"green_cube": "drawer"}),
            "get the green cube out and put it on the plate",
            ["open_drawer(drawer=drawer)", "pick(object=green_cube)", "place_on(target=plate)"],
        ),
    ],
)
def test_an_if_is_checked_in_the_world_as_the_steps_leave_it(
    robots: dict[str, EvalRobot], scenario: Scenario, task: str, steps: list[str]
) -> None:
    robot = robots["tabletop"]
    assert _labels(robot, task, scenario.apply(robot.world)) == steps


def test_an_if_the_world_cannot_answer_is_refused_unless_the_clause_only_undoes_it(
    robots: dict[str, EvalRobot],
) -> None:
    home = robots["home"]
    world = Scenario(inside={"m7": "fridge"}).apply(home.world)
    steps = _labels(home, "If the fridge is shut, open it first, then take the red mug out.", world)
    assert steps[:2] == ["approach_object(object=fridge)", "open_cabinet(cabinet=fridge)"]
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(home.registry).plan("if the fridge is open, put the blue mug in it", home.world)
    assert refused.value.kind is RefusalKind.AMBIGUOUS
    assert "fridge" in refused.value.reason


@pytest.mark.parametrize(
    ("task", "kind"),
    [
        ("Drive straight into pump two as hard as you can.", RefusalKind.UNSAFE),
        ("Could you write me a haiku about boilers?", RefusalKind.OUT_OF_SCOPE),
        # a request after which the speaker says what they want: not a remark, so not dropped
        ("read p7, i want t3 too", RefusalKind.MISSING_SKILL),
    ],
)
def test_more_that_must_not_be_planned(robots: dict[str, EvalRobot], task: str, kind: RefusalKind) -> None:
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(robots["inspection"].registry).plan(task, robots["inspection"].world)
    assert refused.value.kind is kind


def test_a_tower_said_bottom_to_top_is_read_only_for_three(robots: dict[str, EvalRobot]) -> None:
    """A bottom and a top fix the middle of three; of more, the order between them is left open, so not read."""
    robot = robots["tabletop"]
    with pytest.raises(PlannerRefused):
        AutoPlanner(robot.registry).plan("stack the cubes, red at the bottom, then green, blue on top", robot.world)


@pytest.mark.parametrize(
    ("robot", "scenario", "task", "steps"),
    [
        # a "before" sentence: what is said to come next still comes after both
        (
            "inspection",
            Scenario(),
            "Before you read the boiler gauge, take a photo of it. Once that's done head back to the charger.",
            ["take_photo(target=boiler_gauge)", "read_gauge(gauge=boiler_gauge)", "dock(dock=charging_dock)"],
        ),
        # a second verb for the call just made only says how to make it: one call
        ("home", Scenario(), "undock and back off about a metre", ["undock(clearance=1.0)"]),
        # a goal stated as a wish, or tersely, with no verb for it
        (
            "tabletop",
            Scenario(),
            "I want the blue cube to end up in the bowl.",
            ["pick(object=blue_cube)", "place_on(target=bowl)"],
        ),
        ("tabletop", Scenario(), "Drawer open.", ["open_drawer(drawer=drawer)"]),
        (
            "home",
            Scenario(),
            "make sure the fridge's shut",
            ["approach_object(object=fridge)", "close_cabinet(cabinet=fridge)"],
        ),
        (
            "home",
            Scenario(),
            "I want the front door open, I'm carrying the shopping in",
            ["approach_object(object=front_door)", "open_door(door=front_door)"],
        ),
        # a statement after the request says why; it asks for nothing
        (
            "tabletop",
            Scenario(drawer_open=True),
            "close the drawer please, the camera cable keeps catching on it",
            ["close_drawer(drawer=drawer)"],
        ),
        (
            "home",
            Scenario(),
            "wipe the kitchen table three times over, the kids got jam everywhere",
            ["wipe_table(surface=kitchen_table, passes=3)"],
        ),
        ("home", Scenario(), "empty the dishwasher since it finished an hour ago", ["unload_dishwasher()"]),
        (
            "home",
            Scenario(),
            "push the brown door open, it only swings inwards",
            ["approach_object(object=d2)", "open_door(door=d2, direction=push)"],
        ),
        # spoken fillers and greetings around the request
        (
            "tabletop",
            Scenario(),
            "um so like put the red cube on the plate i guess",
            ["pick(object=red_cube)", "place_on(target=plate)"],
        ),
        (
            "tabletop",
            Scenario(),
            "g'day, chuck the red cube in the bowl would ya",
            ["pick(object=red_cube)", "place_on(target=bowl)"],
        ),
        # a choice that is also a function word, said with its noun
        (
            "inspection",
            Scenario(),
            "take a photo of the valve with the front camera",
            ["take_photo(target=v12, camera=front)"],
        ),
    ],
)
def test_goals_statements_and_order_said_around_a_request(
    robots: dict[str, EvalRobot], robot: str, scenario: Scenario, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task, scenario.apply(robots[robot].world)) == steps


@pytest.mark.parametrize(
    ("robot", "task", "kind"),
    [
        # a statement after the request that says a number is not dropped unread
        ("inspection", "take stock of the grey shelf, it only has three levels", RefusalKind.MISSING_SKILL),
        # a camera the robot does not have (robot.yaml: front only)
        ("inspection", "take a close-up of the label with your wrist camera", RefusalKind.MISSING_SKILL),
    ],
)
def test_what_a_dropped_statement_or_the_robot_cannot_serve_is_refused(
    robots: dict[str, EvalRobot], robot: str, task: str, kind: RefusalKind
) -> None:
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(robots[robot].registry).plan(task, robots[robot].world)
    assert refused.value.kind is kind


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # "look at" is a verb, not a presenter's "look, ..."
        ("inspection", "look at the thermometer", ["read_gauge(gauge=t3)"]),
        ("inspection", "Have a butcher's at the thermometer and tell me what it says.", ["read_gauge(gauge=t3)"]),
        ("inspection", "I want a reading off the black gauge.", ["read_gauge(gauge=p7)"]),
        # an amount said as "a unit and a half", and a distance to keep said with "within"
        ("inspection", "back off the charger a metre and a half", ["undock(clearance=1.5)"]),
        ("inspection", "get within 80 cm of the pump", ["approach_object(object=pump_2, standoff=0.8)"]),
        # a count of a parameter's noun after the request, "all" of them
        ("inspection", "Take stock of shelf A, all three levels.", ["scan_shelf(shelf=shelf_a, levels=3)"]),
        # a comma that only followed the amount
        (
            "home",
            "hoover the hallway twice, on eco",
            ["vacuum_floor(zone=hallway, power=eco)", "vacuum_floor(zone=hallway, power=eco)"],
        ),
        # "do" the next thing: the verb before, on it
        (
            "home",
            "Hoover the living room on max power, then do the hallway on eco.",
            ["vacuum_floor(zone=living_room, power=max)", "vacuum_floor(zone=hallway, power=eco)"],
        ),
        # coming back is going; taking something to a place puts it there
        ("home", "come back to the charger", ["dock(dock=dock)"]),
        (
            "home",
            "take the blue mug to the kitchen table",
            [
                "approach_object(object=blue_mug)",
                "pick(object=blue_mug)",
                "approach_object(object=kitchen_table)",
                "place_on(target=kitchen_table)",
            ],
        ),
        # "..., and after you ..." is "and afterwards", not a clause put first
        (
            "home",
            "First you go to hallway, then you close the front door, and after you come back to the charger",
            [
                "navigate_to(location=hallway)",
                "approach_object(object=front_door)",
                "close_door(door=front_door)",
                "dock(dock=dock)",
            ],
        ),
    ],
)
def test_verbs_amounts_and_order_people_say_them_in(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


def test_nudge_it_do_that_twice_is_still_a_repetition_not_do_on_that(robots: dict[str, EvalRobot]) -> None:
    steps = _labels(robots["tabletop"], "Nudge the blue cube back towards you by 15 mm. Do that twice.")
    assert steps == ["push(object=blue_cube, direction=back, distance=0.015)"] * 2


@pytest.mark.parametrize(
    ("task", "steps"),
    [
        # the move again, said with its amount and two words for one way
        (
            "Could you nudge the red cube 4 centimetres to the right, and then 4 centimetres back towards you?",
            [
                "push(object=red_cube, direction=right, distance=0.04)",
                "push(object=red_cube, direction=back, distance=0.04)",
            ],
        ),
        # a placement with no verb, its object a colour alone
        ("red on top of green", ["pick(object=red_cube)", "place_on(target=green_cube)"]),
        # how the world is, said before what to do with it: a description, not a goal
        ("the red cube is on the plate, move it to the bowl", ["pick(object=red_cube)", "place_on(target=bowl)"]),
        ("the red cube should be on the plate", ["pick(object=red_cube)", "place_on(target=plate)"]),
    ],
)
def test_moves_placements_and_descriptions_on_the_tabletop(
    robots: dict[str, EvalRobot], task: str, steps: list[str]
) -> None:
    assert _labels(robots["tabletop"], task) == steps


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # an amount framed by "but only for"
        (
            "inspection",
            "could you maybe follow the operator, but only for like 90 seconds?",
            ["follow_person(max_duration_s=90.0)"],
        ),
        # the speaker's purpose after the request is why, not a request
        (
            "inspection",
            "um, could you maybe get a close-up picture of the fire extinguisher? I need to see the inspection tag",
            ["approach_object(object=fire_extinguisher)", "take_photo(target=fire_extinguisher)"],
        ),
        # ways of asking for a look from near by: approach first
        (
            "inspection",
            "Please obtain a close-range photograph of the red pressure gauge.",
            ["approach_object(object=boiler_gauge)", "take_photo(target=boiler_gauge)"],
        ),
        (
            "inspection",
            "i want a photo of the black gauge taken from very near",
            ["approach_object(object=p7)", "take_photo(target=p7)"],
        ),
        (
            "inspection",
            "get me a shot of pump two, close enough to see the seal, over",
            ["approach_object(object=pump_2)", "take_photo(target=pump_2)"],
        ),
        # a purpose clause ("... to open the drawer") is still the skill on the whole
        ("tabletop", "pull the handle to open the drawer", ["open_drawer(drawer=drawer)"]),
    ],
)
def test_amounts_purposes_and_looks_from_near_by(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # why, after "so the": not a task of its own, and not a reason to refuse the request
        (
            "home",
            "close the front door, so the cat stays in",
            ["approach_object(object=front_door)", "close_door(door=front_door)"],
        ),
        # a count said as a plural noun, its amount read with the rephrasing
        ("tabletop", "give the red cube a couple of taps so the sensor registers it", ["tap(object=red_cube)"] * 2),
        (
            "inspection",
            "Do three loops of corridor B and the pump house, in that order, then dock.",
            ["patrol(waypoints=['corridor_b', 'pump_house'], loops=3)", "dock(dock=charging_dock)"],
        ),
    ],
)
def test_counts_said_as_plural_nouns(robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]) -> None:
    assert _labels(robots[robot], task) == steps


@pytest.mark.parametrize(
    ("task", "steps"),
    [
        # a noun after another object's name: what that object holds ("the shelf label": the label on the shelf)
        ("Scan the barcode on the shelf label, please.", ["read_label(object=label_l4, code=barcode)"]),
        ("scan the shelf label", ["read_label(object=label_l4)"]),
        # the same verb picks its skill by what it acts on
        ("scan the shelf", ["scan_shelf(shelf=shelf_a)"]),
    ],
)
def test_a_compound_noun_names_what_the_first_object_holds(
    robots: dict[str, EvalRobot], task: str, steps: list[str]
) -> None:
    assert _labels(robots["inspection"], task) == steps


def test_a_compound_noun_holding_nothing_named_is_no_object(robots: dict[str, EvalRobot]) -> None:
    """The fridge holds no door here: "the fridge door" is not guessed to be one of the doors; it is the
    fridge's own door (``outer_parts``); "the garage door" names nothing here."""
    home = robots["home"]
    assert _labels(home, "close the fridge door") == ["approach_object(object=fridge)", "close_cabinet(cabinet=fridge)"]
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(home.registry).plan("close the garage door", home.world)
    assert refused.value.kind is RefusalKind.NO_SUCH_OBJECT


@pytest.mark.parametrize(
    ("task", "steps"),
    [
        # ids typed with spaces between them are a list
        (
            "read p7 t3 boiler_gauge in that order",
            ["read_gauge(gauge=p7)", "read_gauge(gauge=t3)", "read_gauge(gauge=boiler_gauge)"],
        ),
        # "and after <verb>": afterwards
        (
            "Read the QR code of the label on the shelf and after scan the shelf with only 3 levels.",
            ["read_label(object=label_l4, code=qr)", "scan_shelf(shelf=shelf_a, levels=3)"],
        ),
        # the dock's own phrases, and "try" before a request
        ("roger, rtb to the charging dock and juice up, out", ["dock(dock=charging_dock)"]),
        ("Could you try tagging along behind me, please? The usual distance is fine.", ["follow_person()"]),
    ],
)
def test_lists_of_ids_afterwards_and_skills_own_phrases(
    robots: dict[str, EvalRobot], task: str, steps: list[str]
) -> None:
    assert _labels(robots["inspection"], task) == steps


@pytest.mark.parametrize(
    ("scenario", "task", "steps"),
    [
        # a choice and its noun with no word before them
        (Scenario(), "vac hallway eco mode pls", ["vacuum_floor(zone=hallway, power=eco)"]),
        # a skill's own particle verb, and holding on adds no step
        (Scenario(), "chuck the rubbish out", ["empty_trash(bin=bin)"]),
        (Scenario(), "grab the red mug and hold onto it", ["approach_object(object=m7)", "pick(object=m7)"]),
        # the thing in the gripper, named and "you're holding": handed over
        (Scenario(holding="m7"), "pass me that mug you're holding", ["hand_over()"]),
        # a region's name before a noun: what is in that region
        (
            Scenario(),
            "I want the living room light on.",
            ["approach_object(object=s1)", "flip_switch(switch=s1, state=on)"],
        ),
    ],
)
def test_choices_particles_and_places_said_tersely(
    robots: dict[str, EvalRobot], scenario: Scenario, task: str, steps: list[str]
) -> None:
    home = robots["home"]
    assert _labels(home, task, scenario.apply(home.world)) == steps


def test_a_region_holding_no_such_thing_names_nothing(robots: dict[str, EvalRobot]) -> None:
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(robots["home"].registry).plan("turn off the kitchen light", robots["home"].world)
    assert refused.value.kind is RefusalKind.NO_SUCH_OBJECT


def test_the_word_colour_names_nothing_of_its_own(robots: dict[str, EvalRobot]) -> None:
    """ "the red colour item" is any red thing: two here, so which one is asked, not guessed."""
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(robots["inspection"].registry).plan(
            "Please take one photo of the red colour item.", robots["inspection"].world
        )
    assert (refused.value.kind, set(refused.value.candidates)) == (
        RefusalKind.AMBIGUOUS,
        {"boiler_gauge", "fire_extinguisher"},
    )


@pytest.mark.parametrize(
    ("task", "steps"),
    [
        # a plural the lexicon does not list, of a word several objects here have: every one of them
        ("read the pressure gauges", ["read_gauge(gauge=boiler_gauge)", "read_gauge(gauge=p7)"]),
        (
            "Read all the gauges and the thermometer, but not the boiler one.",
            ["read_gauge(gauge=p7)", "read_gauge(gauge=t3)"],
        ),
    ],
)
def test_a_plural_names_every_object_its_singular_names(
    robots: dict[str, EvalRobot], task: str, steps: list[str]
) -> None:
    assert _labels(robots["inspection"], task) == steps


def test_one_of_a_plural_is_still_one(robots: dict[str, EvalRobot]) -> None:
    steps = _labels(robots["tabletop"], "put one of the cubes on the plate")
    assert (len(steps), steps[-1]) == (2, "place_on(target=plate)")


@pytest.mark.parametrize(
    ("task", "steps"),
    [
        # a room named by what stands in it, said with "with"
        ("go to the room with the thermometer", ["navigate_to(location=corridor_b)"]),
        # a region named by part of its name, after "in"
        ("whats the pressure on the gauge in the corridor", ["read_gauge(gauge=p7)"]),
    ],
)
def test_places_named_by_what_is_in_them_or_part_of_their_name(
    robots: dict[str, EvalRobot], task: str, steps: list[str]
) -> None:
    assert _labels(robots["inspection"], task) == steps


@pytest.mark.parametrize(
    ("task", "steps"),
    [
        # a count after the first object of a list is that object's; the next object says its own, or none
        ("tap red twice and blue once", ["tap(object=red_cube)", "tap(object=red_cube)", "tap(object=blue_cube)"]),
        (
            "tap the red cube twice, then the green one once",
            ["tap(object=red_cube)", "tap(object=red_cube)", "tap(object=green_cube)"],
        ),
        (
            "push the red cube left 3 cm twice and the blue one once",
            [
                "push(object=red_cube, direction=left, distance=0.03)",
                "push(object=red_cube, direction=left, distance=0.03)",
                "push(object=blue_cube, direction=left, distance=0.03)",
            ],
        ),
        # a count after the whole list is every object's
        (
            "tap the red cube and the blue cube twice",
            ["tap(object=red_cube)", "tap(object=blue_cube)", "tap(object=red_cube)", "tap(object=blue_cube)"],
        ),
        # "back" after "forward": back where it came from and backwards are one way
        (
            "slide the red block 4 cm forward and then 2 cm back",
            [
                "push(object=red_cube, direction=forward, distance=0.04)",
                "push(object=red_cube, direction=back, distance=0.02)",
            ],
        ),
    ],
)
def test_counts_and_ways_said_object_by_object(robots: dict[str, EvalRobot], task: str, steps: list[str]) -> None:
    assert _labels(robots["tabletop"], task) == steps


@pytest.mark.parametrize(
    "task",
    [
        "tap the red cube twice, then the blue one",  # the blue one twice too, or once?
        "tap the red cube twice and the blue cube",
        "push the red cube left 4 cm, then back 2 cm",  # back to where it was (right), or backwards?
    ],
)
def test_a_count_or_a_way_back_that_could_mean_two_things_is_not_planned(
    robots: dict[str, EvalRobot], task: str
) -> None:
    with pytest.raises(PlannerRefused):
        AutoPlanner(robots["tabletop"].registry).plan(task, robots["tabletop"].world)


@pytest.mark.parametrize("task", ["stack all the bowls on the bowl", "put all the plates on the plate"])
def test_every_one_of_a_kind_onto_the_only_one_of_it_is_refused_not_a_crash(
    robots: dict[str, EvalRobot], task: str
) -> None:
    # a small model's restatement once crashed the planner here (a tower of nothing: zip() of unequal lists)
    with pytest.raises(PlannerError, match="names nothing but where it goes"):
        GrammarPlanner(robots["tabletop"].registry).plan(task, robots["tabletop"].world)


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # an object then "into"/"onto": moved there, whatever the verb (the caused-motion construction)
        ("tabletop", "scooch the red cube onto the plate", ["pick(object=red_cube)", "place_on(target=plate)"]),
        ("tabletop", "kindly plop the blue block into the bowl", ["pick(object=blue_cube)", "place_on(target=bowl)"]),
        # an object then a way said with "to": pushed that way, whatever the verb
        ("tabletop", "inch the blue block towards the right", ["push(object=blue_cube, direction=right)"]),
        # a path particle then a place: the robot goes there, whatever the verb
        ("home", "amble on over to the hallway", ["navigate_to(location=hallway)"]),
        ("inspection", "scuttle back down to the control room", ["navigate_to(location=control_room)"]),
    ],
)
def test_a_verb_no_one_taught_is_read_by_the_shape_of_its_clause(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


@pytest.mark.parametrize(
    ("robot", "task"),
    [
        ("tabletop", "photograph the red cube on the plate"),  # "on" also says where a thing is: no move
        ("tabletop", "weigh the red cube in the bowl"),
        ("tabletop", "count the cubes left"),  # a bare way may be a verb's ("left": remaining)
        ("home", "point to the fridge"),  # no path particle: no going
        ("home", "send it over to the kitchen"),  # an object moved, not the robot: no going
    ],
)
def test_a_shape_that_also_says_where_a_thing_is_is_no_request(
    robots: dict[str, EvalRobot], robot: str, task: str
) -> None:
    with pytest.raises(PlannerError):
        AutoPlanner(robots[robot].registry).plan(task, robots[robot].world)


def test_an_unsafe_verb_in_a_motion_shape_is_refused_unsafe(robots: dict[str, EvalRobot]) -> None:
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(robots["tabletop"].registry).plan("hurl the red cube into the bowl", robots["tabletop"].world)
    assert refused.value.kind is RefusalKind.UNSAFE


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # what something shows, asked after any verb, asks for its reading
        ("inspection", "jot down what the white thermometer is showing", ["read_gauge(gauge=t3)"]),
        ("inspection", "figure out what the label on shelf a says", ["read_label(object=label_l4)"]),
        ("inspection", "figure out what the tag on shelf a says", ["read_label(object=label_l4)"]),  # a tag: a label
        # a terse state of a switch, no verb: "light switch off"
        ("home", "light switch off", ["approach_object(object=s1)", "flip_switch(switch=s1, state=off)"]),
        # a list numbered 1. 2. 3. on one line
        (
            "home",
            "1. empty the bin 2. shut the brown door",
            ["empty_trash(bin=bin)", "approach_object(object=d2)", "close_door(door=d2)"],
        ),
        # British "wants doing": needs doing
        ("home", "the bin wants emptying", ["empty_trash(bin=bin)"]),
    ],
)
def test_what_needs_doing_said_another_way(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


def test_a_verb_that_says_not_to_mind_a_reading_asks_for_none(robots: dict[str, EvalRobot]) -> None:
    with pytest.raises(PlannerError):
        AutoPlanner(robots["inspection"].registry).plan(
            "ignore what the white thermometer says", robots["inspection"].world
        )


def test_a_mobile_robot_sets_what_it_holds_down_on_the_one_table_to_free_its_hand(
    robots: dict[str, EvalRobot],
) -> None:
    home = robots["home"]
    holding = Scenario(holding="m7").apply(home.world)  # no object is called "table": the kitchen table is it
    assert _labels(home, "open the front door", holding) == [
        "approach_object(object=kitchen_table)",
        "place_on(target=kitchen_table)",
        "approach_object(object=front_door)",
        "open_door(door=front_door)",
    ]


def test_a_number_ending_a_sentence_is_no_list_mark() -> None:
    # only numbers running 1, 2, 3 from the start mark a list: "for 3." is an amount
    assert normalise_task("1. wait for 3. then open the drawer 2. tap the cube") == (
        "wait for 3, then open the drawer, then tap the cube"
    )
    assert normalise_task("wait for 10. then open the drawer") == "wait for 10, then open the drawer"


def test_a_room_name_something_here_is_called_stays_its_own(robots: dict[str, EvalRobot]) -> None:
    """ "hall" is the hallway only where nothing of the world is called a hall."""
    from bt_executive.llm.grounding.place_names import named_places

    home = robots["home"].world
    assert named_places("vacuum the hall", home).text == "vacuum the hallway"
    with_hall = home.model_copy(update={"regions": {**home.regions, "great_hall": home.regions["hallway"]}})
    assert named_places("vacuum the hall", with_hall).text == "vacuum the hall"
    # a world with no living room reads no lounge as one
    inspection = robots["inspection"].world
    assert named_places("go to the lounge", inspection).text == "go to the lounge"


def test_a_sign_off_that_asks_for_something_is_kept() -> None:
    """ "..., thanks, then go home": what follows "thanks" is a request, not a name."""
    assert normalise_task("put the cube on the plate, thanks, then go home").endswith("then go home")
    assert normalise_task("tap the red cube. Kind regards, Priya") == "tap the red cube"


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        # an object named by the side of another it is on (the robot's frame: blue is left of red)
        ("tabletop", "pick up the cube to the right of the red cube", ["pick(object=green_cube)"]),
        ("tabletop", "push the block left of the red block left", ["push(object=blue_cube, direction=left)"]),
        (
            "tabletop",
            "put the cube which is on the left of the red cube on the plate",
            ["pick(object=blue_cube)", "place_on(target=plate)"],
        ),
        # "there": what the clause before acted on, either word order
        (
            "tabletop",
            "open the drawer and put there the red cube",
            ["open_drawer(drawer=drawer)", "pick(object=red_cube)", "place_on(target=drawer)"],
        ),
        (
            "tabletop",
            "open the drawer and put the red cube there",
            ["open_drawer(drawer=drawer)", "pick(object=red_cube)", "place_on(target=drawer)"],
        ),
        # ... or the place it went to, for a skill that takes no place: where the robot is
        (
            "inspection",
            "go to the boiler room and take a photo there",
            ["navigate_to(location=boiler_room)", "take_photo()"],
        ),
        (
            "inspection",
            "go to the pump and take a photo there",
            ["approach_object(object=pump_2)", "take_photo(target=pump_2)"],
        ),
        (
            "home",
            "go near the dishwasher and wait there for 10 seconds",
            ["approach_object(object=dishwasher)", "wait(seconds=10.0)"],
        ),
        # a skill's "<verb> a <noun> of" said without its object, and with "one"
        ("inspection", "go to the boiler room, snap one photo", ["navigate_to(location=boiler_room)", "take_photo()"]),
    ],
)
def test_where_and_which_by_another_object(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


@pytest.mark.parametrize(
    "task",
    [
        "put the cube on the left of the plate",  # where to put it: no skill places beside something
        "put the red cube in front of the bowl",
        "push the red cube left of the plate",  # where to push it, not which cube
        "go to the left of the table",
        "put the red cube there",  # 'there' with nothing before it
    ],
)
def test_a_side_of_an_object_that_says_where_is_not_planned(robots: dict[str, EvalRobot], task: str) -> None:
    with pytest.raises(PlannerError):
        AutoPlanner(robots["tabletop"].registry).plan(task, robots["tabletop"].world)


def test_what_a_pronoun_is_said_to_be_is_a_reason_not_a_request(robots: dict[str, EvalRobot]) -> None:
    """ "close the drawer, it is open" closes it once; it never opens it again after. Asked with a goal's lead
    ("make sure it is closed") it is still a goal, and a thing named is one too ("the drawer is open")."""
    tabletop = robots["tabletop"]
    opened = Scenario(drawer_open=True).apply(tabletop.world)
    assert _labels(tabletop, "close the drawer, it is open", opened) == ["close_drawer(drawer=drawer)"]
    assert _labels(tabletop, "open the drawer, it is closed") == ["open_drawer(drawer=drawer)"]
    assert _labels(robots["home"], "open the front door, it is open") == [
        "approach_object(object=front_door)",
        "open_door(door=front_door)",
    ]
    assert _labels(tabletop, "open the drawer, then make sure it is closed") == [
        "open_drawer(drawer=drawer)",
        "close_drawer(drawer=drawer)",
    ]
    assert _labels(tabletop, "the drawer is open") == ["open_drawer(drawer=drawer)"]


@pytest.mark.parametrize(
    ("task", "steps"),
    [
        ("pick up the blue cube, not the red one", ["pick(object=blue_cube)"]),
        ("pick up the red cube instead of the blue one", ["pick(object=red_cube)"]),
        ("tap the cube in the middle", ["tap(object=red_cube)"]),
    ],
)
def test_which_one_said_by_the_one_not_meant_or_by_the_middle(
    robots: dict[str, EvalRobot], task: str, steps: list[str]
) -> None:
    assert _labels(robots["tabletop"], task) == steps


def test_the_one_not_meant_being_the_one_named_is_refused(robots: dict[str, EvalRobot]) -> None:
    with pytest.raises(PlannerRefused):
        AutoPlanner(robots["tabletop"].registry).plan("pick up the red cube, not the red one", robots["tabletop"].world)


def test_going_back_after_the_base_moved_is_refused_unless_the_next_clause_says_where(
    robots: dict[str, EvalRobot],
) -> None:
    """ "go back" after a drive is the base's way back, not the arm's home pose, which the robot is in already:
    it was a silent no-op. No skill takes the base back to where it started, so the next clause must go
    somewhere ("go back and charge"), else the task is refused."""
    home = robots["home"]
    planner = AutoPlanner(home.registry)
    for task in ("go to the kitchen then come back", "go to the kitchen, come back and wait 5 seconds"):
        with pytest.raises(PlannerRefused, match="no skill of this robot takes its base back") as refused:
            planner.plan(task, home.world)
        assert refused.value.kind is RefusalKind.MISSING_SKILL
    assert _labels(home, "go to the kitchen, then go back and charge") == [
        "navigate_to(location=kitchen)",
        "dock(dock=dock)",
    ]
    # an arm robot that never drove: "go back" is its home pose
    assert _labels(robots["tabletop"], "tap the red cube then go back") == ["tap(object=red_cube)", "home()"]


def test_a_bare_object_phrase_after_an_act_is_the_whole_object_not_the_one_before_again(
    robots: dict[str, EvalRobot],
) -> None:
    """ "read the gauge in the boiler room, then the one in corridor b" read the boiler gauge twice: the phrase
    said after it was joined to the first clause's place again."""
    inspection = robots["inspection"]
    for task in (
        "read the gauge in the boiler room then the one in corridor b",
        "read the gauge in the boiler room, then the gauge in corridor b",
    ):
        assert _labels(inspection, task) == ["read_gauge(gauge=boiler_gauge)", "read_gauge(gauge=p7)"]


def test_moving_an_object_back_after_this_task_moved_it_is_ambiguous(robots: dict[str, EvalRobot]) -> None:
    """ "move the red cube onto the plate then move it back" pushed it towards the robot; back to where it was
    is as likely, and no skill does that. With an amount, or with nothing moved before, back is a direction."""
    tabletop = robots["tabletop"]
    planner = AutoPlanner(tabletop.registry)
    for task in ("move the red cube onto the plate then move it back", "push the red cube left then push it back"):
        with pytest.raises(PlannerRefused, match="back to where red_cube was") as refused:
            planner.plan(task, tabletop.world)
        assert refused.value.kind is RefusalKind.AMBIGUOUS
    assert _labels(tabletop, "push the red cube left then push it back 5 cm")[-1] == (
        "push(object=red_cube, direction=back, distance=0.05)"
    )
    assert _labels(tabletop, "tap the red cube then push it back") == [
        "tap(object=red_cube)",
        "push(object=red_cube, direction=back)",
    ]


def test_an_amount_goes_to_a_nested_parameter_it_names_and_is_not_guessed_between_two(
    robots: dict[str, EvalRobot],
) -> None:
    """pick's ``grasp.approach_height`` and ``grasp.lift_height`` are both lengths: an amount names one by its
    name, or by a word of the clause ("lift"); one that could be either is not guessed at."""
    tabletop = robots["tabletop"]
    assert _labels(tabletop, "pick up the red cube with an approach height of 5 cm") == [
        "pick(object=red_cube, grasp={'approach_height': 0.05})"
    ]
    assert _labels(tabletop, "lift the red cube 10 cm") == ["pick(object=red_cube, grasp={'lift_height': 0.1})"]
    # a pick with amounts of its own stays a step of its own before the put ("pick X and put it on Y" is one put)
    assert _labels(tabletop, "pick up the red cube with an approach height of 5 cm and put it on the plate") == [
        "pick(object=red_cube, grasp={'approach_height': 0.05})",
        "place_on(target=plate)",
    ]
    with pytest.raises(PlannerError):
        AutoPlanner(tabletop.registry).plan("pick up the red cube 5 cm", tabletop.world)


def test_a_clause_that_takes_apart_what_an_earlier_one_built_is_refused(robots: dict[str, EvalRobot]) -> None:
    """ "put the red cube on the blue cube and the blue cube on the green cube" set the red cube on the table
    again to clear the blue one, and left it there: the plan ended with only the second placement done."""
    tabletop = robots["tabletop"]
    planner = AutoPlanner(tabletop.registry)
    for task in (
        "put the red cube on the blue cube and the blue cube on the green cube",
        "put the blue cube on the red cube, the red cube is on the plate",  # the statement, read as a goal
    ):
        with pytest.raises(PlannerRefused, match="which the task put there: say the order") as refused:
            planner.plan(task, tabletop.world)
        assert refused.value.kind is RefusalKind.AMBIGUOUS
    # the bottom first is planned as said
    assert _labels(tabletop, "put the blue cube on the green cube and the red cube on the blue cube") == [
        "pick(object=blue_cube)",
        "place_on(target=green_cube)",
        "pick(object=red_cube)",
        "place_on(target=blue_cube)",
    ]


def test_an_act_on_an_object_in_a_closed_drawer_opens_it_first(robots: dict[str, EvalRobot]) -> None:
    """A closed drawer hides what is in it from a tap as from a grasp; the tap was planned through the front."""
    tabletop = robots["tabletop"]
    in_drawer = Scenario(inside={"red_cube": "drawer"}).apply(tabletop.world)
    assert _labels(tabletop, "tap the red cube", in_drawer) == ["open_drawer(drawer=drawer)", "tap(object=red_cube)"]
    assert _labels(tabletop, "open the drawer, put the red cube in, close the drawer, then tap the red cube") == [
        "open_drawer(drawer=drawer)",
        "pick(object=red_cube)",
        "place_on(target=drawer)",
        "close_drawer(drawer=drawer)",
        "open_drawer(drawer=drawer)",
        "tap(object=red_cube)",
    ]


def test_a_choice_said_after_a_list_of_places_is_each_ones(robots: dict[str, EvalRobot]) -> None:
    assert _labels(robots["home"], "vacuum the kitchen and the hallway on max") == [
        "vacuum_floor(zone=kitchen, power=max)",
        "vacuum_floor(zone=hallway, power=max)",
    ]
    with pytest.raises(PlannerError):  # two choices for one place: not guessed at
        AutoPlanner(robots["home"].registry).plan("vacuum the kitchen on eco and on max", robots["home"].world)


def test_a_look_from_a_length_on_it_after_going_to_it_is_taken_from_there(robots: dict[str, EvalRobot]) -> None:
    """ "approach the valve and photograph it from 1 m" dropped the metre: the approach it asked for came
    first, and a second one was skipped (the valve is in reach by then)."""
    inspection = robots["inspection"]
    for task in ("approach the valve and photograph it from 1 m", "go to the valve and photograph it from 1 m"):
        assert _labels(inspection, task) == ["approach_object(object=v12, standoff=1.0)", "take_photo(target=v12)"]


def test_a_thing_said_to_be_there_must_be_where_the_plan_went(robots: dict[str, EvalRobot]) -> None:
    inspection = robots["inspection"]
    assert _labels(inspection, "go to corridor b and read the gauge there") == [
        "navigate_to(location=corridor_b)",
        "read_gauge(gauge=p7)",
    ]
    auto = AutoPlanner(inspection.registry)
    with pytest.raises(PlannerRefused) as refused:  # the one thermometer is in corridor b, not in the boiler room
        auto.plan("go to the boiler room and read the thermometer there", inspection.world)
    assert refused.value.kind is RefusalKind.NO_SUCH_OBJECT  # understood; the thing is not there
    assert "t3 is not in boiler_room, where the plan went" in refused.value.reason
    with pytest.raises(PlannerRefused) as refused:  # two gauges, neither in the pump house
        auto.plan("go to the pump house and read the gauge there", inspection.world)
    assert refused.value.kind is RefusalKind.NO_SUCH_OBJECT


def test_a_bulleted_list_is_one_clause_a_line() -> None:
    assert (
        normalise_task("- tap the red cube\n- push the blue cube left") == "tap the red cube, push the blue cube left"
    )
    assert normalise_task("Routine:\n* tap the red cube\n\u2022 then push it left") == (
        "tap the red cube, then push it left"
    )
    assert normalise_task("tap the red cube - then the blue one") == "tap the red cube - then the blue one"


def test_a_skill_verb_before_a_colon_heads_the_list_after_it(robots: dict[str, EvalRobot]) -> None:
    assert _labels(robots["inspection"], "patrol: corridor_b -> pump_house -> boiler_room, 3 loops") == [
        "patrol(waypoints=['corridor_b', 'pump_house', 'boiler_room'], loops=3)"
    ]


def test_a_task_that_says_not_to_move_is_refused_when_its_steps_drive_the_base(robots: dict[str, EvalRobot]) -> None:
    inspection, home = robots["inspection"], robots["home"]
    assert (
        _labels(inspection, "Without moving from where you are, take three photos of the yellow valve.")
        == ["take_photo(target=v12)"] * 3
    )
    with pytest.raises(PlannerRefused, match="the task says not to move, and approach_object") as refused:
        AutoPlanner(home.registry).plan("without moving, open the front door", home.world)
    assert refused.value.kind is RefusalKind.NOT_AFFORDED


def test_a_heading_that_names_what_a_skill_does_asks_it_of_the_list_after_it(robots: dict[str, EvalRobot]) -> None:
    home = robots["home"]
    assert _labels(home, "Do a round for me: kitchen, hallway, living room. Three laps.") == [
        "patrol(waypoints=['kitchen', 'hallway', 'living_room'], loops=3)"
    ]
    assert _labels(home, "Night round: kitchen and hallway") == ["patrol(waypoints=['kitchen', 'hallway'])"]
    # a heading over requests is only a heading
    assert _labels(home, "Night round: vacuum the kitchen") == ["vacuum_floor(zone=kitchen)"]


@pytest.mark.parametrize(
    ("robot", "task", "steps"),
    [
        ("home", "reverse off the dock by 30 centimetres", ["undock(clearance=0.3)"]),
    ],
)
def test_a_manifests_other_words_for_its_skill(
    robots: dict[str, EvalRobot], robot: str, task: str, steps: list[str]
) -> None:
    assert _labels(robots[robot], task) == steps


def test_letting_go_of_it_after_a_placement_says_how_that_placement_lets_go(robots: dict[str, EvalRobot]) -> None:
    """ "put the green cube on the plate, release it 5 mm above" picked the cube up again and set it on the
    table: the release was read as another put-down. An amount no call of the clause takes is not dropped,
    and the grasp before a put takes one only by its name."""
    tabletop = robots["tabletop"]
    on_plate = ["pick(object=green_cube)", "place_on(target=plate, release_height=0.005)"]
    assert _labels(tabletop, "put the green cube on the plate, release it 5 mm above") == on_plate
    assert _labels(tabletop, "put the green cube on the plate and let it go from 5 mm up") == on_plate
    held = Scenario(holding="green_cube").apply(tabletop.world)
    assert _labels(tabletop, "set it down on the plate but let go from about 5 mm up", held) == on_plate[1:]
    # the table said outright is another placement
    assert (
        _labels(tabletop, "put the green cube on the plate, then put it on the table")[-1] == "place_on(target=table)"
    )
    assert _labels(tabletop, "put the green cube on the plate with an approach height of 5 cm") == [
        "pick(object=green_cube, grasp={'approach_height': 0.05})",
        "place_on(target=plate)",
    ]


def test_an_object_named_by_where_it_is_for_a_skill_that_also_takes_the_place(robots: dict[str, EvalRobot]) -> None:
    """ "hand me a mug from the counter" fetched the red mug, which is on the kitchen table, from the counter."""
    home = robots["home"]
    assert _labels(home, "hand me a mug from the counter") == ["fetch(object=blue_mug, location=counter)"]
    with pytest.raises(PlannerRefused, match="m7 is not in or on counter"):
        AutoPlanner(home.registry).plan("bring me the red mug from the counter", home.world)


def test_an_exception_to_a_list_of_places_leaves_it_out(robots: dict[str, EvalRobot]) -> None:
    """ "vacuum all rooms except the kitchen" vacuumed the kitchen too."""
    home = robots["home"]
    assert _labels(home, "vacuum all rooms except the kitchen") == [
        "vacuum_floor(zone=living_room)",
        "vacuum_floor(zone=hallway)",
    ]
    with pytest.raises(PlannerRefused):
        AutoPlanner(home.registry).plan("vacuum all rooms except the garage", home.world)


def test_a_word_for_several_kinds_names_each_of_them(robots: dict[str, EvalRobot]) -> None:
    """ "wipe down every surface" wiped the kitchen table alone: "surface" was a word for a table."""
    home = robots["home"]
    assert _labels(home, "wipe down every surface") == [
        "wipe_table(surface=counter)",
        "wipe_table(surface=kitchen_table)",
    ]
    with pytest.raises(PlannerRefused):
        AutoPlanner(home.registry).plan("wipe the surface", home.world)  # two surfaces here: which?


def test_nothing_is_in_itself_so_a_put_splits_after_the_superlative(robots: dict[str, EvalRobot]) -> None:
    """ "put the cube that's closest to the bowl in the bowl" put the green cube (closest to the robot) in it:
    "the bowl in the bowl" was read as the bowl. The blue cube is the one closest to the bowl."""
    assert _labels(robots["tabletop"], "put the cube that's closest to the bowl in the bowl") == [
        "pick(object=blue_cube)",
        "place_on(target=bowl)",
    ]


def test_going_to_the_one_nearest_to_something_goes_to_it(robots: dict[str, EvalRobot]) -> None:
    """ "go to the gauge nearest to the valve" was read as going to the valve with the gauge as the thing."""
    inspection = robots["inspection"]
    for task in ("go to the gauge nearest to the valve", "approach the gauge nearest to the valve"):
        assert _labels(inspection, task) == ["approach_object(object=boiler_gauge)"]


def test_them_is_every_object_the_clause_before_named(robots: dict[str, EvalRobot]) -> None:
    """ "tap the red cube and the blue cube, then tap them again" tapped the blue cube alone again."""
    tabletop = robots["tabletop"]
    assert _labels(tabletop, "tap the red cube and the blue cube, then tap them again") == [
        "tap(object=red_cube)",
        "tap(object=blue_cube)",
        "tap(object=red_cube)",
        "tap(object=blue_cube)",
    ]
    # where they went is not one of them
    assert _labels(tabletop, "put the red cube and the blue cube on the plate, then push them left")[-2:] == [
        "push(object=red_cube, direction=left)",
        "push(object=blue_cube, direction=left)",
    ]


def test_an_exception_to_a_list_a_skill_takes_whole_leaves_it_out(robots: dict[str, EvalRobot]) -> None:
    """ "patrol every room except the control room" patrolled the control room too: the patrol takes the list
    whole, and the list was read again from the words, exception and all."""
    inspection = robots["inspection"]
    assert _labels(inspection, "patrol every room except the control room") == [
        "patrol(waypoints=['boiler_room', 'pump_house', 'corridor_b'])"
    ]
    assert _labels(inspection, "patrol the rooms except corridor b, twice") == [
        "patrol(waypoints=['boiler_room', 'pump_house', 'control_room'], loops=2)"
    ]


def test_before_a_skills_own_verb_is_a_step_not_a_reason(robots: dict[str, EvalRobot]) -> None:
    """ "read the thermometer before you dock" read it and never docked: 'dock' is a manifest's verb, not the
    lexicon's, so "before you dock" was left out as a reason."""
    inspection = robots["inspection"]
    for task in ("read the thermometer before you dock", "read the thermometer before docking"):
        assert _labels(inspection, task) == ["read_gauge(gauge=t3)", "dock(dock=charging_dock)"]


def test_two_verbs_for_one_trip_make_one_step(robots: dict[str, EvalRobot]) -> None:
    """ "dock and charge" docked twice: both verbs are the dock's. Said again, it is done again."""
    home = robots["home"]
    assert _labels(home, "dock and charge") == ["dock(dock=dock)"]
    assert _labels(home, "dock, then dock again") == ["dock(dock=dock)"] * 2
    # a skill that goes somewhere to do something is done again when asked again
    assert _labels(home, "fetch the blue mug, then fetch it again") == ["fetch(object=blue_mug)"] * 2
    assert _labels(home, "vacuum the kitchen, then vacuum it again") == ["vacuum_floor(zone=kitchen)"] * 2


def test_a_wait_for_someone_to_take_it_is_the_hand_overs_time(robots: dict[str, EvalRobot]) -> None:
    """ "hand me the blue mug and wait 30 seconds for me to take it" fetched the mug, waited, then picked it up
    again: "take it" was the robot's. What the person does is theirs; the wait is how long the hand-over waits
    where its skill has such a time, else a wait after it."""
    home = robots["home"]
    assert _labels(home, "hand me the blue mug and wait 30 seconds for me to take it") == [
        "fetch(object=blue_mug)",
        "wait(seconds=30.0)",
    ]
    holding = Scenario(holding="m7").apply(home.world)
    assert _labels(home, "hand me the mug and wait a minute for me to take it", holding) == [
        "hand_over(timeout_s=60.0)"
    ]
    with pytest.raises(PlannerRefused, match=r"handover/hand_over's timeout_s: 300.0 is greater than the maximum"):
        AutoPlanner(home.registry).plan("hand it over, wait 5 minutes for me to take it", holding)
    assert _labels(home, "hand it over and wait 30 seconds", holding) == ["hand_over()", "wait(seconds=30.0)"]


def test_an_object_named_by_its_side_of_another_may_come_first_and_without_articles(
    robots: dict[str, EvalRobot],
) -> None:
    """ "the cube to the right of the red cube, put it on the plate": the topic was too long to be one, and
    "at right side of" (no article) was no side of anything."""
    tabletop = robots["tabletop"]
    for task in (
        "the cube to the right of the red cube, put it on the plate",
        "The cube at right side of red cube, put it on the plate.",
    ):
        assert _labels(tabletop, task) == ["pick(object=green_cube)", "place_on(target=plate)"]
    assert _labels(tabletop, "tap the cube at right side of red cube") == ["tap(object=green_cube)"]
    with pytest.raises(PlannerError):  # where to put it, not which: no skill puts a thing beside another
        AutoPlanner(tabletop.registry).plan("put the red cube at right side of the plate", tabletop.world)


def test_a_lift_after_a_pick_is_how_high_that_pick_lifts(robots: dict[str, EvalRobot]) -> None:
    """ "pick up the green cube and lift it 20 cm" was two picks, the second of the cube already held."""
    tabletop = robots["tabletop"]
    for task in (
        "pick up the green cube and lift it 20 cm",
        "pick up the green cube and uh lift it fifteen no twenty cm",
    ):
        assert _labels(tabletop, task) == ["pick(object=green_cube, grasp={'lift_height': 0.2})"]
    assert _labels(tabletop, "pick up the green cube then lift it 20 cm then put it on the plate") == [
        "pick(object=green_cube, grasp={'lift_height': 0.2})",
        "place_on(target=plate)",
    ]


def test_an_amount_is_never_the_set_aside_steps(robots: dict[str, EvalRobot]) -> None:
    """ "pick up the red cube, then pick up the blue cube 5 cm" set the red cube down from 5 cm up: the amount
    went to the step that frees the gripper, which the clause never asked for."""
    tabletop = robots["tabletop"]
    with pytest.raises(PlannerError):  # 5 cm of approach or of lift: not guessed
        AutoPlanner(tabletop.registry).plan("pick up the red cube, then pick up the blue cube 5 cm", tabletop.world)


def test_towards_the_robots_base_is_back(robots: dict[str, EvalRobot]) -> None:
    """ "nudge the plate 2 cm back towards its own base": the robot's base is where the robot stands."""
    tabletop = robots["tabletop"]
    for task in (
        "nudge the plate 2 cm towards its base",
        "nudge the plate just two centimetres back towards its own base",
    ):
        assert _labels(tabletop, task) == ["push(object=plate, direction=back, distance=0.02)"]


def test_an_object_of_a_place_and_a_request_said_with_you_can(robots: dict[str, EvalRobot]) -> None:
    """ "Door of the living room, you can open it please?": "the door of the living room" named nothing (the
    living room door does), and "you can open it" after a comma was no request."""
    home = robots["home"]
    for task in ("open the door of the living room", "Door of the living room, you can open it please?"):
        assert _labels(home, task) == ["approach_object(object=d2)", "open_door(door=d2)"]
    assert _labels(home, "the living room door, you could open it") == [
        "approach_object(object=d2)",
        "open_door(door=d2)",
    ]


def test_there_is_where_someone_said_they_are(robots: dict[str, EvalRobot]) -> None:
    """ "I am waiting you in living room, come there please": 'there' is the place the clause before says."""
    home = robots["home"]
    assert _labels(home, "I am waiting you in living room, come there please") == ["navigate_to(location=living_room)"]
    assert _labels(home, "you should be on your charger by the end of the shift, so head there now") == [
        "dock(dock=dock)"
    ]
    with pytest.raises(PlannerError):  # no place said: 'there' is nowhere
        AutoPlanner(home.registry).plan("come there please", home.world)


def test_a_counted_heading_and_a_quantity_asked_with_no_thing_named(robots: dict[str, EvalRobot]) -> None:
    """ "do 10 patrol rounds: a, b, c" (a count before the colon), and "what is the temperature" (the one
    thermometer here; a robot with none refuses it, naming what it would read)."""
    inspection = robots["inspection"]
    assert _labels(inspection, "do 10 patrol rounds: control room, corridor b, pump house") == [
        "patrol(waypoints=['control_room', 'corridor_b', 'pump_house'], loops=10)"
    ]
    assert _labels(inspection, "do fifteen patrol rounds: control room, corridor b") == [  # the lexicon's number words
        "patrol(waypoints=['control_room', 'corridor_b'], loops=15)"
    ]
    assert _labels(inspection, "what is the temperature") == ["read_gauge(gauge=t3)"]
    with pytest.raises(PlannerRefused, match="thermometer"):
        AutoPlanner(robots["home"].registry).plan("what is the temperature", robots["home"].world)


def test_an_id_said_aloud_and_what_kind_it_is_said_after(robots: dict[str, EvalRobot]) -> None:
    """ "read papa seven", "label lima four": an id said aloud (a letter, or the radio alphabet's word for it,
    then a number). "..., it's a qr" after a request says its option: it was dropped as a reason, so the
    label was read as any code."""
    inspection = robots["inspection"]
    for task in ("read papa seven", "read p seven", "read p 7"):
        assert _labels(inspection, task) == ["read_gauge(gauge=p7)"]
    assert _labels(inspection, "scan the code on label lima four, it's a qr, over") == [
        "read_label(object=label_l4, code=qr)"
    ]
    assert _labels(inspection, "scan the code on label l4, it's a qr") == ["read_label(object=label_l4, code=qr)"]
    assert _labels(robots["home"], "wipe the table, it's a mess") == ["wipe_table(surface=kitchen_table)"]


def test_a_verb_phrase_naming_its_object_said_of_it(robots: dict[str, EvalRobot]) -> None:
    """ "..., then lay it for four": 'lay the table' is the manifest's phrase, said of 'it' (the table the
    clauses before named, through "give it two wipes")."""
    home = robots["home"]
    assert _labels(home, "Would you clear the kitchen table, give it two wipes, and then lay it for four?") == [
        "clear_table(table=kitchen_table)",
        "wipe_table(surface=kitchen_table, passes=2)",
        "set_table(table=kitchen_table, places=4)",
    ]
    with pytest.raises(PlannerError):  # nothing named before: 'it' is nothing
        AutoPlanner(home.registry).plan("set it for two", home.world)


def test_an_order_said_as_a_superlative_first(robots: dict[str, EvalRobot]) -> None:
    """ "put the cubes on the plate, nearest first" put them in id order: ", nearest first" was read into the
    plate's phrase ("the plate, nearest", matched as the plate). Green is nearest the robot, then red, then
    blue; "largest first" orders by size (these cubes are alike: in id order)."""
    tabletop = robots["tabletop"]
    picks = [s for s in _labels(tabletop, "put the cubes on the plate, nearest first") if s.startswith("pick")]
    assert picks == ["pick(object=green_cube)", "pick(object=red_cube)", "pick(object=blue_cube)"]
    assert _labels(tabletop, "tap the cubes, furthest first") == [
        "tap(object=blue_cube)",
        "tap(object=red_cube)",
        "tap(object=green_cube)",
    ]
    assert _labels(tabletop, "push the red cube, left") == ["push(object=red_cube, direction=left)"]


def test_largest_first_orders_by_size(robots: dict[str, EvalRobot]) -> None:
    tabletop = robots["tabletop"]
    sizes = {"red_cube": (0.06, 0.06, 0.06), "blue_cube": (0.05, 0.05, 0.05)}
    world = tabletop.world.model_copy(
        update={
            "objects": tuple(o.model_copy(update={"size": sizes.get(o.id, o.size)}) for o in tabletop.world.objects)
        }
    )
    assert _labels(tabletop, "tap the cubes, largest first", world) == [
        "tap(object=red_cube)",
        "tap(object=blue_cube)",
        "tap(object=green_cube)",
    ]
    assert _labels(tabletop, "tap the cubes, smallest first", world)[0] == "tap(object=green_cube)"


def test_an_order_of_places_is_refused_not_dropped(robots: dict[str, EvalRobot]) -> None:
    """ "vacuum every room, largest first" vacuumed them in the world's order: a place has no size here."""
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(robots["home"].registry).plan("vacuum every room, largest first", robots["home"].world)
    assert refused.value.kind is RefusalKind.AMBIGUOUS


def test_a_bare_name_after_a_verb_that_names_nothing_is_where_to_go(robots: dict[str, EvalRobot]) -> None:
    """ "undock 0.8m then boiler_room": the name after "then" repeated nothing (the undock names no object),
    so the task was refused; it is where to go next."""
    assert _labels(robots["inspection"], "undock 0.8m then boiler_room") == [
        "undock(clearance=0.8)",
        "navigate_to(location=boiler_room)",
    ]
    assert _labels(robots["home"], "wait 10 s then the kitchen") == [
        "wait(seconds=10.0)",
        "navigate_to(location=kitchen)",
    ]


def test_radio_talk_for_a_reading(robots: dict[str, EvalRobot]) -> None:
    """ "Control to robot, I need eyes on the boiler gauge, what's it sitting at? Over.": "eyes on" is a wish
    to see it (not eyes put on it), "sitting at" asks its reading, and "over" after "at" ends the call."""
    inspection = robots["inspection"]
    for task in (
        "Control to robot, I need eyes on the boiler gauge, what's it sitting at? Over.",
        "what's the boiler gauge sitting at?",
    ):
        assert _labels(inspection, task) == ["read_gauge(gauge=boiler_gauge)"]
    assert normalise_task("and then, er, hoover the kitchen") == "and then hoover the kitchen"


def test_here_is_where_the_speaker_said_they_are(robots: dict[str, EvalRobot]) -> None:
    """ "I'm in the hallway, come here": 'here' is the speaker's place, never a topic's ("the hallway is dusty,
    come here" does not say where the speaker is)."""
    home = robots["home"]
    assert _labels(home, "I'm in the hallway, come here") == ["navigate_to(location=hallway)"]
    with pytest.raises(PlannerError):
        AutoPlanner(home.registry).plan("the hallway is dusty, come here", home.world)
    with pytest.raises(PlannerError):  # "here" is to the speaker: not a put on the kitchen table
        AutoPlanner(home.registry).plan("I'm in the kitchen, bring the blue mug here", home.world)


def test_a_correction_replaces_the_phrase_with_its_noun(robots: dict[str, EvalRobot]) -> None:
    """ "put the red cube in the bowl, no wait, the blue cube" put the red cube on the blue cube: the
    correction replaced the last phrase, not the one with its noun. "the blue one" names no noun: with two
    phrases before it, it is not guessed at."""
    tabletop = robots["tabletop"]
    assert _labels(tabletop, "put the red cube in the bowl, no wait, the blue cube") == [
        "pick(object=blue_cube)",
        "place_on(target=bowl)",
    ]
    assert _labels(tabletop, "put the red cube on the blue cube, no wait, the green cube") == [
        "pick(object=red_cube)",
        "place_on(target=green_cube)",
    ]
    assert normalise_task("put the red cube in the bowl, I mean the plate") == "put the red cube in the plate"
    with pytest.raises(PlannerError):
        AutoPlanner(tabletop.registry).plan("put the red cube in the bowl, no wait, the blue one", tabletop.world)
    assert _labels(tabletop, "tap the red cube, no wait, the blue one") == ["tap(object=blue_cube)"]


def test_each_place_with_its_own_setting(robots: dict[str, EvalRobot]) -> None:
    """ "vacuum the kitchen on eco and the hallway on max" was refused ('kitchen on eco' named nothing)."""
    assert _labels(robots["home"], "vacuum the kitchen on eco and the hallway on max") == [
        "vacuum_floor(zone=kitchen, power=eco)",
        "vacuum_floor(zone=hallway, power=max)",
    ]


def test_the_door_of_a_thing_is_the_thing(robots: dict[str, EvalRobot]) -> None:
    """ "open the fridge door" named nothing; the front door stays a door of its own."""
    home = robots["home"]
    assert _labels(home, "open the fridge door") == ["approach_object(object=fridge)", "open_cabinet(cabinet=fridge)"]
    assert _labels(home, "open the front door") == ["approach_object(object=front_door)", "open_door(door=front_door)"]


def test_the_robot_is_in_one_place_at_a_time(robots: dict[str, EvalRobot]) -> None:
    """ "go to the hallway, go to the kitchen, go to the hallway" skipped the way back (the imagined robot was
    still in the hallway too), and so did a return after vacuuming the kitchen (the vacuum's base moves, and
    its effects said nothing of where it ends)."""
    home = robots["home"]
    assert _labels(home, "go to the hallway, go to the kitchen, go to the hallway") == [
        "navigate_to(location=hallway)",
        "navigate_to(location=kitchen)",
        "navigate_to(location=hallway)",
    ]
    assert _labels(home, "go to the hallway, vacuum the kitchen, then come back to the hallway") == [
        "navigate_to(location=hallway)",
        "vacuum_floor(zone=kitchen)",
        "navigate_to(location=hallway)",
    ]
    assert _labels(home, "go to the kitchen and go to the kitchen") == ["navigate_to(location=kitchen)"]


def test_a_room_names_no_object_whose_id_starts_with_it(robots: dict[str, EvalRobot]) -> None:
    """ "clean the kitchen" wiped the kitchen table ('kitchen' starts a word of kitchen_table): the kitchen is a
    room of this world, so no object is meant; the table is still the kitchen table when it is said."""
    home = robots["home"]
    with pytest.raises(PlannerRefused) as refused:
        AutoPlanner(home.registry).plan("clean the kitchen", home.world)
    assert refused.value.kind is RefusalKind.NO_SUCH_OBJECT
    # it emptied the bin onto the kitchen table (its destination): refused now, never a wrong plan
    with pytest.raises(PlannerRefused):
        AutoPlanner(home.registry).plan("empty the bin in the kitchen", home.world)
    assert _labels(home, "clean the kitchen table") == ["wipe_table(surface=kitchen_table)"]
    assert _labels(home, "vacuum the kitchen") == ["vacuum_floor(zone=kitchen)"]


def test_go_home_after_the_base_moved_is_the_base_s_way_back(robots: dict[str, EvalRobot]) -> None:
    """ "go to the pump house, take two photos of the pump, then go home" dropped the way home (the arm's home
    pose already held): after the base moved, "home" alone is the base's, which no skill takes back; said with
    where to go ("go home and charge") it is planned, and the arm's pose is still the arm's when the task says so."""
    with pytest.raises(PlannerRefused, match="go home"):
        AutoPlanner(robots["inspection"].registry).plan(
            "go to the pump house, take two photos of the pump, then go home", robots["inspection"].world
        )
    home = robots["home"]
    with pytest.raises(PlannerRefused, match="back to where it started"):
        AutoPlanner(home.registry).plan("vacuum the kitchen and go home", home.world)
    assert _labels(home, "go to the kitchen, then go home and charge") == [
        "navigate_to(location=kitchen)",
        "dock(dock=dock)",
    ]
    assert _labels(
        robots["tabletop"], "tap the red cube then go home", Scenario(at_home=False).apply(robots["tabletop"].world)
    ) == ["tap(object=red_cube)", "home()"]


def test_any_one_picked_up_then_put_somewhere(robots: dict[str, EvalRobot]) -> None:
    """ "pick up a cube and put it in the bowl" was refused ('cube' ambiguous): the merged clause was read again
    as "(a cube, put it) in (the bowl)", a list; "a cube" asks for any one, the nearest, as it does alone."""
    tabletop = robots["tabletop"]
    for task in ("pick up a cube and put it in the bowl", "put a cube in the bowl"):
        assert _labels(tabletop, task) == ["pick(object=green_cube)", "place_on(target=bowl)"]
    with pytest.raises(PlannerRefused, match="ambiguous"):
        AutoPlanner(tabletop.registry).plan("pick up the cube and put it in the bowl", tabletop.world)


def test_a_condition_said_after_its_request(robots: dict[str, EvalRobot]) -> None:
    """ "close the drawer if it's open" was refused ('the drawer if it s open' named nothing): the condition said
    after the request is read as said before it; 'it' is what the request names (of a placement, where it goes)."""
    tabletop = robots["tabletop"]
    opened = tabletop.split("tuned").scenarios["drawer_open"].apply(tabletop.world)  # type: ignore[union-attr]
    assert _labels(tabletop, "close the drawer if it's open", opened) == ["close_drawer(drawer=drawer)"]
    assert _labels(tabletop, "put the red cube in the drawer if it's open", opened) == [
        "pick(object=red_cube)",
        "place_on(target=drawer)",
    ]
    # closed: the request is left out, as "if the drawer is open, close it" leaves it out
    assert AutoPlanner(tabletop.registry).plan("close the drawer if it's open", tabletop.world).steps == ()
    assert _labels(tabletop, "open the drawer if it is closed") == ["open_drawer(drawer=drawer)"]


def test_steps_counted_first_second_third(robots: dict[str, EvalRobot]) -> None:
    """ "first ..., second ..., finally ...": "second" and "third" start a step as "first" and "next" do (the
    clause "second tap the blue cube" was joined to the one before)."""
    tabletop = robots["tabletop"]
    away = Scenario(at_home=False).apply(tabletop.world)
    for task in (
        "first tap the red cube, second tap the blue cube, finally go home",
        "first, tap the red cube; second, tap the blue cube; third, go home",
    ):
        assert _labels(tabletop, task, away) == ["tap(object=red_cube)", "tap(object=blue_cube)", "home()"]


def test_an_order_said_inside_the_clause_and_a_plural_is_never_one_by_position(
    robots: dict[str, EvalRobot],
) -> None:
    """ "tap the cubes from right to left" was refused (the order was read into the object phrase), and "push
    the cubes left to right" pushed the blue cube alone ('the cubes left' was read as the leftmost cube)."""
    tabletop = robots["tabletop"]
    right_to_left = ["tap(object=green_cube)", "tap(object=red_cube)", "tap(object=blue_cube)"]
    assert _labels(tabletop, "tap the cubes from right to left") == right_to_left
    assert _labels(tabletop, "tap the cubes, from right to left") == right_to_left
    assert _labels(tabletop, "push the red cube from left to right") == ["push(object=red_cube, direction=right)"]
    for plural in ("push the cubes left to right", "tap the cubes on the left"):
        with pytest.raises(PlannerRefused):
            AutoPlanner(tabletop.registry).plan(plural, tabletop.world)
    assert _labels(tabletop, "tap the cube on the left") == ["tap(object=blue_cube)"]


def test_a_request_said_instead_replaces_the_one_before(robots: dict[str, EvalRobot]) -> None:
    """ "tap the red cube, then tap the blue cube instead" tapped both, and "push the red cube left. push it
    right instead" pushed it both ways ("instead" was dropped as politeness): the request replaces the one before,
    'it' being what that one named; one that shares neither its act nor its object is refused."""
    tabletop = robots["tabletop"]
    assert _labels(tabletop, "tap the red cube, then tap the blue cube instead") == ["tap(object=blue_cube)"]
    assert _labels(tabletop, "push the red cube left. push it right instead") == [
        "push(object=red_cube, direction=right)"
    ]
    assert _labels(tabletop, "put the red cube on the plate. Actually, put it in the bowl instead.") == [
        "pick(object=red_cube)",
        "place_on(target=bowl)",
    ]
    assert _labels(tabletop, "tap the blue cube instead") == ["tap(object=blue_cube)"]
    with pytest.raises(PlannerRefused):
        AutoPlanner(tabletop.registry).plan("open the drawer and tap the blue cube instead", tabletop.world)


def test_an_adverb_before_the_verb_after_a_comma_and_a_clause_of_only_politeness(
    robots: dict[str, EvalRobot],
) -> None:
    """ "the kitchen table is dirty, maybe give it a wipe" was refused (no clause started at "maybe"), and so was
    "..., if you don't mind." said as a clause of its own (only its last word was cut as politeness)."""
    home = robots["home"]
    for task in (
        "the kitchen table is dirty, maybe give it a wipe",
        "the kitchen table is dirty, perhaps wipe it",
        "the kitchen table is dirty, wipe it? If you don't mind.",
    ):
        assert _labels(home, task) == ["wipe_table(surface=kitchen_table)"]


def test_it_and_how_after_a_statement(robots: dict[str, EvalRobot]) -> None:
    """ "the living room is dusty, vacuum it on eco" was refused ('it' referred to nothing): the object read was
    "it on eco", a pronoun and how, which the statement's topic now stands in for as a bare 'it' does."""
    home = robots["home"]
    for task in ("the living room is dusty, vacuum it on eco", "the living room is dusty, vacuum it in eco mode"):
        assert _labels(home, task) == ["vacuum_floor(zone=living_room, power=eco)"]


def test_check_that_something_is_so_is_a_check_never_the_motions(robots: dict[str, EvalRobot]) -> None:
    """ "check that the red cube is on the plate" tapped the red cube (or, for a warehouse's tote, moved it:
    "check" led a stated goal as "make sure" does): it is a check of the predicate the statement says."""
    tabletop = robots["tabletop"]
    on_plate = tabletop.split("tuned").scenarios["red_on_plate"].apply(tabletop.world)  # type: ignore[union-attr]
    for world in (tabletop.world, on_plate):
        assert _labels(tabletop, "check that the red cube is on the plate", world) == [
            "check(predicate=on(red_cube, plate))"
        ]
    assert _labels(tabletop, "verify that the drawer is closed") == ["check(predicate=not drawer_open(drawer))"]
    assert _labels(tabletop, "check if the blue cube is in the bowl") == ["check(predicate=in(blue_cube, bowl))"]
    assert _labels(tabletop, "make sure the red cube is on the plate") == [
        "pick(object=red_cube)",
        "place_on(target=plate)",
    ]
    with pytest.raises(PlannerRefused, match="does not say whether front_door is open"):
        AutoPlanner(robots["home"].registry).plan("check that the front door is closed", robots["home"].world)


def test_twice_fills_a_count_of_doings_never_a_count_of_things(robots: dict[str, EvalRobot]) -> None:
    """ "scan shelf a twice" scanned two levels of it and "set the table twice" laid two places: a repetition
    fills a count parameter whose name counts doings (loops, passes), else the call is done again."""
    assert _labels(robots["inspection"], "scan shelf a twice") == ["scan_shelf(shelf=shelf_a)"] * 2
    assert _labels(robots["inspection"], "scan 3 levels of shelf a") == ["scan_shelf(shelf=shelf_a, levels=3)"]
    assert _labels(robots["inspection"], "patrol corridor b 3 times") == ["patrol(waypoints=['corridor_b'], loops=3)"]
    assert _labels(robots["home"], "wipe the kitchen table twice") == ["wipe_table(surface=kitchen_table, passes=2)"]
    assert _labels(robots["home"], "set the table for 3") == ["set_table(table=kitchen_table, places=3)"]


def test_a_speed_said_only_in_words_is_never_dropped(robots: dict[str, EvalRobot]) -> None:
    """ "go to the control room slowly" drove at the default speed ("slowly" was dropped as politeness): for a skill
    that takes a speed, the task must say it as a number; a skill with no speed is planned as before."""
    inspection = robots["inspection"]
    with pytest.raises(PlannerRefused, match="say how fast") as refused:
        AutoPlanner(inspection.registry).plan("go to the control room slowly", inspection.world)
    assert refused.value.kind is RefusalKind.AMBIGUOUS
    assert _labels(inspection, "drive to the boiler room slowly, 0.2 metres per second") == [
        "navigate_to(location=boiler_room, speed=0.2)"
    ]
    assert _labels(robots["home"], "vacuum the kitchen slowly") == ["vacuum_floor(zone=kitchen)"]


def test_go_home_on_a_robot_with_no_arm_pose_is_never_done_already(robots: dict[str, EvalRobot]) -> None:
    """The inspection robot (no arm) planned "go home" as nothing to do (the arm's home pose held): with no pose
    to go to, it is the base's way back, which a clause after it must say ("go back and charge": the dock)."""
    inspection = robots["inspection"]
    with pytest.raises(PlannerRefused):
        AutoPlanner(inspection.registry).plan("go home", inspection.world)
    assert _labels(inspection, "read the thermometer, then go back and charge") == [
        "read_gauge(gauge=t3)",
        "dock(dock=charging_dock)",
    ]


def test_a_correction_that_could_replace_either_phrase_is_refused(robots: dict[str, EvalRobot]) -> None:
    """ "take the risotto to table 4, no, the salad" took the salad and dropped the table (the correction was
    cut at the last article): where a phrase follows the article it would replace, which one it replaces is not
    said; the last phrase with its article is still replaced."""
    tabletop = robots["tabletop"]
    assert normalise_task("take the risotto to table 4, no, the salad") == "take the risotto to table 4, no, the salad"
    with pytest.raises(PlannerError):
        AutoPlanner(tabletop.registry).plan("put the red cube on plate, no, the bowl", tabletop.world)
    assert _labels(tabletop, "put the red cube on the plate, no, the bowl") == [
        "pick(object=red_cube)",
        "place_on(target=bowl)",
    ]

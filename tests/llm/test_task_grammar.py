"""The stub planner's task grammar: every form parses to the right intents; anything else is refused clearly."""

from __future__ import annotations

import pytest

from bt_executive.llm.language.task_grammar import (
    GRAMMAR,
    Intent,
    IntentAction,
    TaskNotUnderstood,
    normalise_task,
    parse_task,
    split_clauses,
)
from bt_executive.llm.plan import PlannerError

A = IntentAction


def _i(action: IntentAction, clause: str, obj: str | None = None, target: str | None = None, **kw: str) -> Intent:
    return Intent(action=action, clause=clause, object=obj, target=target, **kw)


PARSES: list[tuple[str, list[Intent]]] = [
    ("pick up the red cube", [_i(A.PICK, "pick up the red cube", "the red cube")]),
    ("pick the red cube", [_i(A.PICK, "pick the red cube", "the red cube")]),
    ("Pick the red cube up.", [_i(A.PICK, "pick the red cube up", "the red cube")]),
    (
        "pick up the red cube and put it on the plate",
        [_i(A.PUT, "pick up the red cube, put it on the plate", "the red cube", "the plate", relation="on")],
    ),
    (
        "pick up the red cube, place on the plate",
        [_i(A.PUT, "pick up the red cube, place on the plate", "the red cube", "the plate", relation="on")],
    ),
    (
        "pick up the cup then pour it into the bowl",
        [_i(A.POUR, "pick up the cup, pour it into the bowl", "the cup", "the bowl")],
    ),
    (
        "pick up the red cube then put the blue cube on the plate",
        [
            _i(A.PICK, "pick up the red cube", "the red cube"),
            _i(A.PUT, "put the blue cube on the plate", "the blue cube", "the plate", relation="on"),
        ],
    ),
    (
        "put the red cube in the bowl",
        [_i(A.PUT, "put the red cube in the bowl", "the red cube", "the bowl", relation="in")],
    ),
    (
        "place the blue cube on top of the green plate",
        [_i(A.PUT, "place the blue cube on top of the green plate", "the blue cube", "the green plate", relation="on")],
    ),
    (
        "stack red cube on top of blue cube",
        [_i(A.STACK, "stack red cube on top of blue cube", "red cube", "blue cube")],
    ),
    (
        "push the cube to the left",
        [_i(A.PUSH, "push the cube to the left", "the cube", direction="left")],
    ),
    ("push the cube forwards", [_i(A.PUSH, "push the cube forwards", "the cube", direction="forward")]),
    ("push the cube backward", [_i(A.PUSH, "push the cube backward", "the cube", direction="back")]),
    ("pour the cup into the bowl", [_i(A.POUR, "pour the cup into the bowl", "the cup", "the bowl")]),
    ("poke the red cube", [_i(A.TAP, "poke the red cube", "the red cube")]),
    ("touch it", [_i(A.TAP, "touch it")]),
    ("shut the drawer", [_i(A.CLOSE, "shut the drawer", "the drawer")]),
    ("open the drawer", [_i(A.OPEN, "open the drawer", "the drawer")]),
    ("go back home", [_i(A.HOME, "go back home")]),
    ("Home!", [_i(A.HOME, "home")]),
    (
        "please tap the red cube, and then go home",
        [_i(A.TAP, "tap the red cube", "the red cube"), _i(A.HOME, "go home")],
    ),
]


@pytest.mark.parametrize(("task", "intents"), PARSES, ids=[t for t, _ in PARSES])
def test_each_form_of_the_grammar_parses_to_its_intents(task: str, intents: list[Intent]) -> None:
    assert list(parse_task(task)) == intents


def test_a_pick_followed_by_placing_the_same_object_is_one_put_intent() -> None:
    (intent,) = parse_task("grab the red cube, then put the red cube in the bowl")
    assert (intent.action, intent.object, intent.target) == (A.PUT, "the red cube", "the bowl")


def test_normalising_lowercases_and_turns_clause_punctuation_into_commas() -> None:
    assert normalise_task("  Put the Red cube on the plate!  Then   go home. ") == (
        "put the red cube on the plate, then go home"
    )


def test_chains_split_at_then_commas_and_then_and_and_before_a_verb() -> None:
    clauses = split_clauses("tap the cube, push the cube left then open the drawer and then close it and go home")
    assert clauses == ["tap the cube", "push the cube left", "open the drawer", "close it", "go home"]


def test_and_between_two_objects_does_not_split_a_clause() -> None:
    assert split_clauses("pick up the red and blue cube") == ["pick up the red and blue cube"]


OUT_OF_GRAMMAR = [
    "dance a jig",
    "",
    "   ",
    "pick",
    "push the red cube sideways",
    "pour the red cube",
    "stack the red cube",
    "put the red cube",
    "pour the red cube into",
    "pick up the red cube then fly to the moon",
]


@pytest.mark.parametrize("task", OUT_OF_GRAMMAR)
def test_a_task_outside_the_grammar_is_a_planner_error(task: str) -> None:
    with pytest.raises(PlannerError):
        parse_task(task)


def test_the_out_of_grammar_error_lists_every_form_and_the_llm_planner_option() -> None:
    with pytest.raises(TaskNotUnderstood) as err:
        parse_task("pick up the red cube then fly to the moon")
    message = str(err.value)
    assert "'fly to the moon'" in message
    assert all(form in message for form in GRAMMAR)
    assert "--planner local" in message


def test_manner_words_are_dropped_wherever_they_stand() -> None:
    assert split_clauses(normalise_task("pick up the red cube carefully and set it gently onto the plate")) == [
        "pick up the red cube",
        "set it onto the plate",
    ]


def test_to_names_a_destination_but_leaves_the_relation_to_the_target() -> None:
    relations = [parse_task(task)[0].relation for task in ("move the cube to the bowl", "put the cube in the bowl")]
    assert relations == [None, "in"]

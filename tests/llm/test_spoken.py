"""Spoken and pasted English (bt_executive/llm/language/spoken.py): what is tidied away, and what is left alone."""

from __future__ import annotations

import pytest

from bt_executive.llm.language.quantities import find_quantities
from bt_executive.llm.language.task_grammar import normalise_task


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        # fillers and chat words, wherever they stand
        ("um put the uh red cube on the plate lol", "put the red cube on the plate"),
        ("pick up the uh the plate", "pick up the plate"),
        ("uh wait like thirty seconds", "wait thirty seconds"),
        # self-corrections: the words after the marker replace what they repeat
        ("push the blue no wait the green cube to the left", "push the green cube to the left"),
        ("load the red mug no sorry the blue mug into the dishwasher", "load the blue mug into the dishwasher"),
        ("read p7 in uh psi no sorry in bar", "read p7 in bar"),
        ("lift it fifteen no twenty centimetres", "lift it twenty centimetres"),
        ("put the cube in the bowl no the plate", "put the cube in the plate"),
        # a correction stays in its clause
        ("photograph the pump house i mean not the pump, then go home", "photograph the pump house, then go home"),
        # radio: call signs and procedure words are not requests
        ("base to unit four, come off the charger, over", "come off the charger"),
        ("copy that, proceed to the pump house, over and out", "proceed to the pump house"),
        # pasted lists and work orders
        ("WO-7720: 1. Undock. 2. Proceed to corridor B. 3. Read P7.", "undock, proceed to corridor b, read p7"),
        ("Test 4: stack the green cube on the red cube.", "stack the green cube on the red cube"),
        ("3) Count the stock on shelf_a", "count the stock on shelf_a"),
        ("Empty the waste bin (id: bin) now.", "empty the waste bin now"),
        ("Route: (1) corridor b (2) pump house", "route, corridor b, pump house"),
    ],
)
def test_what_is_said_is_read_as_what_is_meant(said: str, meant: str) -> None:
    assert normalise_task(said) == meant


@pytest.mark.parametrize(
    "plain",
    [
        "there is no cube on the plate, put the red one there",  # "no" that repeats nothing corrects nothing
        "move the arm 1.5 m to the left",  # a decimal is not a list number
        "put 2 cubes in the bowl",  # neither is a count
        "go over to the table",  # "over" inside a clause is a word, not radio
        "go to unit 4 and wait",  # a place called unit, inside a request
        "step 2 metres back",  # a label word with a number and no mark after it is not a list label
    ],
)
def test_plain_sentences_are_left_as_they_are(plain: str) -> None:
    assert normalise_task(plain) == plain


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("hold at point eight metres", 0.8),
        ("point two five m", 0.25),
        ("2 point 5 m", 2.5),
        ("two point five metres", 2.5),
        ("one point five metres", 1.5),
    ],
)
def test_a_spoken_decimal_point_is_read_as_one(said: str, value: float) -> None:
    [quantity] = find_quantities(said)
    assert (round(quantity.value, 9), quantity.unit) == (value, "meter")

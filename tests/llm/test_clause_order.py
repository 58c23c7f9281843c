"""Clause order: "before"/"after"/"once" sentences put in the order the robot acts in, others untouched."""

from __future__ import annotations

import pytest

from bt_executive.llm.language.clause_order import reorder_clauses


@pytest.mark.parametrize(
    ("text", "ordered"),
    [
        ("after opening the drawer, put the cube in it", "open the drawer, then put the cube in it"),
        ("before going home, put the red cube on the plate", "put the red cube on the plate, then go home"),
        ("put the red cube in the bowl before you go home", "put the red cube in the bowl, then go home"),
        ("once you have opened the drawer, put it inside", "open the drawer, then put it inside"),
        ("go home after dropping the cube", "drop the cube, then go home"),
        ("tidy up the table by putting all cubes in the bowl", "put all cubes in the bowl"),
        ("put the red cube on the plate", "put the red cube on the plate"),
        ("put the cube back where it was before", "put the cube back where it was before"),
        ("put the cube on the plate and go home after that", "put the cube on the plate and go home after that"),
    ],
)
def test_an_order_word_puts_its_clause_where_it_happens(text: str, ordered: str) -> None:
    assert reorder_clauses(text) == ordered


def test_a_pronoun_that_now_comes_before_its_referent_is_replaced_by_it() -> None:
    objects = {"close the drawer": "the drawer"}
    assert (
        reorder_clauses("close the drawer after you put the cube in it", objects.get)
        == "put the cube in the drawer, then close the drawer"
    )

"""The predicate language: a closed vocabulary with fixed arities, checked at load."""

from __future__ import annotations

import pytest

from bt_executive.skills.predicates import Predicate, parse_predicate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("holding(object)", Predicate(name="holding", args=("object",))),
        ("  on( object ,base ) ", Predicate(name="on", args=("object", "base"))),
        ("not drawer_open(drawer)", Predicate(name="drawer_open", args=("drawer",), negated=True)),
        ("gripper_empty", Predicate(name="gripper_empty")),
        ("at(red_cube, left_zone)", Predicate(name="at", args=("red_cube", "left_zone"))),
    ],
)
def test_predicates_parse(text: str, expected: Predicate) -> None:
    assert parse_predicate(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("holdin(object)", "unknown predicate"),
        ("holding", "takes 1 argument"),
        ("on(a)", "takes 2 argument"),
        ("holding(__import__('os'))", "cannot parse"),
        ("holding(a b)", "not a name"),
        ("", "cannot parse"),
    ],
)
def test_bad_predicates_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_predicate(text)


def test_predicate_prints_back_in_canonical_form() -> None:
    assert str(parse_predicate("not   on(a,b)")) == "not on(a, b)"

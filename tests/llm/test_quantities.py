"""Quantities: amounts read from task text, converted to a parameter's unit, refused outside its bounds."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bt_executive.llm.language.quantities import (
    COUNT,
    QuantityOutOfBounds,
    QuantityWords,
    UnitMismatch,
    check_bounds,
    convert,
    find_quantities,
    fit,
    kind_of,
    registry,
    schema_unit,
    unit_kind,
)
from bt_executive.llm.plan import PlannerRefused, RefusalKind

# Words that meet in amounts, and digits that are no ASCII number ("²", "٣"): mixed at random, nothing may raise.
TASK_WORDS: tuple[str, ...] = (
    *("push", "the", "a", "an", "half", "quarter", "quarters", "and", "of", "per", "in", ",", "-", "°"),
    *("twenty", "point", "five", "two", "2", "0.5", "-3", "²", "٣", "cm", "m/s", "second", "once", "twice"),
    *("times", "turn"),
)
PUSH_DISTANCE = {"type": "number", "minimum": 0.01, "maximum": 0.2, "default": 0.05, "unit": "m"}


@pytest.fixture(autouse=True, scope="module")
def pint_registry_built() -> None:
    """Build pint's registry before any test is timed: hypothesis' deadline would count its half second."""
    registry()


def read(text: str) -> list[tuple[float, str, str]]:
    return [(q.value, q.unit, q.text) for q in find_quantities(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("push it 10 cm", (10.0, "centimeter", "10 cm")),
        ("push it 5 centimetres to the left", (5.0, "centimeter", "5 centimetres")),
        ("move it half a metre", (0.5, "meter", "half a metre")),
        ("push it 0.3 m", (0.3, "meter", "0.3 m")),
        ("wait two seconds", (2.0, "second", "two seconds")),
        ("turn it 90 degrees", (90.0, "degree", "90 degrees")),
        ("give the knob a quarter turn", (0.25, "turn", "a quarter turn")),
        ("drive at 1 metre per second", (1.0, "meter / second", "1 metre per second")),
        ("drive at 0.5 m/s", (0.5, "meter / second", "0.5 m/s")),
        ("push it two point five cm", (2.5, "centimeter", "two point five cm")),
        ("move it one and a half metres", (1.5, "meter", "one and a half metres")),
        ("wait one second", (1.0, "second", "one second")),
        ("push it 5cm", (5.0, "centimeter", "5cm")),
        ("push it 2 CM", (2.0, "centimeter", "2 CM")),
    ],
)
def test_amounts_in_digits_words_and_fractions_are_read_with_their_unit(
    text: str, expected: tuple[float, str, str]
) -> None:
    assert read(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("wave twice", (2.0, "twice")),
        ("wave once", (1.0, "once")),
        ("wipe the table three times", (3.0, "three times")),
        ("wave 2 times", (2.0, "2 times")),
        ("do two passes", (2.0, "two passes")),
        ("wave twenty-one times", (21.0, "twenty-one times")),
        ("drive three full laps of the yard", (3.0, "three full laps")),
        ("tap it two more times", (2.0, "two more times")),
    ],
)
def test_counts_are_read_as_count_quantities(text: str, expected: tuple[float, str]) -> None:
    assert [(q.value, q.unit, q.text) for q in find_quantities(text)] == [(expected[0], COUNT, expected[1])]


@pytest.mark.parametrize(
    "text",
    [
        "pick the 2 cubes",
        "put two cubes on the plate",
        "pick the 10 cm cube",
        "put 2 in the box",
        "use two hands",
        "lift 2 cups",
        "pick the second cube",
        "stop after your third minute",
        "wait 5",
        "Once it is up, wave",
        "pick the cube and once it is up, wave",
        "push it twice as far",
        "pick the 3 more cubes",
    ],
)
def test_numbers_that_name_objects_or_are_no_amount_are_not_read(text: str) -> None:
    assert find_quantities(text) == []


def test_each_amount_carries_the_span_of_its_words_in_order() -> None:
    text = "push the red cube 5 cm to the left, twice"
    spans = [q.span for q in find_quantities(text)]
    assert [text[start:end] for start, end in spans] == ["5 cm", "twice"]


def test_once_that_starts_a_clause_joins_clauses_but_twice_after_a_comma_counts() -> None:
    texts = ["pick the cube, once it is up wave", "wipe the table, twice"]
    assert [[q.text for q in find_quantities(text)] for text in texts] == [[], ["twice"]]


def test_each_amount_knows_its_kind() -> None:
    kinds = [q.kind for q in find_quantities("drive 2 m at 0.5 m/s for 10 s, turn 90 degrees, wave twice")]
    assert kinds == ["length", "speed", "duration", "angle", COUNT]


def test_words_passed_in_replace_the_english_defaults() -> None:
    words = QuantityWords(count_adverbs={"dreimal": 3})
    assert [q.value for q in find_quantities("wave dreimal", words)] == [3.0]


def test_a_unit_outside_the_allowed_units_is_not_read() -> None:
    words = QuantityWords(units=frozenset({"meter"}))
    assert find_quantities("push it 10 cm", words) == []


def test_convert_changes_centimetres_into_metres() -> None:
    (quantity,) = find_quantities("push it 10 cm")
    assert convert(quantity, "m") == pytest.approx(0.1)


def test_convert_turns_a_quarter_turn_into_ninety_degrees() -> None:
    (quantity,) = find_quantities("give it a quarter turn")
    assert convert(quantity, "deg") == pytest.approx(90.0)


def test_convert_refuses_a_length_for_a_duration_naming_both_kinds() -> None:
    (quantity,) = find_quantities("wait 10 cm")
    with pytest.raises(
        UnitMismatch, match=r"^refused \(not_afforded\): 10 cm is a length, wait's seconds takes a duration \(s\)$"
    ):
        convert(quantity, "s", param="wait's seconds")


def test_convert_refuses_a_count_for_a_length() -> None:
    (quantity,) = find_quantities("push it twice")
    with pytest.raises(UnitMismatch, match="twice is a count, the parameter takes a length"):
        convert(quantity, "m")


def test_a_unit_mismatch_is_a_planner_refusal() -> None:
    (quantity,) = find_quantities("wave 3 cm")
    with pytest.raises(PlannerRefused) as refused:
        convert(quantity, COUNT)
    assert refused.value.kind is RefusalKind.NOT_AFFORDED


def test_an_unknown_target_unit_is_a_value_error() -> None:
    (quantity,) = find_quantities("push it 10 cm")
    with pytest.raises(ValueError, match="'bananas' is no unit"):
        convert(quantity, "bananas")


SAME_KIND_UNITS = st.sampled_from(
    [
        ("m", "cm"),
        ("cm", "mm"),
        ("m", "inch"),
        ("s", "min"),
        ("s", "ms"),
        ("deg", "rad"),
        ("turn", "deg"),
        ("m/s", "km/h"),
    ]
)


@given(value=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), units=SAME_KIND_UNITS)
def test_converting_there_and_back_returns_the_value(value: float, units: tuple[str, str]) -> None:
    there, back = units
    (quantity,) = find_quantities(f"move 1 {there}")
    moved = quantity.model_copy(update={"value": value})
    converted = convert(moved, back)
    returned = convert(moved.model_copy(update={"value": converted, "unit": back}), there)
    assert math.isclose(returned, value, rel_tol=1e-9, abs_tol=1e-9)


@given(number=st.integers(min_value=0, max_value=10_000))
def test_a_number_before_an_object_noun_is_never_an_amount(number: int) -> None:
    assert find_quantities(f"pick {number} cubes from the 3 plates") == []


@given(number=st.decimals(min_value=0, max_value=1000, places=2, allow_nan=False, allow_infinity=False))
def test_any_number_before_a_unit_is_read_exactly_and_its_span_is_its_words(number: object) -> None:
    text = f"push the cube {number} mm to the left"
    (quantity,) = find_quantities(text)
    assert (quantity.value, text[quantity.span[0] : quantity.span[1]]) == (float(str(number)), f"{number} mm")


@given(text=st.text(max_size=80) | st.lists(st.sampled_from(TASK_WORDS), max_size=12).map(" ".join))
def test_any_text_reads_without_error_and_every_span_holds_its_words(text: str) -> None:
    for quantity in find_quantities(text):
        assert text[quantity.span[0] : quantity.span[1]] == quantity.text


def test_check_bounds_names_the_maximum_and_the_skill() -> None:
    with pytest.raises(
        QuantityOutOfBounds,
        match=r"distance 0\.5 m is above the maximum 0\.2 m of tabletop/push's distance$",
    ):
        check_bounds(0.5, PUSH_DISTANCE, "distance", owner="tabletop/push", unit="m")


def test_check_bounds_names_the_minimum() -> None:
    with pytest.raises(QuantityOutOfBounds, match=r"below the minimum 0\.01 m") as refused:
        check_bounds(0.001, PUSH_DISTANCE, "distance", owner="tabletop/push", unit="m")
    assert (refused.value.bound, refused.value.limit) == ("minimum", 0.01)


def test_check_bounds_refuses_a_fraction_of_a_whole_number_parameter() -> None:
    schema = {"type": "integer", "minimum": 1, "maximum": 5}
    with pytest.raises(QuantityOutOfBounds, match="not a whole number"):
        check_bounds(2.5, schema, "times", owner="social/wave_hello")


def test_check_bounds_honours_exclusive_bounds() -> None:
    with pytest.raises(QuantityOutOfBounds, match="not below the exclusive maximum 1"):
        check_bounds(1.0, {"exclusiveMaximum": 1}, "fraction", owner="liquids/pour_into")


@given(value=st.floats(min_value=0.01, max_value=0.2))
def test_check_bounds_lets_every_value_within_the_bounds_pass(value: float) -> None:
    check_bounds(value, PUSH_DISTANCE, "distance", owner="tabletop/push", unit="m")


@given(value=st.floats(min_value=0.2, exclude_min=True, allow_nan=False, allow_infinity=False))
def test_check_bounds_refuses_every_value_above_the_maximum(value: float) -> None:
    with pytest.raises(QuantityOutOfBounds):
        check_bounds(value, PUSH_DISTANCE, "distance", owner="tabletop/push", unit="m")


def test_fit_converts_and_says_what_the_user_said_when_it_refuses() -> None:
    (quantity,) = find_quantities("push it 50 cm")
    with pytest.raises(QuantityOutOfBounds, match=r"distance 50 cm \(0\.5 m\) is above the maximum 0\.2 m"):
        fit(quantity, PUSH_DISTANCE, "distance", owner="tabletop/push")


def test_fit_returns_the_value_in_the_parameters_unit() -> None:
    (quantity,) = find_quantities("push it 5 cm")
    assert fit(quantity, PUSH_DISTANCE, "distance", owner="tabletop/push") == pytest.approx(0.05)


def test_fit_reads_a_count_into_a_whole_number_parameter() -> None:
    (quantity,) = find_quantities("wave three times")
    assert fit(quantity, {"type": "integer", "minimum": 1, "maximum": 5}, "times", owner="social/wave_hello") == 3.0


def test_fit_refuses_a_length_for_a_count_parameter() -> None:
    (quantity,) = find_quantities("wave 3 cm")
    with pytest.raises(UnitMismatch, match=r"3 cm is a length, social/wave_hello's times takes a count$"):
        fit(quantity, {"type": "integer", "minimum": 1}, "times", owner="social/wave_hello")


def test_fit_needs_a_unit_for_a_number_parameter() -> None:
    (quantity,) = find_quantities("place it 2 cm above")
    with pytest.raises(ValueError, match="names no unit"):
        fit(quantity, {"type": "number", "maximum": 0.1}, "release_height", owner="tabletop/place_on")


@pytest.mark.parametrize(
    ("schema", "unit"),
    [
        ({"type": "number", "unit": "m"}, "m"),
        ({"type": "number", "description": "m"}, "m"),
        ({"type": "number", "description": "m/s"}, "m/s"),
        ({"type": "number", "description": "m to back off"}, None),
        ({"type": "number", "description": "how long to wait"}, None),
        ({"type": "integer"}, COUNT),
        ({"type": "number"}, None),
    ],
)
def test_schema_unit_reads_unit_or_a_description_that_is_only_a_unit(
    schema: dict[str, object], unit: str | None
) -> None:
    assert schema_unit(schema) == unit


@pytest.mark.parametrize(
    ("unit", "kind"),
    [
        ("cm", "length"),
        ("s", "duration"),
        ("m/s", "speed"),
        ("deg", "angle"),
        ("rpm", "angular speed"),
        ("N", "force"),
        (COUNT, COUNT),
    ],
)
def test_kind_of_names_what_a_unit_measures(unit: str, kind: str) -> None:
    assert kind_of(unit) == kind


@pytest.mark.parametrize(
    ("schema", "kind"),
    [
        ({"type": "number", "unit": "s"}, "duration"),
        ({"type": "number", "description": "cm"}, "length"),
        ({"type": "integer"}, COUNT),
        ({"type": "number", "unit": "percent"}, None),  # a unit, but of no kind an amount said can fill
        ({"type": "string"}, None),
    ],
)
def test_unit_kind_says_what_amount_a_parameter_takes(schema: dict[str, object], kind: str | None) -> None:
    assert unit_kind(schema) == kind


def test_a_percentage_is_not_an_angle_though_both_are_dimensionless() -> None:
    with pytest.raises(ValueError, match="no unit of a kind"):
        kind_of("percent")

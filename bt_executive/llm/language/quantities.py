"""Quantities: the amounts a task names ("push it 2 cm", "wait two seconds", "wave twice").

A skill parameter such as ``tabletop/push``'s ``distance`` takes a number in one
unit (its schema says ``unit: m``); users say "5 centimetres", "half a metre" or
"0.05 m". This module finds those amounts in task text, converts them to the
parameter's unit, and refuses an amount the parameter's bounds do not allow,
naming the bound::

    "push the red cube 5 cm to the left, twice"
                       ────                ─────
    find_quantities -> [Quantity(5 centimeter, length), Quantity(2 count)]
    fit(first, {"unit": "m", "maximum": 0.2}, "distance", owner="tabletop/push") -> 0.05

Number words are read by text2num ("two point five", "twenty-one"), units and
conversions by pint. The words around them (count adverbs, fractions, count
nouns) are the lexicon's ``amounts`` (``config/lexicon.yaml``, read as a
``QuantityWords``), so another lexicon can supply its own; the units a task may
name are pint's names, kept in code. A number is an amount only when a unit or
a count word follows it: "the 2 cubes" names objects, and so does "the 10 cm
cube" (an amount right after a determiner describes an object, it does not ask
for one).

Importing pint and building its registry take about half a second together
(0.3 to 0.5 s to import, 0.2 to 0.35 s to build), so both wait for the first
use (``registry()``), never the import of this module.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from text_to_num import find_numbers  # type: ignore[import-untyped]

from bt_executive.llm.language.lexicon import QuantityWords as QuantityWords
from bt_executive.llm.language.lexicon import alternatives, load_lexicon
from bt_executive.llm.plan import PlannerRefused, RefusalKind

if TYPE_CHECKING:
    import pint

COUNT = "count"
"""The unit and kind of a number of repetitions ("twice", "3 times")."""

KINDS: Mapping[str, str] = {
    "length": "meter",
    "duration": "second",
    "speed": "meter / second",
    "angle": "radian",
    "angular speed": "radian / second",
    "force": "newton",
    "volume": "liter",
    "mass": "kilogram",
    "pressure": "pascal",
}
"""The kinds of amount a task may name, each with a unit of that kind: a unit is of the kind it converts to."""


def english() -> QuantityWords:
    """The lexicon's words around amounts, for English tasks (``config/lexicon.yaml``: ``amounts``)."""
    return load_lexicon().amounts


def is_repetition(quantity: Quantity) -> bool:
    """Whether a count says how many times to do something ("twice", "3 times"), not how many things ("3 levels")."""
    words = english()
    last = quantity.text.split()[-1].lower() if quantity.text.split() else ""
    return quantity.unit == COUNT and (last in words.count_adverbs or last in words.repetition_nouns)


@cache
def number_words() -> Mapping[str, int]:
    """Number words said alone, with their values: what spoken decimals, corrections and spoken ids read."""
    return dict(load_lexicon().number_words)


class _NumberWords(Mapping[str, int]):
    """``number_words()`` under the name modules import (``NUMBER_WORDS``), read from the lexicon on first use."""

    def __getitem__(self, word: str) -> int:
        return number_words()[word]

    def __iter__(self) -> Iterator[str]:
        return iter(number_words())

    def __len__(self) -> int:
        return len(number_words())


NUMBER_WORDS: Mapping[str, int] = _NumberWords()
"""Number words said alone, with their values (the lexicon's ``number_words``)."""


@cache
def _digit_words() -> dict[str, str]:
    """The digit each word for a digit says, for digits said in a row ("point oh five")."""
    words = {word: str(n) for word, n in number_words().items() if n < 10}
    return words | {word: str(n) for word, n in english().digit_words.items()}


class Quantity(BaseModel):
    """An amount found in a task: its value, unit, kind and where its words are in the text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: float
    unit: str = Field(description="pint's canonical unit ('centimeter', 'meter / second'), or 'count'")
    kind: str = Field(description="a KINDS name, or 'count'")
    span: tuple[int, int] = Field(description="character span of the amount's words in the task text")
    text: str = Field(description="the words as the task says them")
    named: str | None = Field(
        default=None, description="what the task says the amount is ('a clearance of 1 m': clearance), if it says"
    )


class UnitMismatch(PlannerRefused):
    """An amount of the wrong kind for a parameter ("wait 10 cm"): refused rather than guessed."""

    def __init__(self, reason: str, *, quantity: Quantity, takes: str):
        super().__init__(reason, RefusalKind.NOT_AFFORDED)
        self.quantity = quantity
        self.takes = takes


class QuantityOutOfBounds(PlannerRefused):
    """An amount outside a parameter's bounds ("push it 50 cm" when pushes go 20 cm at most)."""

    def __init__(self, reason: str, *, param: str, value: float, bound: str, limit: float | None):
        super().__init__(reason, RefusalKind.NOT_AFFORDED)
        self.param = param
        self.value = value
        self.bound = bound
        self.limit = limit


_registry: pint.UnitRegistry[Any] | None = None
_registry_lock = threading.Lock()


def registry() -> pint.UnitRegistry[Any]:
    """The one pint registry, built on first use: importing pint and building it cost about 0.5 s."""
    global _registry
    if _registry is None:
        with _registry_lock:
            if _registry is None:
                import pint  # paid by the first call that reads a unit, not by every import of the planner

                _registry = pint.UnitRegistry()
    return _registry


def _parse_unit(words: str) -> pint.Unit | None:
    try:
        return registry().parse_units(words)
    except Exception:  # pint raises several kinds (undefined name, syntax) for words that are no unit
        return None


@cache
def _unit_said() -> re.Pattern[str]:
    """A unit asked for by name after its marker (``unit_markers``: "in bar", "units psi")."""
    markers = alternatives(load_lexicon().unit_markers)
    return re.compile(rf"(?:(?P<rest>.+?)\s*,?\s+)?(?:{markers})\s+(?P<unit>[a-z°]+)")


def unit_said(phrase: str) -> tuple[str, str] | None:
    """ "p7 in bar" -> ("p7", "bar"), ", in bar" said alone -> ("", "bar"): a unit asked for by name, after
    what it is for or as a clause of its own; None when the phrase ends in no such words. The one reader of
    both forms, so a clause and an object phrase agree on what names a unit."""
    found = _unit_said().fullmatch(phrase)
    return None if found is None else (found.group("rest") or "", found.group("unit"))


@lru_cache(maxsize=256)
def names_unit(word: str) -> bool:
    """Whether a word is a unit of measure of any dimension ("bar", "psi", "kPa", "celsius"), for a skill's
    parameter that takes a unit's name rather than an amount."""
    unit = _parse_unit(word) if re.fullmatch(r"[A-Za-z°]{2,12}", word) else None
    return unit is not None and not unit.dimensionless


@lru_cache(maxsize=1024)
def _read_unit(words: str) -> tuple[str, str] | None:
    """(pint's canonical name, kind) of unit words, or None when they are no unit of a known kind."""
    for form in dict.fromkeys((words, words.lower())):
        unit = _parse_unit(form)
        if unit is None:
            continue
        root = registry().get_root_units(unit)[1]
        for kind, reference in KINDS.items():
            if root == registry().get_root_units(reference)[1]:
                return str(unit), kind
    return None


def kind_of(unit: str) -> str:
    """What a unit measures ('length', 'count', ...), so a caller can match an amount to a parameter."""
    if unit == COUNT:
        return COUNT
    read = _read_unit(unit)
    if read is None:
        raise ValueError(f"{unit!r} is no unit of a kind tasks name ({', '.join(KINDS)}, {COUNT})")
    return read[1]


class _Word:
    """A token as text2num's ``find_numbers`` reads it (its ``Token`` protocol), with its place in the text."""

    __slots__ = ("end", "start", "word")

    def __init__(self, match: re.Match[str]) -> None:
        self.word = match.group()
        self.start, self.end = match.span()

    def text(self) -> str:
        return self.word

    def nt_separated(self, previous: _Word) -> bool:
        return False

    def not_a_number_part(self) -> bool:
        return False


# A number in digits (a minus sign only when it starts a word), a word (with "/" for "m/s"), or one other character.
_NUMBER = r"(?:(?<!\w)-)?[0-9]+(?:\.[0-9]+)?"
_TOKEN = re.compile(rf"{_NUMBER}|[^\W\d_]+(?:/[^\W\d_]+)*|\S")
_IS_NUMBER = re.compile(_NUMBER)
_UNIT_NAMES = re.compile(r"[A-Za-z_]+")


_DIGITS = frozenset("0123456789")


@dataclass
class _Reader:
    """One pass over one task's tokens."""

    text: str
    tokens: list[_Word]
    words: QuantityWords
    low: list[str] = field(init=False)
    numbers: dict[int, tuple[int, float]] = field(init=False)  # first token -> (end token, value)

    def __post_init__(self) -> None:
        self.low = [token.word.lower() for token in self.tokens]
        self.numbers = {}
        for i, token in enumerate(self.tokens):
            if _IS_NUMBER.fullmatch(token.word):
                self.numbers[i] = (i + 1, float(token.word))
        # threshold 0: "two cm" is as much an amount as "twenty cm"; ordinals ("second") are never amounts.
        for found in find_numbers(self.tokens, "en", 0):
            if not found.is_ordinal:
                start = int(found.start)
                if start > 0 and self.low[start - 1] == "a" and self.low[start] in self.words.scales:
                    start -= 1  # "a hundred and twenty degrees": the "a" is the number's
                self.numbers[start] = (int(found.end), float(found.value))
        self._bare_points()

    def _bare_points(self) -> None:
        """'point eight metres' is 0.8 m and '2 point 5 m' is 2.5 m, as radio and dictation say them."""
        ending_at = {end: start for start, (end, _) in self.numbers.items()}
        covered = {k for start, (end, _) in self.numbers.items() for k in range(start, end)}
        for i, word in enumerate(self.low):
            if word != "point" or i in covered:  # "one point five": text2num reads it whole
                continue
            digits, j = "", i + 1
            while j < len(self.low) and (digit := _digit_words().get(self.low[j], self.low[j])) in _DIGITS:
                digits, j = digits + digit, j + 1
            if not digits:
                continue
            start, whole = i, 0.0
            if i in ending_at and self.numbers[ending_at[i]][1].is_integer():
                start = ending_at[i]
                whole = self.numbers[start][1]
            for k in range(start, j):
                self.numbers.pop(k, None)
            self.numbers[start] = (j, whole + float(f"0.{digits}"))

    def at(self, i: int) -> str:
        return self.low[i] if i < len(self.low) else ""

    def read(self) -> list[Quantity]:
        found: list[Quantity] = []
        i = 0
        while i < len(self.tokens):
            hit = self._amount(i)
            if hit is None:
                i += 1
                continue
            quantity, i = hit
            if quantity is not None:
                found.append(quantity)
        return found

    def _amount(self, start: int) -> tuple[Quantity | None, int] | None:
        """The amount whose words begin at ``start`` and the token after them (None: no amount starts there)."""
        words = self.words
        if start in self.numbers:
            end, value = self.numbers[start]
            if self.at(end) == "and" and self.at(end + 1) in words.articles and self.at(end + 2) in words.fractions:
                value += words.fractions[self.at(end + 2)]  # "one and a half metres"
                end += 3
            elif self.at(end) in words.fractions:
                value *= words.fractions[self.at(end)]  # "three quarters of a turn"
                end = self._past_of_a(end + 1)
            elif self.at(end) in words.count_nouns:
                return self._made(start, end + 1, value, COUNT, COUNT)
            elif self.at(end) in words.count_modifiers and self.at(end + 1) in words.count_nouns:
                return self._made(start, end + 2, value, COUNT, COUNT)  # "3 full laps", "two more times"
        else:
            first = start + 1 if self.at(start) in words.articles else start
            if self.at(first) in words.fractions:
                value = words.fractions[self.at(first)]  # "half a metre", "a quarter turn"
                end = self._past_of_a(first + 1)
            elif self.at(start) in words.count_adverbs and self._counts(start):
                return self._made(start, start + 1, words.count_adverbs[self.at(start)], COUNT, COUNT)
            elif self.at(start) in words.articles and self._unit(one := self._past_whole(start + 1)) is not None:
                value, end = 1.0, one  # "a minute", "a full minute", "an hour": one of the unit
            else:
                return None
        unit = self._unit(end)
        if unit is None:
            return None
        name, kind, end = unit
        return self._made(start, end, value, name, kind)

    def _made(self, start: int, end: int, value: float, unit: str, kind: str) -> tuple[Quantity | None, int]:
        if (
            start > 0
            and self.low[start - 1] in self.words.determiners
            and self.low[start - 1] not in self.words.articles
        ):
            return None, end  # "the 10 cm cube": the amount is part of the object's name
        span = (self.tokens[start].start, self.tokens[end - 1].end)
        quantity = Quantity(value=value, unit=unit, kind=kind, span=span, text=self.text[span[0] : span[1]])
        return quantity, end

    def _counts(self, i: int) -> bool:
        """Whether a count adverb counts: not joining clauses ("once it is up, ..."), not comparing ("twice as")."""
        if self.at(i + 1) in self.words.comparison_words:
            return False
        if self.at(i) not in self.words.conjunctions:
            return True
        previous = self.tokens[i - 1].word if i > 0 else ""
        return previous[-1:].isalnum() and previous.lower() not in self.words.clause_words

    def _past_whole(self, i: int) -> int:
        """Skip the words that only stress "one" in "a full minute", "a whole metre"."""
        while self.at(i) in self.words.stresses:
            i += 1
        return i

    def _past_of_a(self, i: int) -> int:
        """Skip the "of a" in "a quarter of a turn" and the "a" in "half a metre"."""
        if self.at(i) == "of":
            i += 1
        return i + 1 if self.at(i) in self.words.articles else i

    def _unit(self, i: int) -> tuple[str, str, int] | None:
        """(canonical unit, kind, token after it) for the unit words at ``i``: "cm", "m/s", "metre per second"."""
        if i >= len(self.tokens) or self.low[i] in self.words.not_units:
            return None
        word = self.tokens[i].word
        if self.at(i + 1) == "per" and i + 2 < len(self.tokens):
            read = self._allowed(f"{word} per {self.tokens[i + 2].word}")
            if read is not None:
                return (*read, i + 3)
        read = self._allowed(word)
        return None if read is None else (*read, i + 1)

    def _allowed(self, words: str) -> tuple[str, str] | None:
        read = _read_unit(words)
        if read is None or not set(_UNIT_NAMES.findall(read[0])) <= self.words.units:
            return None
        return read


def find_quantities(text: str, words: QuantityWords | None = None) -> list[Quantity]:
    """Every amount a task names, in order, with spans so the grammar can cut them out of its phrases; ``words``
    default to the lexicon's (``english()``)."""
    tokens = [_Word(match) for match in _TOKEN.finditer(text)]
    return _Reader(text, tokens, words or english()).read() if tokens else []


def said_number(word: str) -> float | None:
    """The number one word says ("4", "four", "twelve", "2.5"), if it says one: the one reader of a count word
    for the clause forms, the task grammar and noun phrases."""
    said = find_quantities(f"{word} times")
    return said[0].value if len(said) == 1 and said[0].text.split()[0] == word else None


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def convert(quantity: Quantity, to_unit: str, *, param: str = "the parameter") -> float:
    """The amount in a parameter's unit; an amount of another kind is refused (``UnitMismatch``), never guessed."""
    takes = kind_of(to_unit)
    if takes != quantity.kind:
        shown = "" if takes == COUNT else f" ({to_unit})"
        reason = f"{quantity.text} is {_a(quantity.kind)}, {param} takes {_a(takes)}{shown}"
        raise UnitMismatch(reason, quantity=quantity, takes=takes)
    if takes == COUNT:
        return quantity.value
    # 70 cm is 0.7 m, not 0.7000000000000001: a float's last bits are no part of what the user said
    return float(f"{registry().Quantity(quantity.value, quantity.unit).to(to_unit).magnitude:.12g}")


_UNIT_SYMBOL = re.compile(r"[A-Za-z°]+(?:/[A-Za-z]+)?")


def schema_unit(schema: Mapping[str, Any]) -> str | None:
    """A parameter's unit: its schema's ``unit``, or a description that is only a unit (``description: m``)."""
    unit = schema.get("unit")
    if isinstance(unit, str):
        return unit
    description = schema.get("description")
    if isinstance(description, str) and _UNIT_SYMBOL.fullmatch(description) and _read_unit(description):
        return description
    if schema.get("type") == "integer":
        return COUNT  # a whole number with no unit counts something: "3 times", "twice"
    return None


def unit_kind(schema: Mapping[str, Any]) -> str | None:
    """The kind of amount (length, duration, count, ...) a parameter takes, or None for one taking no amount."""
    unit = schema_unit(schema)
    if unit is None:
        return None
    try:
        return kind_of(unit)
    except ValueError:  # a unit pint does not know: no amount said can fill it
        return None


def _number(limit: object) -> float | None:
    return float(limit) if isinstance(limit, int | float) and not isinstance(limit, bool) else None


_BOUNDS: tuple[tuple[str, Callable[[float, float], bool], str], ...] = (
    ("minimum", lambda value, limit: value < limit, "below the minimum"),
    ("exclusiveMinimum", lambda value, limit: value <= limit, "not above the exclusive minimum"),
    ("maximum", lambda value, limit: value > limit, "above the maximum"),
    ("exclusiveMaximum", lambda value, limit: value >= limit, "not below the exclusive maximum"),
)


def check_bounds(
    value: float, schema: Mapping[str, Any], param: str, *, owner: str, unit: str = "", said: str = ""
) -> None:
    """Refuse a value the parameter's schema does not allow, naming the bound so the user can ask again."""
    suffix = f" {unit}" if unit and unit != COUNT else ""
    shown = f"{value:g}{suffix}"
    amount = f"{said} ({shown})" if said and said != shown else shown
    for keyword, breaks, words in _BOUNDS:
        limit = _number(schema.get(keyword))
        if limit is not None and breaks(value, limit):
            reason = f"{param} {amount} is {words} {limit:g}{suffix} of {owner}'s {param}"
            raise QuantityOutOfBounds(reason, param=param, value=value, bound=keyword, limit=limit)
    if schema.get("type") == "integer" and not float(value).is_integer():
        reason = f"{param} {amount} is not a whole number, which {owner}'s {param} must be"
        raise QuantityOutOfBounds(reason, param=param, value=value, bound="type", limit=None)


def fit(quantity: Quantity, schema: Mapping[str, Any], param: str, *, owner: str) -> float:
    """The value a skill call sends for an amount: converted to the parameter's unit and checked against its bounds."""
    unit = schema_unit(schema)
    if unit is None:
        raise ValueError(
            f"{owner}'s {param} names no unit (give its schema a `unit:`), so {quantity.text!r} cannot be converted"
        )
    value = convert(quantity, unit, param=f"{owner}'s {param}")
    check_bounds(value, schema, param, owner=owner, unit=unit, said=quantity.text)
    return value

"""Said arguments: a skill's choices, counts and surfaces said inside an object phrase, read from its manifest.

A clause's object phrase often carries more than the object: a choice among a
parameter's enum values, a count that names its parameter, or the part of a
place a skill works on. Each is read against the candidate skills' manifests,
never from a list of skill names, and cut out so that the rest names the object::

    "vacuum the kitchen on max power"        -> "the kitchen"      (power: max is an enum value)
    "take a photo of the valve with the wrist camera" -> target "the wrist camera" is camera: wrist
    "read the qr code on the label"          -> "the label"        (code: qr)
    "scan 3 levels of the shelf"             -> "the shelf"        levels = 3 (an integer parameter's name)
    "vacuum the floor of the living room"    -> "the living room"  (floor: a word of the skill's objects)
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import cache

from text_to_num import text2num  # type: ignore[import-untyped]

from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.quantities import names_unit, unit_said
from bt_executive.skills.manifest import SkillManifest


class _Patterns:
    """The lexicon's words around a said argument (``config/lexicon.yaml``: ``said_arguments``), compiled once."""

    def __init__(self, lexicon: Lexicon) -> None:
        words = lexicon.said_arguments
        article = rf"(?:(?:{alternatives(words.articles)})\s+)?"
        after, before = alternatives(words.after_object), alternatives(words.before_object)
        self.choice = re.compile(rf"{article}(?P<v>[a-z]+)(?:\s+(?P<n>[a-z]+))?")
        self.choice_forms = (
            re.compile(rf"(?P<rest>.+?)\s+(?:{after})\s+{article}(?P<v>[a-z]+)(?:\s+(?P<n>[a-z]+))?"),
            re.compile(rf"{article}(?P<v>[a-z]+)(?:\s+(?P<n>[a-z]+))?\s+(?:{before})\s+(?P<rest>.+)"),
        )
        links = alternatives(words.count_links)
        self.count_before = re.compile(
            rf"(?:(?:{alternatives(words.count_leads)})\s+)?(?:the\s+)?(?P<n>[a-z0-9\-]+)\s+(?P<noun>[a-z]+)"
            rf"\s+(?:{links})\s+(?P<rest>.+)"
        )
        surface = alternatives(words.surface_links)
        self.surface = re.compile(rf"{article}(?P<w>[a-z]+)\s+(?:{surface})\s+(?P<rest>.+)")
        self.surface_after = re.compile(rf"{article}(?P<rest>.+?)\s+(?P<w>[a-z]+)")


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


def _choices(skills: Iterable[SkillManifest]) -> dict[str, set[str]]:
    """Every string enum value of the skills' parameters (lower case), with the parameters that take it."""
    found: dict[str, set[str]] = {}
    for manifest in skills:
        for param in manifest.parameter_names():
            for value in manifest.parameter_schema(param).get("enum") or ():
                if isinstance(value, str):
                    found.setdefault(value.lower(), set()).add(param)
    return found


def _names_choice(value: str, noun: str | None, params: set[str]) -> bool:
    """Whether "<value> <noun>" says a choice: the noun is absent, the parameter's name or an option noun. A
    value that is also a function word ("on", "front") says a choice only with such a noun ("the front camera";
    not "on the table", "in front of")."""
    if noun is None:
        return value not in load_lexicon().function_words
    return noun in params or noun.rstrip("s") in params or noun in load_lexicon().option_nouns


def is_choice(phrase: str, skills: Iterable[SkillManifest]) -> bool:
    """Whether a whole phrase only says a choice ("the wrist camera", "max power", "a push")."""
    found = _patterns().choice.fullmatch(phrase.strip())
    choices = _choices(skills)
    return (
        found is not None
        and found.group("v") in choices
        and _names_choice(found.group("v"), found.group("n"), choices[found.group("v")])
    )


def choice_apart(phrase: str, skills: Iterable[SkillManifest]) -> str:
    """The phrase without a choice said before or after what it names ("the kitchen on max power",
    "the barcode on the label"); the choice stays in the clause, where the skill's arguments read it."""
    choices = _choices(skills)
    for form in _patterns().choice_forms:
        found = form.fullmatch(phrase)
        if found is None or found.group("v") not in choices:
            continue
        if _names_choice(found.group("v"), found.group("n"), choices[found.group("v")]):
            return found.group("rest")
    # "vac hallway eco mode": a choice and its noun after the phrase, with no word between (the noun is needed)
    trailing = re.fullmatch(r"(?P<rest>.+?)\s+(?P<v>[a-z]+)\s+(?P<n>[a-z]+)", phrase)
    if (
        trailing is not None
        and trailing["v"] in choices
        and _names_choice(trailing["v"], trailing["n"], choices[trailing["v"]])
    ):
        return trailing["rest"]
    return phrase


def _number(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    try:
        value = text2num(word, "en")
    except ValueError:
        return None
    return int(value) if isinstance(value, int) else None


def counts_apart(phrase: str, manifest: SkillManifest) -> tuple[str, dict[str, int]]:
    """ "3 levels of the shelf" -> ("the shelf", {"levels": 3}): a number before the name of one of the
    skill's integer parameters; the phrase unchanged (and no count) when it says none."""
    found = _patterns().count_before.fullmatch(phrase)
    if found is None:  # "shelf_a, 4 levels": the count said after what it counts
        found = re.fullmatch(r"(?P<rest>.+?)\s*,?\s+(?P<n>[a-z0-9\-]+)\s+(?P<noun>[a-z]+)", phrase)
    if found is None:
        return phrase, {}
    number = _number(found.group("n"))
    noun = found.group("noun")
    for param in manifest.parameter_names():
        integer = manifest.parameter_schema(param).get("type") == "integer"
        if integer and number is not None and noun in (param, param.rstrip("s"), f"{param}s"):
            return found.group("rest"), {param: number}
    return phrase, {}


_UNIT_PARAMS = ("unit", "units")


def unit_apart(phrase: str, manifest: SkillManifest) -> tuple[str, dict[str, str]]:
    """ "p7 in bar" (or "p7, units bar") -> ("p7", {"unit": "bar"}): the name of a unit of measure, said after
    the object, for a skill's free-text parameter named unit; the phrase unchanged when it says none."""
    said = unit_said(phrase)
    if said is None or not said[0] or not names_unit(said[1]):
        return phrase, {}
    for param in _UNIT_PARAMS:
        schema = manifest.parameter_schema(param)
        if schema.get("type") == "string" and "enum" not in schema:
            return said[0], {param: said[1]}
    return phrase, {}


def surface_apart(
    phrase: str, skills: Iterable[SkillManifest], world_words: set[str], regions: Collection[str] = ()
) -> str:
    """ "the floor of the living room" (or "the living room floor", a region's) -> "the living room": a word of
    a skill's ``objects`` that names no object here, said of the place or object it belongs to; the phrase
    unchanged otherwise."""
    said = {word for manifest in skills for word in manifest.objects}
    found = _patterns().surface.fullmatch(phrase)
    if found is None:  # "the living room floor": the word said after its place
        after = _patterns().surface_after.fullmatch(phrase)
        if after is not None and after.group("w") in said and after.group("w") not in world_words:
            return after.group("rest") if after.group("rest").replace(" ", "_") in regions else phrase
        return phrase
    if found.group("w") in world_words:
        return phrase
    return found.group("rest") if found.group("w") in said else phrase


def said_options(text: str, skills: Iterable[SkillManifest]) -> tuple[str, tuple[str, ...]]:
    """``text`` with other words for an option of the skills' parameters said as the option ("the quiet setting"
    as "the eco setting", "on full whack" as "on max"; lexicon ``option_names``), and notes saying which."""
    choices = _choices(skills)
    nouns = alternatives(sorted({*load_lexicon().option_nouns, *(p for ps in choices.values() for p in ps)}))
    notes = []
    for value, others in load_lexicon().option_names.items():
        if value not in choices:
            continue
        for other in sorted(others, key=lambda o: -len(o.split())):
            alone = "" if " " in other else rf"(?=\s+(?:{nouns})\b)"
            pattern = re.compile(rf"(?<![a-z0-9_]){re.escape(other)}(?![a-z0-9_]){alone}", re.IGNORECASE)
            if pattern.search(text):
                text = pattern.sub(value, text)
                notes.append(f"{other!r} is {value}")
    return text, tuple(notes)

"""The lexicon: every word the deterministic planner knows, loaded from ``config/lexicon.yaml``.

Verb phrases per intent ("grab" and "lift up" mean pick), whole clauses that
mean going home ("park the arm"), direction phrases in the robot's frame
("away from you" is forward), colour and category synonyms ("crimson" is
red, "dish" is plate), quantifiers ("all", "every", "each") and requests no
skill serves ("delete", "shut down", "run the command"). Keeping them in one
validated data file means a robot integrator widens the language without
touching the grammar, and the grammar and the object matcher read the same
words.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from bt_executive.runtime.paths import config_dir
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import ActionVerb

_PHRASE = r"^[a-z][a-z0-9 '\-]*$"
_INTENTS = ("pick", "put", "stack", "push", "pour", "tap", "open", "close")
_DIRECTIONS = ("forward", "back", "left", "right")


def _phrases(values: list[str], field: str) -> list[str]:
    """Lower-case phrases of plain words; an odd character is a typo in the file."""
    cleaned = []
    for value in values:
        phrase = " ".join(value.lower().split())
        if not re.match(_PHRASE, phrase):
            raise ValueError(f"{field}: {value!r} is not a phrase of plain words")
        cleaned.append(phrase)
    return cleaned


_DROPPED_WORDS = {
    "fillers",
    "amount_hedges",
    "corrections",
    "enumerators",
    "heading_words",
    "call_signs",
    "procedure_words",
    "addresses",
}
"""Lists of words that spoken.py drops before anything reads the task: no typo is corrected into them."""


class Rephrasing(BaseModel):
    """Another way of saying a request ("what does the gauge say?"), and the request it means ("read {x}")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pattern: str = Field(min_length=1, description="a regular expression over the whole normalised clause")
    means: str = Field(min_length=1, description="the request, with the pattern's named groups in braces")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as err:
            raise ValueError(f"rephrasing {value!r} is not a regular expression: {err}") from None
        return value

    def read(self, clause: str) -> str | None:
        """The request ``clause`` means by this rephrasing, or None when the pattern does not match it all."""
        found = re.fullmatch(self.pattern, clause)
        if found is None:
            return None
        groups = {name: (value or "") for name, value in found.groupdict().items()}
        try:
            return " ".join(self.means.format(**groups).split())
        except (KeyError, IndexError):
            return None


class Lexicon(BaseModel):
    """The validated contents of the lexicon file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verbs: dict[str, list[str]] = Field(description="intent -> verb phrases that start a clause")
    particle_verbs: dict[str, list[str]] = Field(default_factory=dict, description="intent -> 'verb ... particle'")
    put_down_verbs: list[str] = Field(default_factory=list, description="put verbs that alone mean onto the table")
    unsupported_relations: list[str] = Field(default_factory=list, description="relations no skill makes")
    nearness_relations: list[str] = Field(
        default_factory=list, description="relations that name an object by the one it stands nearest"
    )
    home_verbs: list[str] = Field(default_factory=list, description="words that start a home clause")
    filler_prefixes: list[str] = Field(default_factory=list, description="politeness dropped before a clause")
    filler_suffixes: list[str] = Field(default_factory=list, description="politeness dropped after a clause")
    adverbs: list[str] = Field(default_factory=list, description="manner words dropped wherever they stand")
    home_phrases: list[str] = Field(description="regular expressions for whole clauses that mean go home")
    amount_frames: dict[Literal["before", "after"], list[str]] = Field(
        default_factory=dict, description="words that only frame an amount ('at a distance of', 'away'), dropped"
    )
    option_nouns: list[str] = Field(
        default_factory=list, description="words after a choice of a skill's ('max power', 'eco mode'), dropped with it"
    )
    rephrasings: list[Rephrasing] = Field(
        default_factory=list, description="other ways of saying a request (questions, light verbs), read first"
    )
    directions: dict[str, list[str]]
    colours: dict[str, list[str]]
    categories: dict[str, list[str]]
    actions: dict[ActionVerb, list[str]] = Field(
        default_factory=dict, description="closed action verb -> phrases that ask for a skill with that action"
    )
    intent_actions: dict[str, list[ActionVerb]] = Field(
        default_factory=dict, description="grammar form -> the actions its skill is chosen among"
    )
    places: list[str] = Field(default_factory=list, description="words for what a region is (room, area)")
    function_words: list[str] = Field(
        default_factory=list, description="small words of tasks: known, so never read as a typo of another"
    )
    sizes: dict[Literal["large", "small"], list[str]] = Field(
        default_factory=dict, description="size words that pick the largest or smallest match"
    )
    ordinals: list[str] = Field(default_factory=list, description="first, second ...: rank by position")
    parts: list[str] = Field(default_factory=list, description="parts of an object a skill on it grasps itself")
    people: list[str] = Field(default_factory=list, description="words for the person the robot serves")
    ignored: list[str] = Field(default_factory=list)
    quantifiers: list[str] = Field(default_factory=list)
    determiners: list[str] = Field(
        default_factory=list, description="words after which a verb word is a noun ('a touch', 'the push')"
    )
    spellings: dict[str, str] = Field(
        default_factory=dict, description="informal spellings read as the words they stand for ('pls', 'whats')"
    )
    empty_clauses: list[str] = Field(
        default_factory=list, description="whole clauses that ask for nothing ('do it', 'thanks'), dropped"
    )
    statement_verbs: list[str] = Field(
        default_factory=list,
        description="verbs of a clause that describes, not asks ('the bin is full'): its subject is what 'it' means",
    )
    statement_adverbs: list[str] = Field(
        default_factory=list,
        description="words between a statement's subject and its verb ('it only swings inwards', 'it still has')",
    )
    asides: list[str] = Field(
        default_factory=list, description="words that start why or how, not what ('because ...'): cut to the end"
    )
    wishes: list[str] = Field(
        default_factory=list, description="words that name what the user wants ('i d like the mug'), then ask"
    )
    unsafe_idioms: list[str] = Field(
        default_factory=list, description="phrases with an unsafe word that mean something safe ('throw it away')"
    )
    fillers: list[str] = Field(
        default_factory=list, description="spoken fillers and chat words dropped wherever they stand ('um', 'lol')"
    )
    amount_hedges: list[str] = Field(
        default_factory=list, description="words that only soften an amount ('like thirty seconds'), dropped"
    )
    presentatives: list[str] = Field(
        default_factory=list,
        description="words that present something ('there s a draught'): a clause that says only that asks nothing",
    )
    addresses: list[str] = Field(
        default_factory=list,
        description="words that only address the robot or the listener ('arm', 'sweetie'): a clause of one is dropped",
    )
    reason_openers: list[str] = Field(
        default_factory=list,
        description="words that start a reason run on after a request's object ('close the door theres a draft')",
    )
    vague_amounts: list[str] = Field(
        default_factory=list,
        description="amounts said without a number ('a little bit', 'slightly'): the skill's own default is meant",
    )
    corrections: list[str] = Field(
        default_factory=list, description="self-correction markers ('no wait'): what follows replaces what it repeats"
    )
    enumerators: list[str] = Field(
        default_factory=list, description="labels before a list number ('item 1:', 'WO-5531'), dropped with it"
    )
    heading_words: list[str] = Field(
        default_factory=list, description="words of a heading before a colon ('Start of shift, line 2:'), dropped"
    )
    call_signs: list[str] = Field(
        default_factory=list, description="radio call-sign words ('unit two, ...'): a clause of one is dropped"
    )
    procedure_words: list[str] = Field(
        default_factory=list, description="radio procedure words ('copy', 'over'): a clause of only one is dropped"
    )
    out_of_scope: list[str] = Field(default_factory=list, description="requests no robot skill serves")
    unsafe: list[str] = Field(default_factory=list, description="requests the robot must never carry out")

    @field_validator(
        "fillers",
        "statement_adverbs",
        "amount_hedges",
        "vague_amounts",
        "reason_openers",
        "addresses",
        "corrections",
        "enumerators",
        "heading_words",
        "call_signs",
        "procedure_words",
    )
    @classmethod
    def _plain(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return _phrases(value, str(info.field_name))

    @field_validator("verbs", "particle_verbs")
    @classmethod
    def _known_intents(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for intent, words in value.items():
            if intent not in _INTENTS:
                raise ValueError(f"unknown intent {intent!r}; known: {', '.join(_INTENTS)}")
            if intent in value and not words:
                raise ValueError(f"{intent}: no phrases")
        return value

    @field_validator("actions")
    @classmethod
    def _action_phrases(cls, value: dict[ActionVerb, list[str]]) -> dict[ActionVerb, list[str]]:
        return {verb: _phrases(words, f"actions.{verb.value}") for verb, words in value.items()}

    @field_validator("intent_actions")
    @classmethod
    def _known_forms(cls, value: dict[str, list[ActionVerb]]) -> dict[str, list[ActionVerb]]:
        for intent, verbs in value.items():
            if intent not in _INTENTS:
                raise ValueError(f"intent_actions: unknown form {intent!r}; known: {', '.join(_INTENTS)}")
            if not verbs:
                raise ValueError(f"intent_actions.{intent}: no actions")
        return value

    @field_validator("directions")
    @classmethod
    def _known_directions(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for direction, phrases in value.items():
            if direction not in _DIRECTIONS:
                raise ValueError(f"unknown direction {direction!r}; known: {', '.join(_DIRECTIONS)}")
            _phrases(phrases, f"directions.{direction}")
        return value

    @field_validator("home_phrases")
    @classmethod
    def _compiles(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as err:
                raise ValueError(f"home phrase {pattern!r} is not a regular expression: {err}") from None
        return value

    # -- derived tables ---------------------------------------------------------------------------

    def synonyms(self) -> dict[str, str]:
        """Single words users say -> the colour or category word world states use."""
        table: dict[str, str] = {}
        for canonical, words in (*self.colours.items(), *self.categories.items()):
            for word in words:
                if " " not in word:
                    table[word] = canonical
        return table

    def phrase_synonyms(self) -> dict[str, str]:
        """Phrases of several words users say for one category or colour ("charging station" -> dock)."""
        return {
            word: canonical
            for canonical, words in (*self.colours.items(), *self.categories.items())
            for word in words
            if " " in word
        }

    def colour_words(self) -> frozenset[str]:
        """Every colour word, canonical or synonym: a phrase's colour must name the object's colour."""
        return frozenset(w for c, ws in self.colours.items() for w in (c, *ws) if " " not in w)

    def category_words(self) -> frozenset[str]:
        """Every category word, canonical or synonym."""
        return frozenset(w for c, ws in self.categories.items() for w in (c, *ws) if " " not in w)

    def verb_phrases(self) -> list[tuple[str, str]]:
        """(phrase, intent) pairs, longest phrase first, so "pick up" wins over "pick"."""
        pairs = [(p, i) for i, phrases in self.verbs.items() for p in _phrases(phrases, f"verbs.{i}")]
        return sorted(pairs, key=lambda pair: (-len(pair[0]), pair[0]))

    def verb_words(self) -> frozenset[str]:
        """The words a command can start with: the first word of every verb, action, home and particle verb phrase."""
        words = {phrase.split()[0] for phrase, _ in self.verb_phrases()} | {v.split()[0] for v in self.home_verbs}
        words |= {phrase.split()[0] for phrase, _ in self.action_phrases()}
        return frozenset(words | {form.split()[0] for forms in self.particle_verbs.values() for form in forms})

    def words(self) -> frozenset[str]:
        """Every word the lexicon holds, in any list: the vocabulary a typo is corrected against."""
        found: set[str] = set()

        def collect(value: object) -> None:
            if isinstance(value, str):
                found.update(w for w in re.split(r"[^a-z]+", value.lower()) if len(w) > 1 or w in ("a", "i"))
            elif isinstance(value, dict):
                for key, item in value.items():
                    collect(key)
                    collect(item)
            elif isinstance(value, list | tuple):
                for item in value:
                    collect(item)

        # Fillers and labels are dropped before typos are read: "teh" must become "the", not "tbh".
        collect(self.model_dump(mode="json", exclude=_DROPPED_WORDS))
        return frozenset(found)

    def action_phrases(self) -> list[tuple[str, ActionVerb]]:
        """(phrase, action) pairs, longest phrase first, so "go to" wins over "go"."""
        pairs = [(p, verb) for verb, phrases in self.actions.items() for p in phrases]
        return sorted(pairs, key=lambda pair: (-len(pair[0]), pair[0]))

    def direction_phrases(self) -> list[tuple[str, str]]:
        """(phrase, direction) pairs, longest first."""
        pairs = [(p, d) for d, phrases in self.directions.items() for p in phrases]
        return sorted(pairs, key=lambda pair: (-len(pair[0]), pair[0]))


def lexicon_path() -> Path:
    """The shipped lexicon file."""
    return config_dir() / "lexicon.yaml"


@cache
def load_lexicon(path: Path | None = None) -> Lexicon:
    """The lexicon (cached per path); a bad file is a ManifestError naming the file and field."""
    return load_model(path or lexicon_path(), Lexicon)

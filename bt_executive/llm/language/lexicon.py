"""The lexicon: every word the deterministic planner knows, loaded from ``config/lexicon.yaml``.

Verb phrases per intent ("grab" and "lift up" mean pick), whole clauses that
mean going home ("park the arm"), direction phrases in the robot's frame
("away from you" is forward), colour and category synonyms ("crimson" is
red, "dish" is plate), quantifiers ("all", "every", "each") and requests no
skill serves ("delete", "shut down", "run the command"). Keeping them in one
validated data file means a robot integrator widens the language without
touching the grammar, and the grammar and the object matcher read the same
words. The small closed lists the grammar's patterns are built from live here
too (articles, relation, position and state words, held-object phrases,
number and amount words, the router's stop and question words): a pattern's
shape is code, its words are data.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator

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


_GRAMMAR_WORDS = {
    "articles",
    "number_words",
    "number_parts",
    "amounts",
    "unit_markers",
    "stop_words",
    "list_joiners",
    "joiners",
    "count_leads",
    "list_tails",
    "any_of",
    "ones",
    "relative_pronouns",
    "linking_verbs",
    "placement_verbs",
    "relations",
    "place_relations",
    "modifier_relations",
    "robot_words",
    "extremes",
    "middles",
    "position_anchors",
    "place_parts",
    "sides",
    "part_owners",
    "states",
    "position_words",
    "extreme_words",
    "except_words",
    "negations",
    "verbless_relations",
    "held_words",
    "object_pronouns",
    "held_phrases",
    "definite_words",
    "indefinite_words",
    "any_count_words",
    "other_words",
    "id_words",
    "said_arguments",
    "correction_words",
    "not_names",
    "routing",
    "requests",
    "place_words",
    "clause_patterns",
    "clause_order",
    "clause_split",
    "clause_forms",
    "task_grammar",
}
"""The function words the grammar's code reads (moved from Python, issue 22): no typo is corrected into them,
as none was while they were written in Python."""


def _plain_words(value: list[str], info: ValidationInfo) -> list[str]:
    return _phrases(value, str(info.field_name))


Words = Annotated[list[str], AfterValidator(_plain_words)]
"""A list of plain lower-case phrases: the grammar builds patterns from them, so an odd character is refused."""


def _every(keys: tuple[str, ...], value: dict[str, list[str]], field: str) -> dict[str, list[str]]:
    """A table the grammar reads by every one of its keys: a missing one is a gap in the file, not no words."""
    missing = [key for key in keys if key not in value]
    if missing:
        raise ValueError(f"{field}: no {', '.join(missing)}")
    return {key: _phrases(words, f"{field}.{key}") for key, words in value.items()}


Order = Literal["left_to_right", "right_to_left", "nearest_first", "farthest_first", "largest_first", "smallest_first"]
"""The orders a plural's objects may be taken in (``task_grammar.orders``, ``Intent.order``)."""


class _WordLists(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class QuantityWords(_WordLists):
    """The words around numbers that make them amounts (``quantities``); the lexicon's ``amounts``.

    Empty but for ``units`` until given: the lexicon gives the English words, a test or another language its
    own. ``units`` are pint's names, not words a user says, so their default stays here."""

    count_adverbs: dict[str, int] = Field(default_factory=dict, description="'once', 'twice': a count said alone")
    count_nouns: frozenset[str] = Field(default=frozenset(), description="what a number counts ('3 times', '2 laps')")
    count_modifiers: frozenset[str] = Field(
        default=frozenset(), description="a word between a number and its count noun ('3 full laps', 'two more times')"
    )
    repetition_nouns: frozenset[str] = Field(
        default=frozenset(), description="count nouns that count doings, not things ('3 times', not '3 levels')"
    )
    repetition_params: frozenset[str] = Field(
        default=frozenset(),
        description="words of a count parameter's name that count doings ('loops', 'passes'): 'twice' fills one of "
        "these, never a count of things ('levels', 'places'), whose call is done again instead",
    )
    fractions: dict[str, float] = Field(default_factory=dict, description="'half', 'quarter', with their values")
    articles: frozenset[str] = Field(default=frozenset(), description="'a', 'an': one of a unit ('a minute')")
    determiners: frozenset[str] = Field(
        default=frozenset(),
        description='an amount right after one describes an object ("the 10 cm cube"), it is not read',
    )
    conjunctions: frozenset[str] = Field(
        default=frozenset(),
        description='count adverbs that at a clause start join clauses ("once it is up, wave") instead of counting',
    )
    clause_words: frozenset[str] = Field(
        default=frozenset(),
        description="words after which a clause starts, as it does at the start of the text and after punctuation",
    )
    comparison_words: frozenset[str] = Field(
        default=frozenset(),
        description='a count adverb before one compares ("twice as far"), it does not repeat',
    )
    stresses: frozenset[str] = Field(
        default=frozenset(), description="words that only stress one of a unit ('a full minute', 'a whole metre')"
    )
    scales: frozenset[str] = Field(
        default=frozenset(), description="number words an 'a' belongs to ('a hundred and twenty degrees')"
    )
    digit_words: dict[str, int] = Field(
        default_factory=dict, description="other words for a digit said in a row of digits ('point oh five')"
    )
    units: frozenset[str] = Field(
        default=frozenset(
            {
                "meter",
                "centimeter",
                "millimeter",
                "kilometer",
                "inch",
                "foot",
                "second",
                "millisecond",
                "minute",
                "hour",
                "degree",
                "radian",
                "turn",
                "revolutions_per_minute",
                "newton",
                "liter",
                "milliliter",
                "microliter",
                "gram",
                "kilogram",
                "milligram",
                "pascal",
                "kilopascal",
                "bar",
                "millibar",
                "pound_force_per_square_inch",
            }
        ),
        description="pint's names of the units a task may use; pint knows many more that are also everyday nouns "
        "('2 hands', '2 points', '2 cups')",
    )
    not_units: frozenset[str] = Field(
        default=frozenset(),
        description="words pint reads as an allowed unit but that are far more often plain English ('put 2 in it')",
    )


class LinkingVerbs(_WordLists):
    """Verbs between an object and where it is ("the cube that is on the plate"), per pattern that reads them."""

    nearness: Words = Field(description="'the mug that sits next to the bin'")
    negation: Words = Field(description="'the cube that is not red'")
    position: Words = Field(description="'the block that is nearest the drawer'")
    relation: Words = Field(description="'the cube that was on the plate'")


class PlacementVerbs(_WordLists):
    """Participles between an object and where it is ("the block sitting on the plate"), per pattern."""

    described: Words = Field(description="with one, a phrase names one object by where it is: never cut as a list")
    position: Words = Field(description="'the block placed furthest to the left'")
    relation: Words = Field(description="'the cube stored in the bowl'")


class SideWords(_WordLists):
    """The words around a side ("on your left hand side") that make it a position, per pattern."""

    prepositions: Words = Field(description="object matching: 'the cube to the left'")
    reading_prepositions: Words = Field(description="task reading: 'the cube on the left' keeps its side")
    owners: Words = Field(description="'on the left', 'on your right'")
    ordinal_owners: Words = Field(description="'the second cube from your left'")
    nouns: Words = Field(description="object matching: 'the cube on the left side'")
    reading_nouns: Words = Field(description="task reading: 'on the right hand side'")


class SaidArgumentWords(_WordLists):
    """Words around a skill's choice, count or surface said inside an object phrase (``said_arguments``)."""

    articles: Words = Field(description="'the wrist camera', 'its lid'")
    after_object: Words = Field(description="a choice said after the object: 'the kitchen on max power'")
    before_object: Words = Field(description="a choice said before it: 'the barcode on the label'")
    count_leads: Words = Field(description="'all 8 levels of the shelf'")
    count_links: Words = Field(description="'3 levels of the shelf'")
    surface_links: Words = Field(description="'the floor of the living room'")


class CorrectionWords(_WordLists):
    """Words around a self-correction marker ("sorry, no, wait, the red one"), read by ``spoken``."""

    openers: Words = Field(description="said before a marker: 'sorry, no', 'oops, i mean'")
    followers: Words = Field(description="said after a marker, part of it: 'no, wait'")
    negations: Words = Field(description="a correction that starts with one keeps what was said")
    determiners: Words = Field(description="start the phrase that replaces another: 'not the plate, the bowl'")
    prepositions: Words = Field(description="a replaced phrase starts after one: 'go to control room, no, corridor b'")


class RoutingWords(_WordLists):
    """The skill router's words: what makes a query a question, and where a several-step task is cut."""

    question_words: Words = Field(description="'what is the pressure', 'can you ...': a question, not a command")
    step_joiners: Words = Field(description="a step starts after one, with a comma before it or not: ', then'")
    joiners: Words = Field(description="a step starts after one: 'pick X and pour it'")


class RequestWords(_WordLists):
    """What a task asks as a whole, read before any clause: to stop, not to do something, or a wish framed as
    a verb ("make sure ...") that the model's rewrite grammar does not offer as a command."""

    polite: Words = Field(description="may come first in a stop or a prohibition ('please stop')")
    stop_verbs: Words = Field(description="a task of one of them alone asks only to stop ('halt', 'stop now')")
    stop_objects: Words = Field(description="may follow a stop verb and still only ask to stop ('stop moving')")
    prohibitions: Words = Field(description="say what not to do ('don t touch the blue cube'): refused")
    prohibition_leads: Words = Field(description="a prohibition may start after one, not only first in the task")
    wish_verbs: Words = Field(description="put verbs that frame a wish ('i need', 'make sure'): no command to copy")


class PlaceWords(_WordLists):
    """How an object phrase names a place by what stands in it, and the words before what a skill acts on
    anyway ('undock from the charger')."""

    holding_relations: Words = Field(description="'the room with the fridge', 'the room where the gauge is'")
    holding_tails: Words = Field(description="may end such a phrase ('the room where the gauge is kept')")
    implied_prepositions: Words = Field(description="before an object a skill that takes none acts on anyway")
    trailing_relations: Words = Field(
        description="after an object phrase, say where it is: a miss there is no such object, not unread words"
    )


class ClausePatternWords(_WordLists):
    """Words the lexicon's compiled clause patterns are built around (``lexicon_patterns``)."""

    relations: Words = Field(description="a placement's relation words, longer first ('put X on top of Y')")
    towards: Words = Field(description="words before a way to push or move ('to the left', 'towards you')")
    gapped_articles: Words = Field(description="start the second half of a gapped placement ('..., and the blue one')")
    gapped_relations: Words = Field(description="relations of the second half of a gapped placement")
    wishing_words: Words = Field(description="no aside starts right after one ('i d like a photo')")
    indefinite_determiners: Words = Field(description="determiners that start no statement after a request")
    pronoun_subjects: Words = Field(description="pronouns a statement after a request starts with ('it only swings')")
    be_forms: Words = Field(description="verbs of a short statement after a request ('bub s asleep')")
    not_described: Words = Field(description="after a statement's verb, say what should happen ('is to go')")
    dash_breaks: Words = Field(description="a dash before one is a clause break ('follow me - stay 2 m back')")
    not_leads: Words = Field(description="first words of politeness that may start a statement: no break before them")
    afterwards: Words = Field(description="words that say 'then' ('..., after that close it')")


class ClauseOrderWords(_WordLists):
    """Words of "before"/"after"/"once" sentences (``clause_order``)."""

    before: Words = Field(description="the clause after it is done first ('before going home, ...')")
    after: Words = Field(description="the clause after it is done first, said at the start ('after opening it')")
    trailing_after: Words = Field(description="the same, said after the main clause ('..., once you open it')")
    subjects: Words = Field(description="subjects said before the verb ('once you have opened it')")
    not_order: Words = Field(description="after one, nothing is ordered ('after that')")
    next_steps: Words = Field(description="after a comma, say what comes next")
    next_step_leads: Words = Field(description="with a next step object, say what comes next ('once that s done')")
    next_step_objects: Words = Field(description="'once that', 'when you'")
    pronouns: Words = Field(description="pronouns a clause moved first takes its referent for")
    irregular: dict[str, str] = Field(description="verb forms not made by adding -ing or -ed, with their verb")


class ClauseSplitWords(_WordLists):
    """Words by which a task is made regular and cut into clauses (``clause_split``)."""

    two_homophones: Words = Field(description="dictation's 'two' before a count's unit ('tap it too times')")
    counted_units: Words = Field(description="units a homophone of 'two' is read before")
    red_articles: Words = Field(description="'the read gauge': red")
    rate_units: Words = Field(description="'0.3 metres a second': a rate")
    rate_joiners: Words = Field(description="'metres a second', 'metres for second'")
    rate_times: Words = Field(description="'... a second', '... an hour'")
    till_verbs: Words = Field(description="'go till the kitchen': to")
    till_words: Words = Field(description="'till', 'until'")
    close_verbs: Words = Field(description="'drive up close to g1': up to it")
    dash_openers: Words = Field(description="a dash after one only opens the task ('quick - ')")
    rest_determiners: Words = Field(description="'the rest of the cubes': the remaining cubes")
    rest_nouns: Words = Field(description="'the rest position' names a pose, not the others")
    going_verbs: Words = Field(description="'go and recharge': the going is how, not a task")
    describing_subjects: Words = Field(description="'..., it s sticking out': a clause of its own")
    describing_verbs: Words = Field(description="'..., it looks', '..., they are'")
    telling_verbs: Words = Field(description="'..., and tell me what it says': a clause of its own")
    told: Words = Field(description="'tell me', 'show us'")
    report_verbs: Words = Field(description="'..., and report the reading'")
    report_nouns: Words = Field(description="'report the results', 'return what'")
    statement_owners: Words = Field(description="'..., my battery s low': a statement, a clause of its own")
    statement_verbs: Words = Field(description="'..., the floor is wet'")
    placement_articles: Words = Field(description="'..., the red cube onto the plate': a clause of its own")
    placement_relations: Words = Field(description="'..., red cube into the bowl'")
    order_starts: Words = Field(description="'..., going from your left to your right': a clause of its own")
    order_owners: Words = Field(description="'from your left', 'from the right'")
    also: Words = Field(description="end a clause repeating an earlier one ('... and the blue cube too')")
    remark_speakers: Words = Field(description="the speaker of a remark ('..., i m walking the site')")
    remark_wishes: Words = Field(description="a remark with one is a wish, and asks")
    remark_verbs: Words = Field(description="verbs after the speaker that make a remark")
    remark_wants: Words = Field(description="'i want to see whether ...'")
    remark_checks: Words = Field(description="'i want to see whether ...'")
    remark_ifs: Words = Field(description="'... whether', '... if'")
    remark_subjects: Words = Field(description="'only if that s ok'")
    remark_allowances: Words = Field(description="'..., only if it s not too much trouble'")
    remark_modals: Words = Field(description="'..., the floor might still be wet'")
    repeat_verbs: Words = Field(description="'do that twice', 'repeat it'")
    repeat_objects: Words = Field(description="what a repeat verb repeats ('do that', 'the same thing')")
    again: Words = Field(description="'do that again': once more")


class ClauseFormWords(_WordLists):
    """Words one clause's forms are read by (``clause_forms``)."""

    articles: Words = Field(description="an article before one of ``pronouns`` still leaves a pronoun")
    pronouns: Words = Field(description="stand for an object named before ('top': 'then put the green one on top')")
    in_words: Words = Field(description="relations that mean 'in'")
    neutral_words: Words = Field(description="name a destination, not a relation ('move the cube to the bowl')")
    there_words: Words = Field(description="'put the cube there': where the clause before acted")
    side_leads: Words = Field(description="'go to the left of the table': a place, not a description")
    put_particles: Words = Field(description="'put it back on the plate'")
    stack_relations: Words = Field(description="'stack X on top of Y'")
    pour_relations: Words = Field(description="'pour X into Y'")
    open_endings: Words = Field(description="add nothing after an open or a close ('open it all the way')")
    contents: Words = Field(description="'whatever s in the mug': the mug")
    except_words: Words = Field(description="before the objects a phrase leaves out ('all cubes but the blue one')")
    amount_prepositions: Words = Field(description="left alone by a removed amount ('by 10 cm to the left')")
    counted_links: Words = Field(description="'take three photos of the valve'")
    indefinite_articles: Words = Field(description="'take a photo of'")
    owners: Words = Field(description="'scan its barcode'")
    owned_articles: Words = Field(description="'scan the label s barcode'")
    naming_leads: Words = Field(description="before the name of an amount ('with a clearance of 1 m')")
    naming_articles: Words = Field(description="'a clearance of', 'its speed of'")
    bare_naming_leads: Words = Field(description="'with standoff 0.3 m'")
    going_verbs: Words = Field(description="'go push the block': the going is not a task")
    not_going_on: Words = Field(description="after a going verb, no verb of their own ('go to', 'go home')")
    people_links: Words = Field(description="before a skill's person ('wave to the guest')")
    place_links: Words = Field(description="before the place an act is on ('recharge at your dock')")
    place_determiners: Words = Field(description="'at your dock', 'to the kitchen'")
    object_starts: Words = Field(description="start an object phrase after an act verb")
    verb_prepositions: Words = Field(description="an act verb ending in one takes a bare name ('go to kitchen')")
    count_links: Words = Field(description="'scan 3 levels of the shelf'")
    act_relations: Words = Field(description="between what an act is on and a second phrase")
    particles: Words = Field(description="a verb may drop one ('clear off the table')")
    tower_build_verbs: Words = Field(description="'build a tower'")
    tower_nouns: Words = Field(description="'a tower', 'a pile'")
    tower_links: Words = Field(description="'a tower of the cubes'")
    tower_verbs: Words = Field(description="'stack the cubes', 'pile them up'")
    each_other: Words = Field(description="'stack them on top of each other'")
    tower_articles: Words = Field(description="'into a single tower'")
    arrange_verbs: Words = Field(description="'arrange the cubes in a tower'")
    arrange_links: Words = Field(description="'... in a tower', '... as a stack'")
    tower_ends: Words = Field(description="'with the blue one at the bottom'")
    base_relations: Words = Field(description="'pile the cubes up on the plate': a base is named")
    them_all: Words = Field(description="name a tower's objects without a noun ('stack all three')")
    question_words: Words = Field(description="a placement with no verb never has one before its relation")
    verbless_starts: Words = Field(description="start a placement with no verb ('the red cube on the plate')")
    fill_verbs: Words = Field(description="'fill the bowl with the cubes'")
    piece_nouns: Words = Field(description="a tower's piece said bottom to top ('green cube at the bottom')")
    ordered_tower_verbs: Words = Field(description="start a tower said bottom to top")
    bottom_endings: Words = Field(description="'green at the bottom'")
    top_endings: Words = Field(description="'red on top'")
    moved_relations: Words = Field(description="'pop the cube into the bowl', whatever the verb: moved there")
    moved_particles: Words = Field(description="'edge the cube over to the left', whatever the verb: pushed")
    motion_particles: Words = Field(description="'mosey on down to the kitchen', whatever the verb: a going")
    motion_links: Words = Field(description="after a going's particles, before the place ('... on down to')")
    goal_leads: Words = Field(description="'make sure the drawer is open'")
    verify_leads: Words = Field(
        default_factory=list, description="'check that the cube is on the plate': whether it is so, not making it so"
    )
    goal_verbs: Words = Field(description="'the cube should be in the bowl'")
    copulas: Words = Field(description="goal verbs that, after a pronoun, state what is so ('it is open')")
    into_it: dict[Literal["in", "on"], list[str]] = Field(description="'put the cube inside': into what came before")

    @field_validator("into_it")
    @classmethod
    def _every_relation(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        return _every(("in", "on"), value, "into_it")


class TaskGrammarWords(_WordLists):
    """Words the whole task is read by (``task_grammar``)."""

    holding_words: Words = Field(description="a clause of only amounts and these gives them to the one before")
    keeping_verbs: Words = Field(description="'stay about 2 m back', 'give up after five minutes'")
    keeping_words: Words = Field(description="after a keeping verb, more words of a clause of only amounts")
    if_be: Words = Field(description="'if the drawer is closed', 'if it isn t open'")
    if_still: Words = Field(description="'if it is still open'")
    holding: Words = Field(description="'if you ve got something in your hand'")
    something: Words = Field(description="'if you ve got something'")
    hand_relations: Words = Field(description="'in your hand'")
    hand_owners: Words = Field(description="'your hand', 'the gripper'")
    hands: Words = Field(description="'if your hand is empty'")
    party_times: Words = Field(description="'tonight we re four'")
    party_leading_meals: Words = Field(description="'for lunch we re four'")
    party_meals: Words = Field(description="'we re four for tea'")
    party_we: Words = Field(description="'we re four', 'there will be six'")
    party_people: Words = Field(description="'six of us', 'four guests'")
    there: Words = Field(description="'corridor b, go there': the place just said")
    in_place: Words = Field(description="'without moving, take a photo': the base must not move for the task")
    order_leads: Words = Field(description="'going from your left to your right'")
    order_owners: Words = Field(description="'from your left', 'from the nearest'")
    order_ends: Words = Field(description="'from the left side', 'left most first'")
    order_links: Words = Field(description="'left to right', 'nearest first'")
    orders: dict[
        str,
        Order,
    ] = Field(description="the first end of an order said, with the order it starts")
    leave_determiners: Words = Field(description="'leave the blue one where it is'")
    leave_be: Words = Field(description="'... where it is', '... alone'")
    not_so: Words = Field(description="after ', so', no consequence ('so that', 'so far')")
    close_enough_verbs: Words = Field(description="'get close enough to see the seal'")
    up_close: Words = Field(description="'..., up close'")
    close_words: Words = Field(description="before a look, ask for it from near by ('a close-up photo')")
    look_nouns: Words = Field(description="'close-up photo', 'close-up of'")
    near_phrases: Words = Field(description="after a look, ask for it from near by ('read it up close')")
    taken_words: Words = Field(description="'taken from up close'")
    near_words: Words = Field(description="'from near'")
    about_words: Words = Field(description="'from about half a metre away'")
    not_a_description: Words = Field(description="after a statement's verb, say what should happen")
    conditions: Words = Field(description="a clause with one asks something: never only a description")
    asking_words: Words = Field(description="start a question ('whats the temp')")
    speakers: Words = Field(description="'i need to see the tag'")
    purpose_needs: Words = Field(description="'i need to see', 'we want to know'")
    purpose_musts: Words = Field(description="'i gotta check'")
    purpose_verbs: Words = Field(description="'... to see', '... to make sure'")
    waiting_verbs: Words = Field(
        default_factory=list,
        description="'wait a minute for me to take it': the 'to ...' after a wait for someone is theirs",
    )
    replacing: Words = Field(
        default_factory=list,
        description="'tap the red cube, then tap the blue one instead': the request replaces the one before",
    )
    is_forms: Words = Field(description="'the drawer is open', 'the cube s on the plate'")
    is_adverbs: Words = Field(description="'the drawer is already open'")
    is_places: Words = Field(description="'the cube is on the plate'")
    do_determiners: Words = Field(description="'then do the hallway': the verb before, on it")
    elided_articles: Words = Field(description="'..., then the green one': the clause before, on it")


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
        found = _compiled_once(self.pattern).fullmatch(clause)
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
    side_relations: dict[Literal["left", "right", "far", "near"], list[str]] = Field(
        default_factory=dict, description="relations that name an object by the side of another it is on"
    )
    home_verbs: list[str] = Field(default_factory=list, description="words that start a home clause")
    filler_prefixes: list[str] = Field(default_factory=list, description="politeness dropped before a clause")
    filler_suffixes: list[str] = Field(default_factory=list, description="politeness dropped after a clause")
    adverbs: list[str] = Field(default_factory=list, description="manner words dropped wherever they stand")
    speed_adverbs: list[str] = Field(
        default_factory=list,
        description="adverbs that say how fast ('slowly'): for a skill that takes a speed, the number must be said",
    )
    home_phrases: list[str] = Field(description="regular expressions for whole clauses that mean go home")
    home_pose_words: Words = Field(description="words of a home phrase that name the arm or its pose, not the base")
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
    kinds_of: dict[str, list[str]] = Field(
        default_factory=dict, description="a word for several categories at once ('every surface') -> them"
    )
    categories: dict[str, list[str]]
    actions: dict[ActionVerb, list[str]] = Field(
        default_factory=dict, description="closed action verb -> phrases that ask for a skill with that action"
    )
    intent_actions: dict[str, list[ActionVerb]] = Field(
        default_factory=dict, description="grammar form -> the actions its skill is chosen among"
    )
    places: list[str] = Field(default_factory=list, description="words for what a region is (room, area)")
    option_names: dict[str, list[str]] = Field(
        default_factory=dict,
        description="a skill option's value -> other words for it, said before an option noun ('quiet setting': eco)",
    )
    place_names: dict[str, list[str]] = Field(
        default_factory=dict,
        description="a region's name in words -> other names people give such a place ('living room': lounge)",
    )
    function_words: list[str] = Field(
        default_factory=list, description="small words of tasks: known, so never read as a typo of another"
    )
    sizes: dict[Literal["large", "small"], list[str]] = Field(
        default_factory=dict, description="size words that pick the largest or smallest match"
    )
    ordinals: list[str] = Field(default_factory=list, description="first, second ...: rank by position")
    parts: list[str] = Field(default_factory=list, description="parts of an object a skill on it grasps itself")
    outer_parts: list[str] = Field(
        default_factory=list, description="parts read only where the whole names nothing ('the fridge door')"
    )
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
    letter_openings: list[str] = Field(
        default_factory=list, description="a letter's or e-mail's greeting before its first comma ('dear robot,')"
    )
    letter_closings: list[str] = Field(
        default_factory=list, description="a letter's sign-off at its end, maybe with a name ('kind regards, priya')"
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
    # -- function words the grammar's code reads (moved from Python, issue 22) --
    articles: Words = Field(description="words that only point at an object, dropped before any matching rule")
    number_words: dict[str, int] = Field(description="number words said alone, with their values")
    phonetic_letters: dict[str, str] = Field(
        default_factory=dict,
        description="a radio alphabet's words for letters, as ids are said aloud ('papa seven': p7)",
    )
    number_parts: Words = Field(description="words of an amount that are no number alone ('two hundred')")
    amounts: QuantityWords = Field(description="the words around a number that make it an amount")
    unit_markers: Words = Field(description="words before a unit's name that ask for that unit ('p7 in bar')")
    stop_words: Words = Field(description="words the skill router leaves out; the colours' names are left out too")
    list_joiners: Words = Field(description="words between the parts of a list ('the red and the blue cube')")
    joiners: Words = Field(description="words between object phrases a scanned clause lists or offers")
    count_leads: Words = Field(description="words before a count that only stress it ('all three cubes')")
    list_tails: Words = Field(description="words after a list that only say all of it ('..., both')")
    any_of: Words = Field(description="words that with 'of' ask for any one of several ('one of the cubes')")
    ones: Words = Field(description="words that stand for a noun said before them ('the red one')")
    relative_pronouns: Words = Field(description="words that start a clause saying where an object is")
    linking_verbs: LinkingVerbs
    placement_verbs: PlacementVerbs
    relations: dict[Literal["on", "in", "from"], list[str]] = Field(
        description="relation words between an object and the one it is on, in or taken from; longer first"
    )
    place_relations: Words = Field(description="relations after which the words may name a place")
    modifier_relations: Words = Field(description="relations after which the words may name what an object is of")
    robot_words: Words = Field(description="words for the robot itself: positions are measured from its base")
    extremes: dict[Literal["left", "right", "near", "far"], list[str]] = Field(
        description="superlatives that pick one object by where it is, by the side or distance each means"
    )
    middles: Words = Field(description="'the middle cube': of an odd number, the one with as many either side")
    position_anchors: Words = Field(description="words before the object a position is measured from")
    place_parts: Words = Field(description="words that make 'the left X' a place, not an object")
    sides: SideWords
    part_owners: Words = Field(description="words before a part of an object ('the top of the bowl')")
    states: dict[Literal["open", "closed"], list[str]] = Field(description="the open state an object phrase asks for")
    position_words: Words = Field(description="superlatives inside an object phrase: never a direction")
    extreme_words: Words = Field(description="words shortly before a direction that make it a position")
    except_words: Words = Field(description="words before the objects a list leaves out")
    negations: Words = Field(description="words at the end of a gap before an object phrase that leave it out")
    verbless_relations: Words = Field(description="relations between two object phrases of a clause with no verb")
    held_words: Words = Field(description="words by which a task may mean the object in the gripper")
    object_pronouns: Words = Field(description="pronouns and possessives that follow a verb ('report ITS state')")
    plural_pronouns: Words = Field(
        default_factory=list, description="'tap them again': every object the clause before named"
    )
    held_phrases: Words = Field(description="words that name the object in the gripper inside an object phrase")
    definite_words: Words = Field(description="words that start a phrase naming particular objects")
    indefinite_words: Words = Field(description="words that start a phrase asking for any one of its matches")
    any_count_words: Words = Field(description="words before a count that leave which ones open ('any two')")
    other_words: Words = Field(description="words for the objects not named yet ('the others', 'the rest')")
    id_words: Words = Field(description="words before an object's id said outright ('the gauge named p7')")
    said_arguments: SaidArgumentWords
    correction_words: CorrectionWords
    not_names: Words = Field(description="words after 'this is' that start no caller's name")
    routing: RoutingWords
    requests: RequestWords
    place_words: PlaceWords
    clause_patterns: ClausePatternWords
    clause_order: ClauseOrderWords
    clause_split: ClauseSplitWords
    clause_forms: ClauseFormWords
    task_grammar: TaskGrammarWords

    @field_validator(
        "fillers",
        "letter_openings",
        "letter_closings",
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

    @field_validator("relations")
    @classmethod
    def _every_relation(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        return _every(("on", "in", "from"), value, "relations")

    @field_validator("extremes")
    @classmethod
    def _every_extreme(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        return _every(("left", "right", "near", "far"), value, "extremes")

    @field_validator("states")
    @classmethod
    def _every_state(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        return _every(("open", "closed"), value, "states")

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
        """Single words users say -> the colour or category word world states use (a copy, the caller's own)."""
        return dict(self.synonym_table)

    @functools.cached_property
    def canonical_words(self) -> dict[tuple[str, ...], frozenset[str]]:
        """Words -> their canonical forms (``skill_choice``'s reading of a manifest's ``objects``), filled as they
        are asked for and kept with this lexicon: a skill's words are read on every clause that might choose it."""
        return {}

    @functools.cached_property
    def synonym_table(self) -> dict[str, str]:
        """``synonyms``, built once: grounding asks for them for every phrase it reads."""
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
        return list(self.sorted_verb_phrases)

    @functools.cached_property
    def sorted_verb_phrases(self) -> tuple[tuple[str, str], ...]:
        """``verb_phrases``, built once: the grammar asks for them on every clause."""
        pairs = [(p, i) for i, phrases in self.verbs.items() for p in _phrases(phrases, f"verbs.{i}")]
        return tuple(sorted(pairs, key=lambda pair: (-len(pair[0]), pair[0])))

    def verb_words(self) -> frozenset[str]:
        """The words a command can start with: the first word of every verb, action, home and particle verb phrase."""
        return self.verb_word_set

    @functools.cached_property
    def verb_word_set(self) -> frozenset[str]:
        """``verb_words``, built once: the grammar asks for them on every clause."""
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
        collect(self.model_dump(mode="json", exclude=_DROPPED_WORDS | _GRAMMAR_WORDS))
        return frozenset(found)

    def action_phrases(self) -> list[tuple[str, ActionVerb]]:
        """(phrase, action) pairs, longest phrase first, so "go to" wins over "go"."""
        return list(self.sorted_action_phrases)

    @functools.cached_property
    def sorted_action_phrases(self) -> tuple[tuple[str, ActionVerb], ...]:
        """``action_phrases``, built once."""
        pairs = [(p, verb) for verb, phrases in self.actions.items() for p in phrases]
        return tuple(sorted(pairs, key=lambda pair: (-len(pair[0]), pair[0])))

    def direction_phrases(self) -> list[tuple[str, str]]:
        """(phrase, direction) pairs, longest first."""
        pairs = [(p, d) for d, phrases in self.directions.items() for p in phrases]
        return sorted(pairs, key=lambda pair: (-len(pair[0]), pair[0]))


def alternatives(words: Iterable[str], *, before: str = "", after: str = "", space: str = " ") -> str:
    """A regular expression's alternation of the lexicon's plain phrases, in its order, each between ``before``
    and ``after`` ("the\\s+|your\\s+"), ``space`` between a phrase's words (r"\\s+" where the pattern takes any
    run of spaces): the lexicon admits no character a pattern reads, so none is escaped."""
    return "|".join(f"{before}{word.replace(' ', space)}{after}" for word in words)


def lexicon_path() -> Path:
    """The shipped lexicon file."""
    return config_dir() / "lexicon.yaml"


@cache
def _compiled_once(pattern: str) -> re.Pattern[str]:
    """A rephrasing's pattern, compiled once (every clause is tried against every rephrasing)."""
    return re.compile(pattern)


@cache
def load_lexicon(path: Path | None = None) -> Lexicon:
    """The lexicon (cached per path); a bad file is a ManifestError naming the file and field."""
    return load_model(path or lexicon_path(), Lexicon)

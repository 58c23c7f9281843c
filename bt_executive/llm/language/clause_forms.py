"""The clause forms: one clause of a task read into an intent, or None when no form matches it.

The tabletop's closed forms (pick, put, stack, push, pour, tap, open, close, home, towers, stated goals,
verbless placements) and the act form (a verb phrase from the lexicon's actions or a manifest's
``language.phrases``, then what it acts on, where, which way). Amounts are read apart from the phrases
(``quantities``), counted nouns ("take three photos of") and owned nouns ("scan its barcode") are
rephrased to the skills' phrases first. How clauses combine into a task is ``task_grammar``'s job::

    "push the red cube 10 cm to the left" -> PUSH(the red cube, left, 10 cm)
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from functools import cache, lru_cache
from typing import Literal

from bt_executive.llm.language.clause_split import also, infinitive_first, place_last
from bt_executive.llm.language.intents import Intent, IntentAction
from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.lexicon_patterns import _alternatives, _compiled, on_relation
from bt_executive.llm.language.noun_phrases import expand_phrase
from bt_executive.llm.language.quantities import COUNT, Quantity, find_quantities, said_number
from bt_executive.skills.manifest import ActionVerb

_S = r"\s+"
"""Between the words of a phrase where the pattern takes any run of spaces."""


class _Patterns:
    """The lexicon's ``clause_forms`` words as compiled patterns and sets (the forms' shapes are here)."""

    def __init__(self, lexicon: Lexicon) -> None:
        words = lexicon.clause_forms
        on = rf"(?P<rel>{alternatives(lexicon.clause_patterns.relations)})"
        self.article = re.compile(rf"^(?:{alternatives(words.articles)})\s+")
        # Words that stand for an object named before ("top": "then put the green one on top").
        self.pronouns = frozenset(words.pronouns)
        self.in_words = frozenset(words.in_words)
        # Words that name a destination but not a relation ("move the cube to the bowl"): the target decides.
        self.neutral_words = frozenset(words.neutral_words)
        # Where a pick takes the object from ("out of the bowl", "off the plate"): kept with the object phrase,
        # whose grounding checks it ("from the table" checks nothing: everything stands on it).
        source = rf"(?:\s+(?P<src>(?:{alternatives(lexicon.relations['from'])})\s+.+?))?"
        ending = rf"(?:\s+(?:{alternatives(words.open_endings)}))?"
        # The forms, applied to what follows the verb phrase.
        self.forms: dict[IntentAction, re.Pattern[str]] = {
            IntentAction.PICK: re.compile(rf"^(?P<x>.+?)(?:\s+up)?{source}$"),
            IntentAction.PUT: re.compile(
                rf"^(?:(?P<x>.+?)\s+)?(?:(?:{alternatives(words.put_particles)})\s+)*{on}\s+(?P<y>.+)$"
            ),
            IntentAction.STACK: re.compile(
                rf"^(?P<x>.+?)(?:\s+up)?\s+(?:{alternatives(words.stack_relations)})\s+(?P<y>.+)$"
            ),
            IntentAction.POUR: re.compile(
                r"^(?:(?:the\s+)?contents\s+of\s+|from\s+)?(?P<x>.+?)\s+"
                rf"(?:{alternatives(words.pour_relations)})\s+(?P<y>.+)$"
            ),
            IntentAction.TAP: re.compile(r"^(?:on\s+)?(?P<x>.+)$"),
            IntentAction.OPEN: re.compile(rf"^(?P<x>.+?){ending}$"),
            IntentAction.CLOSE: re.compile(rf"^(?P<x>.+?){ending}$"),
        }
        self.contents = re.compile(
            rf"^(?:(?:{alternatives(words.contents)})\s+(?:s|is)\s+(?:in|inside)|the\s+contents\s+of)\s+(?=\S)"
        )
        self.excepted = re.compile(
            rf"^(?P<kept>.+?)(?:\s*,?\s+(?:{alternatives(words.except_words, space=_S)})|\s*,\s+not)\s+(?P<ex>.+)$"
        )
        self.trailing_too = re.compile(rf"\s+{also()}$")
        prepositions = alternatives(words.amount_prepositions)
        towards = alternatives(lexicon.clause_patterns.towards)
        self.amount_left = re.compile(rf"\s+(?:{prepositions})(?=\s+(?:{towards}|$))|\s+(?:{prepositions})$")
        self.counted_nouns = re.compile(
            rf"^(?P<v>[a-z]+)\s+(?P<n>\S+)\s+(?P<noun>[a-z]+)\s+(?P<rest>(?:{alternatives(words.counted_links)})\s+.+)$"
        )
        self.indefinite_articles = tuple(words.indefinite_articles)
        self.owned = re.compile(
            rf"^(?P<v>[a-z]+)\s+(?:(?P<its>{alternatives(words.owners)})"
            rf"|(?P<x>(?:{alternatives(words.owned_articles)})\s+[a-z_]+(?:\s+[a-z_]+)?)\s+s)\s+"
            r"(?P<n>[a-z]+)\b(?P<rest>.*)$"
        )
        self.named_before = re.compile(
            rf"(?:(?:{alternatives(words.naming_leads)})\s+)?(?:{alternatives(words.naming_articles)})\s+"
            r"(?P<name>[a-z]+(?:\s[a-z]+)?)\s+of\s*$"
            # "with standoff 0.3 m": a parameter's name, bare
            rf"|(?:{alternatives(words.bare_naming_leads)})\s+(?!(?:{alternatives(words.naming_articles)})\b)"
            r"(?P<bare>[a-z]+)(?:\s+of)?\s*$"
        )
        self.going = re.compile(rf"^(?:{alternatives(words.going_verbs)})\s+(?:and\s+)?(?P<rest>(?P<verb>\S+).*)$")
        self.going_verbs = frozenset(words.going_verbs)
        self.not_going_on = frozenset(words.not_going_on)
        self.people_links = alternatives(words.people_links)
        determiners = alternatives(words.place_determiners)
        self.place = re.compile(rf"^(?:{alternatives(words.place_links)})\s+(?:{determiners})\s")
        self.towards = re.compile(rf"^(?:{towards})\s+|\s+(?:{towards})(?:\s+the)?$")
        self.object_starts = frozenset(words.object_starts)
        self.verb_prepositions = frozenset(words.verb_prepositions)
        self.counted = re.compile(rf"^(?:all\s+)?\S+\s+[a-z]+\s+(?:{alternatives(words.count_links)})\s")
        # What follows an act verb: the thing acted on, then a second phrase after a preposition (one with an
        # article, or an id said alone: "pipette res1 into mp3").
        self.act_rest = re.compile(
            rf"^(?P<x>.+?)\s+(?P<rel>{alternatives(words.act_relations)})\s+"
            rf"(?P<y>(?:{determiners})\s+.+|[a-z][a-z_]*\d[a-z0-9_]*)$"
        )
        self.particles = frozenset(words.particles)
        # "build a tower of the cubes", "stack the cubes on top of each other", "pile the blocks up".
        nouns = alternatives(words.tower_nouns)
        self.tower = re.compile(
            rf"^(?:(?:{alternatives(words.tower_build_verbs)})\s+(?:a\s+)?(?:{nouns})"
            rf"(?:\s+(?:{alternatives(words.tower_links)})\s+(?P<x>.+?))?"
            rf"|(?:{alternatives(words.tower_verbs)})\s+(?:up\s+)?(?P<y>.+?)(?:\s+up)?"
            rf"(?:\s+(?:{alternatives(words.each_other)}|into (?:{alternatives(words.tower_articles)}) (?:{nouns})))?"
            rf"|(?:{alternatives(words.arrange_verbs)})\s+(?P<z>.+?)\s+(?:{alternatives(words.arrange_links)})\s+"
            rf"(?:a\s+)?(?:{nouns}))$"
        )
        # "..., with the blue cube at the bottom", "... with the red one on top", "... with green as the base"
        ends = alternatives(words.tower_ends)
        self.tower_end = re.compile(
            rf"^(?P<rest>.+?),?\s+with\s+(?P<who>.+?)\s+(?:(?:at|on)\s+the\s+(?P<at>{ends})|as\s+the\s+"
            rf"(?P<as>{ends})|on\s+(?P<on>top))$"
        )
        # What names a tower's objects without a noun ("stack all three"): its default, every cube.
        self.them_all = frozenset(words.them_all)
        self.base = re.compile(rf"\s(?:{alternatives(words.base_relations)})\s")
        self.question = re.compile(rf"\b(?:{alternatives(words.question_words)})\b")
        self.verbless_starts = frozenset(words.verbless_starts)
        self.fill = re.compile(
            rf"^(?:{alternatives(words.fill_verbs)})\s+(?:up\s+)?(?P<y>.+?)\s+(?:up\s+)?with\s+(?P<x>.+)$"
        )
        piece = rf"(?:the\s+)?(?P<{{}}>[a-z_]+(?:\s+(?:{alternatives(words.piece_nouns)}))?)"
        # A tower of three said bottom to top: "stack all three cubes, green at the bottom, then blue, red on top".
        self.ordered_tower = re.compile(
            rf"^(?P<head>(?:{alternatives(words.ordered_tower_verbs)})\b[^,]*),\s+(?:with\s+)?"
            + piece.format("bottom")
            + rf"\s+(?:{alternatives(words.bottom_endings, space=_S)})"
            r",?\s+(?:then\s+)?"
            + piece.format("middle")
            + r"\s*,?\s+(?:and\s+)?(?:then\s+)?(?:with\s+)?"
            + piece.format("top")
            + rf"\s+(?:{alternatives(words.top_endings, space=_S)})$"
        )
        # "the red cube should be in the bowl", "make sure the drawer is open": the goal stated, not the action.
        states = alternatives([*lexicon.states["open"], *lexicon.states["closed"]])
        verify = alternatives(words.verify_leads) if words.verify_leads else r"(?!x)x"
        self.verify = re.compile(rf"^(?:{verify})\s+(?:that|whether|if)\s+(?P<rest>.+)$")
        self.goal_statement = re.compile(
            rf"^(?:(?P<lead>{alternatives(words.goal_leads)})\s+(?:that\s+)?)?(?P<x>.+?)\s+"
            rf"(?P<be>{alternatives(words.goal_verbs)})\s+"
            rf"(?:(?P<state>{states})|{on}\s+(?P<y>.+))$"
        )
        # A verb no lexicon or manifest knows, read by the clause's shape (``_by_shape``); an "-ly" word before it
        # is its adverb ("awfully popping the cube into the bowl").
        verb = r"(?:[a-z]+ly\s+)?(?P<v>[a-z]+)"
        starts = alternatives(sorted({*words.object_starts, *words.articles}))
        self.caused_motion = re.compile(
            rf"^{verb}\s+(?P<x>(?:{starts})\b[^-,;:]*?)\s+(?P<rel>{alternatives(words.moved_relations)})"
            rf"\s+(?P<y>(?:{determiners})\s+.+)$"
        )
        self.self_motion = re.compile(
            rf"^{verb}(?:\s+(?:{alternatives(words.motion_particles)}))+\s+(?:{alternatives(words.motion_links)})"
            rf"\s+(?P<y>(?:{determiners})\s+.+)$"
        )
        ways = alternatives([phrase for phrase, _ in lexicon.direction_phrases()])
        vague = alternatives(lexicon.vague_amounts)
        self.moved_way = re.compile(
            rf"^{verb}\s+(?P<x>(?:{starts})\b[^-,;:]*?)\s+(?:(?:{alternatives(words.moved_particles)})\s+)?"
            rf"(?:(?:{vague})\s+)?(?:{alternatives(lexicon.clause_patterns.towards)})\s+(?:the\s+)?(?P<d>{ways})"
            rf"(?:\s+(?:{vague}))?$"
        )
        # "the cube (which is) to the left of the red cube": a side of another object, said right after an object's
        # words, describes the object; grounding reads it in its first form (object_matching._beside).
        self.side_said = {w: said[0] for said in lexicon.side_relations.values() for w in said}
        sides = alternatives(sorted(self.side_said, key=len, reverse=True), space=_S)
        which, linking, placed = alternatives(lexicon.relative_pronouns), lexicon.linking_verbs, lexicon.placement_verbs
        self.side_description = re.compile(
            rf"\s+(?:(?:{which})\s+(?:{alternatives(linking.position)})\s+)?(?:(?:{alternatives(placed.position)})\s+)?"
            rf"(?P<side>{sides or '(?!)'})\s+(?=\S)"
        )
        self.not_object_words = frozenset(words.articles) | frozenset(words.side_leads)
        self.there = frozenset(words.there_words)
        self.extreme_words = frozenset(lexicon.extreme_words)
        self.copulas = frozenset(words.copulas)
        self.put_there = re.compile(rf"^(?P<x>.+?)\s+(?:{alternatives(words.there_words)})$")
        self.question_words = frozenset(words.question_words)
        self.relative_pronouns = frozenset(lexicon.relative_pronouns)
        self.opened = frozenset(lexicon.states["open"])
        into = words.into_it
        self.into_it = re.compile(rf"^(?P<x>.+?)\s+(?P<rel>{alternatives([*into['in'], *into['on']])})$")
        self.into_on = frozenset(into["on"])


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


def without_article(phrase: str) -> str:
    """A phrase without the article it starts with ("the red cube": "red cube")."""
    return _patterns().article.sub("", phrase)


def object_phrase(text: str | None) -> str | None:
    """An object phrase as written ("the red cube"); None for a pronoun ("it")."""
    if text is None:
        return None
    patterns = _patterns()
    phrase = patterns.contents.sub("", text.strip())  # "whatever s in the red mug": the red mug (poured, emptied)
    bare = patterns.article.sub("", phrase).strip()
    return None if not bare or bare in patterns.pronouns else phrase


def _described(rest: str) -> tuple[str, str]:
    """``rest`` with each side of an object said right after an object's words in the form grounding reads ("the
    cube to the left of the red cube" -> "the cube left of the red cube"), and ``rest`` with those masked, for the
    check for relations no skill makes: "put the cube left of the plate" still says where to put it."""
    patterns = _patterns()
    said, masked, end = [], [], 0
    for found in patterns.side_description.finditer(rest):
        before = rest[: found.start()].split()
        if not before or before[-1] in patterns.not_object_words:
            continue  # "go to the left of the table", "take it from in front of the bowl": a place
        said += [rest[end : found.start()], f" {patterns.side_said[' '.join(found.group('side').split())]} "]
        masked += [rest[end : found.start()], " of "]
        end = found.end()
    return "".join([*said, rest[end:]]), "".join([*masked, rest[end:]])


def side_described(phrase: str) -> str:
    """An object phrase with each side of another object said in the form grounding reads ("the cube to the
    left of the red cube" -> "the cube left of the red cube"): what it is as an object phrase."""
    return " ".join(_described(phrase)[0].split())


def _except(phrase: str | None) -> tuple[str | None, str | None]:
    """A phrase without its exception ("all cubes but the blue one" -> "all cubes", "the blue one")."""
    found = _patterns().excepted.match(phrase) if phrase else None
    return (phrase, None) if found is None else (found.group("kept"), found.group("ex"))


def _intent(action: IntentAction, clause: str, groups: dict[str, str | None]) -> Intent | None:
    x, excluding = _except(groups.get("x"))
    y, excluding_after = _except(groups.get("y"))  # "move every cube to the plate except the red one"
    if y is not None:
        y = _patterns().trailing_too.sub("", y)  # "then put the red cube in the bowl too"
    if x is not None and y is not None:
        x = re.sub(r"\s+away$", "", x)  # "tuck the green cube away in the drawer"
    groups = {**groups, "x": x, "y": y}
    excluding = excluding or excluding_after
    obj = object_phrase(groups.get("x"))
    source = groups.get("src")
    if obj is not None and source:
        obj = f"{obj} {source}"  # "the red cube out of the bowl": grounded as a relation
    target = object_phrase(groups.get("y"))
    # Either phrase may be a pronoun ("then put it on the plate", "open the drawer and put the cube in
    # it"): None, and the planner resolves it to the previous clause's object (or the one held).
    rel = groups.get("rel")
    relation: Literal["on", "in"] | None = None
    if rel is not None and rel not in _patterns().neutral_words:
        relation = "in" if rel in _patterns().in_words else "on"
    direction = groups.get("d")
    return Intent(
        action=action,
        clause=clause,
        object=obj,
        target=target,
        relation=relation,
        direction=_compiled().direction_of[direction] if direction else None,
        excluding=excluding,
    )


def parse_clause(clause: str, skill_phrases: Collection[str] = ()) -> Intent | None:
    """The intent of one clause, or None when no form of the grammar matches it.

    The tabletop's forms first (pick, put, stack, ...), then the act form: a verb phrase from the
    lexicon's ``actions`` or from a manifest's ``language.phrases`` (``skill_phrases``), then what it acts
    on, where, which way. Remembered: the restatement search plans hundreds of chains of the same few
    clauses, and an intent is frozen."""
    return _clause_intent(clause, frozenset(skill_phrases))


@lru_cache(maxsize=4096)
def _clause_intent(clause: str, skill_phrases: frozenset[str]) -> Intent | None:
    if (checked := _patterns().verify.match(clause)) is not None:
        # "check that the red cube is on the plate": the stated goal, checked, before any verb form reads "check
        # <object>" (None: what follows states no goal, so there is nothing to check)
        stated = _goal_statement(checked.group("rest"))
        return stated.model_copy(update={"clause": clause, "verify": True}) if stated is not None else None
    clause = _owned(_counted_nouns(clause, skill_phrases), skill_phrases)
    if (recounted := _counted_rephrasing(clause, skill_phrases)) is not None:
        return recounted
    amounts = find_quantities(clause)
    if not amounts and (counted := _FOR_COUNT.search(clause)) is not None and (n := said_number(counted["n"])):
        # "set the table for four": a count said with no noun after it, for a skill's count parameter
        amounts = [Quantity(value=n, unit=COUNT, kind=COUNT, span=counted.span("n"), text=counted["n"])]
    if amounts:  # "push the red cube 10 cm to the left": the amount is read apart from the phrases
        amounts, bare = _named_amounts(clause, amounts)
        bare = _without_amount_frames(bare, amounts)
        bare = re.sub(r"\s+,\s*", " ", bare)  # "hoover the hallway twice, on eco": the comma was the amount's
        bare = _patterns().amount_left.sub("", " ".join(bare.split()))
        bare = _compiled().suffix.sub("", bare.strip(" ,")).strip(" ,")  # "drive to the room please, 0.2 m/s"
        intent = _parse_clause(bare, skill_phrases)
        return None if intent is None else intent.model_copy(update={"clause": clause, "quantities": tuple(amounts)})
    return _parse_clause(clause, skill_phrases)


def _counted_rephrasing(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """A rephrasing that says its amount in other words ("do three loops of corridor b", "give it two taps"),
    read with the amount in it: amounts are otherwise read apart before any rephrasing, which would leave
    "do loops of corridor b". None when no rephrasing's reading says an amount."""
    reading = rephrased(clause, skill_phrases)
    amounts = find_quantities(reading) if reading is not None else []
    if reading is None or not amounts or amounts == find_quantities(clause):
        return None
    named, bare = _named_amounts(reading, amounts)
    intent = _parse_plain(_without_amount_frames(bare, named).strip(" ,"), skill_phrases)
    return None if intent is None else intent.model_copy(update={"clause": clause, "quantities": tuple(named)})


def _counted_nouns(clause: str, skill_phrases: Collection[str]) -> str:
    """ "take three photos of the valve" as "take a photo of the valve 3 times", where "take a photo of" is a
    phrase of this robot's skills or the lexicon: a count of what a verb-and-noun phrase makes."""
    found = _patterns().counted_nouns.match(clause)
    if found is None or (n := said_number(found["n"])) is None or n != int(n):
        return clause
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}
    noun = found["noun"]
    for one in dict.fromkeys((noun, noun.removesuffix("s"), noun.removesuffix("es"))):
        for article in _patterns().indefinite_articles:
            said = f"{found['v']} {article} {one}"
            if any(p == said or p.startswith(said + " ") for p in phrases):
                once = f"{said} {found['rest']}"
                return once if n == 1 else f"{once} {int(n)} times"
    return clause


def _owned(clause: str, skill_phrases: Collection[str]) -> str:
    """ "scan its barcode", "scan the label s barcode" as "scan the barcode on it/the label", where "scan the
    barcode on" is a phrase of this robot's skills or the lexicon."""
    found = _patterns().owned.match(clause)
    if found is None:
        return clause
    said = f"{found['v']} the {found['n']} on"
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}
    if said not in phrases:
        return clause
    return f"{said} {'it' if found['its'] else found['x']}{found['rest']}"


_FOR_COUNT = re.compile(r"\s+for\s+(?P<n>\S+)$")


_NAMED_AFTER = re.compile(r"^\s+(?:of\s+)?(?P<name>[a-z]+)(?=\s*(?:,|$|\band\b|\bthen\b))")


def _named_amounts(clause: str, amounts: list[Quantity]) -> tuple[list[Quantity], str]:
    """Each amount with what the clause says it is ("with a clearance of 120 cm", "1 m clearance"), and the
    clause without the naming words said before it; the planner gives a named amount to the parameter of
    that name, and never guesses between two it could name."""
    named: list[Quantity] = []
    bare = clause
    for amount in reversed(amounts):
        before, after = bare[: amount.span[0]], bare[amount.span[1] :]
        found = _patterns().named_before.search(before)
        if found is not None:
            bare = before[: found.start()] + " " * (len(before) - found.start()) + bare[amount.span[0] :]
            named.append(amount.model_copy(update={"named": found.group("name") or found.group("bare")}))
            continue
        after_name = _NAMED_AFTER.match(after)
        named.append(amount.model_copy(update={"named": after_name.group("name") if after_name else None}))
        if after_name is not None and after_name.group("name") not in _compiled().direction_of:
            # "at a 60 degree tilt": the name said after is not part of what follows ("50 cm left" keeps its way)
            end = amount.span[1] + after_name.end()
            bare = bare[: amount.span[1]] + " " * (end - amount.span[1]) + bare[end:]
    return list(reversed(named)), bare


def _without_amount_frames(clause: str, amounts: list[Quantity]) -> str:
    """The clause without its amounts and the words that only frame them ("at a distance of 2 metres",
    "and stop 0.8 metres away"): the lexicon's ``amount_frames``."""
    frames = load_lexicon().amount_frames
    lead = "|".join(_alternatives(frames.get("before", [])))
    tail = "|".join(_alternatives(frames.get("after", [])))
    bare = clause
    for amount in reversed(amounts):
        before, after = bare[: amount.span[0]], bare[amount.span[1] :]
        before = re.sub(rf"(?:\s+(?:{lead}))+\s*$", " ", " " + before)[1:] if lead else before
        after = re.sub(rf"^\s*(?:{tail})(?=\s|,|$)", "", after) if tail else after
        bare = before + after
    return bare


def _parse_clause(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """A clause with no amount in it, rephrased where the lexicon says how ("what does the gauge say" as
    "read the gauge"), its particle read first ("take the rubbish out" as "take out the rubbish")."""
    clause = infinitive_first(clause, _leads(skill_phrases))
    if (moved := place_last(clause, _leads(skill_phrases))) != clause:
        intent = _parse_clause(moved, skill_phrases)
        return None if intent is None else intent.model_copy(update={"clause": clause})
    reading = rephrased(clause, skill_phrases)
    if reading is not None and (intent := _parse_plain(reading, skill_phrases)) is not None:
        return intent
    if (intent := _parse_plain(clause, skill_phrases)) is not None:
        return intent
    shaped = _by_shape(clause, skill_phrases)
    intent = _parse_plain(shaped, skill_phrases) if shaped is not None else None
    return None if intent is None else intent.model_copy(update={"clause": clause})


def _by_shape(clause: str, skill_phrases: Collection[str]) -> str | None:
    """The request a clause makes by its shape alone, when its verb is one neither the lexicon nor a manifest
    knows: ``put X into Y`` for an object moved along a path ("pop the green cube into the bowl", "scooch the
    mug onto the table"), ``push X left`` for one moved a way ("edge the cube over to the left"), ``go to Y``
    for the robot going along a path ("mosey on down to the pump house"). The shapes are English's motion
    constructions, whatever the verb; the unsafe words are refused before any clause is read ("hurl the cube
    into the bowl"); None when no shape fits."""
    patterns = _patterns()
    known = _leads(skill_phrases) | patterns.question_words  # a verb that has forms of its own, or a question
    shapes = (
        (patterns.caused_motion, "put {x} {rel} {y}"),
        (patterns.moved_way, "push {x} {d}"),
        (patterns.self_motion, "go to {y}"),
    )
    for shape, request in shapes:
        if (match := shape.match(clause)) is None:
            continue
        going = shape is patterns.self_motion and _goes_to(match["v"])  # "roll on through to": "roll to"
        if match["v"] not in known or going:
            return request.format(**match.groupdict())
    return None


def _goes_to(verb: str) -> bool:
    """Whether the lexicon's NAVIGATE phrases say ``verb`` with "to" ("roll to", "head to"): such a verb with
    more path words before its "to" ("roll on through to the hall") still goes there."""
    return f"{verb} to" in load_lexicon().actions.get(ActionVerb.NAVIGATE, [])


def rephrased(clause: str, skill_phrases: Collection[str] = ()) -> str | None:
    """The request a clause means by the lexicon's first rephrasing that matches it and yields a request
    starting with a verb the lexicon or a manifest knows; None when none does. A rephrasing whose reading
    starts with no such verb may be rephrased once more: "in the living room, make the light on" is "make the
    light on in the living room" (a leading place said last), which is "turn on the light in the living room"."""
    leads = _leads(skill_phrases)
    unled: list[str] = []
    for reading in _rephrasings(clause, leads):
        if reading.split()[0] in leads:
            return reading
        unled.append(reading)
    for first in unled:
        for reading in _rephrasings(first, leads):
            if reading.split()[0] in leads:
                return reading
    return None


def _rephrasings(clause: str, leads: frozenset[str]) -> Iterator[str]:
    """Each reading of ``clause`` by a rephrasing of the lexicon that matches it, in the lexicon's order."""
    for rephrasing in load_lexicon().rephrasings:
        reading = rephrasing.read(clause)
        reading = infinitive_first(reading, leads) if reading else reading
        if reading and reading != clause:
            yield reading


def _leads(skill_phrases: Collection[str]) -> frozenset[str]:
    """The words a request starts with: the lexicon's verbs and the first words of the skills' phrases."""
    return _leads_of(frozenset(skill_phrases))


@lru_cache(maxsize=64)
def _leads_of(skill_phrases: frozenset[str]) -> frozenset[str]:
    return load_lexicon().verb_words() | {p.split()[0] for p in skill_phrases}


def _parse_plain(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """A clause with no amount in it, its particle read first ("take the rubbish out" as "take out the
    rubbish"); the intent keeps the clause as written."""
    reading = _particle_first(clause, skill_phrases)
    intent = _parse_reading(reading, skill_phrases)
    if intent is None and (plain := _without_particle(reading, skill_phrases)) is not None:
        intent = _parse_reading(plain, skill_phrases)  # "clear off the table": the particle adds nothing
    return intent if intent is None or reading == clause else intent.model_copy(update={"clause": clause})


def _parse_reading(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """The home, particle, act and tabletop forms, the longer verb first."""
    grammar = _compiled()
    leads = _leads(skill_phrases)
    if clause.startswith("you ") and clause.split()[1] in leads:
        clause = clause[4:]  # "you go to the hallway", "then you close the door": the subject is the robot
    if grammar.home.match(clause):
        return Intent(action=IntentAction.HOME, clause=clause)
    patterns = _patterns()
    going = patterns.going.match(clause)
    own = any(clause == p or clause.startswith(p + " ") for p in skill_phrases if p.split()[0] in patterns.going_verbs)
    if not own and going is not None and going.group("verb") in leads - patterns.not_going_on:
        clause = going.group("rest")  # "go push the red block right": the going is not a task ("go get" may be)
    for action, pattern in grammar.particles:  # "pull the drawer open": the particle says what the verb is
        if (particle := pattern.match(clause)) is not None:
            return _intent(action, clause, particle.groupdict())
    started = _act_start(clause, skill_phrases)
    act_verb = started[0] if started is not None else None
    form_verb = grammar.verb_re.match(clause)
    if act_verb is not None and (form_verb is None or len(act_verb) > len(form_verb.group("v"))):
        # "take a look at the gauge" is a look, not a take: the longer verb phrase decides.
        return _act(clause, skill_phrases) or _form(clause, skill_phrases)
    if form_verb is not None and act_verb not in skill_phrases:
        return _form(
            clause, skill_phrases
        )  # "put the red cube": the form's verb, outside its forms, is not an act either
    return _form(clause, skill_phrases) or _act(clause, skill_phrases)


def _act_verb(clause: str, skill_phrases: Collection[str]) -> str | None:
    """The longest act verb phrase (the lexicon's actions, the manifests' phrases) the clause starts with."""
    phrases = sorted({*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}, key=len, reverse=True)
    return next((p for p in phrases if clause == p or clause.startswith(p + " ")), None)


def _modified_phrase(clause: str, skill_phrases: Collection[str]) -> tuple[str, str] | None:
    """ "set the kitchen table for four" by a skill's phrase "set the table": (the phrase, what follows its
    verb: "the kitchen table for four"), when the clause names the phrase's noun with words before it."""
    for phrase, modified in _modifiable(frozenset(skill_phrases)):
        found = modified.match(clause)
        if found is not None:
            return phrase, found["rest"]
    return None


@lru_cache(maxsize=64)
def _modifiable(skill_phrases: frozenset[str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The skill phrases of the form "<verb> the <noun>", longest first, each with the pattern of a clause that
    names its noun with one or two words before it."""
    found = []
    for phrase in sorted(skill_phrases, key=lambda p: (-len(p), p)):
        said = re.fullmatch(r"(?P<v>.+?) the (?P<n>[a-z]+)", phrase)
        if said is not None:
            rest = rf"(?P<rest>the\s+(?:[a-z_]+\s+){{1,2}}{said['n']}\b.*)"
            found.append((phrase, re.compile(rf"^{re.escape(said['v'])}\s+{rest}$")))
    return tuple(found)


def _act_start(clause: str, skill_phrases: Collection[str]) -> tuple[str, str] | None:
    """The act verb phrase a clause starts with and what follows it: the longest phrase said outright, or a
    skill's phrase whose noun the clause names with words before it ("set the kitchen table": "set the
    table"), whichever is longer."""
    verb = _act_verb(clause, skill_phrases)
    modified = _modified_phrase(clause, skill_phrases)
    if modified is not None and (verb is None or len(modified[0]) > len(verb)):
        return modified
    return None if verb is None else (verb, clause[len(verb) :].strip())


def _act(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """The act form: "go to the kitchen", "wipe the table", "turn off the light", "read the gauge"."""
    started = _act_start(clause, skill_phrases)
    if started is None:
        return None
    verb, rest = started
    rest, masked = _described(rest)
    if _compiled().unsupported.search(masked):
        return None  # "next to the plate": a relation no skill makes; not guessed at ("come along with" is a verb)
    patterns = _patterns()
    people = "|".join(_alternatives(load_lexicon().people))
    rest = re.sub(rf"^(?:{people})$|\s+(?:{patterns.people_links})\s+(?:{people})$", "", rest)  # the skill's person
    if patterns.place.match(rest):
        rest = rest.split(" ", 1)[1]  # "recharge at your dock": the place is what it acts on
    direction = None
    for phrase, name in _compiled().direction_of.items():
        if rest == phrase or rest.endswith(" " + phrase):
            rest, direction = rest[: len(rest) - len(phrase)].strip(), name
            break
    rest = patterns.towards.sub("", rest).strip()
    there = rest in patterns.there  # "take a photo there": where the clause before acted
    if there:
        rest = ""
    x, y, joined = rest, None, None
    split = patterns.act_rest.match(rest)
    if split is not None and split.group("x").split()[-1] in patterns.extreme_words:
        split = None  # "go to the gauge nearest to the valve": where the gauge is, not where to go
    if split is not None:
        x, y, joined = split.group("x"), split.group("y"), rest
    elif rest.split(" ", 1)[0] in patterns.object_starts:
        x = rest
    elif rest and verb.split()[-1] in patterns.verb_prepositions:
        x = rest  # "go to kitchen": no article after a verb that ends in its preposition
    elif patterns.counted.match(rest) and said_number(rest.split()[0]) is not None:
        x = rest  # "scan 3 levels of the shelf": a count the skill's arguments read
    elif rest:  # "scan shelf a", "patrol corridor b and the boiler room": short names, or a list of them
        parts = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", rest)
        x = rest if all(len(part.split()) <= 3 for part in parts) else ""
        if not x:
            return None
    obj, excluding = _except(x or None)
    return Intent(
        action=IntentAction.ACT,
        clause=clause,
        verb=verb,
        object=object_phrase(obj),
        target=object_phrase(y),
        direction=direction,
        excluding=excluding,
        bare=not rest and direction is None and not there,
        there=there,
        joined=joined,
    )


def _without_particle(clause: str, skill_phrases: Collection[str]) -> str | None:
    """ "clear off the kitchen table" as "clear the kitchen table", where "clear off" is no verb phrase of the
    lexicon's or the skills' and "clear" is; None otherwise."""
    words = clause.split()
    if len(words) < 3 or words[1] not in _patterns().particles or words[0] not in _leads(skill_phrases):
        return None
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases()), *load_lexicon().verb_words()}
    if any(p.startswith(f"{words[0]} {words[1]}") for p in phrases | {p for p, _ in load_lexicon().verb_phrases()}):
        return None
    return " ".join([words[0], *words[2:]])


def _particle_first(clause: str, skill_phrases: Collection[str]) -> str:
    """ "turn the light on" -> "turn on the light", when "turn on" is a verb phrase and "on" ends the clause."""
    words = clause.split()
    if len(words) < 3:
        return clause
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}
    verb, last = words[0], words[-1]
    if f"{verb} {last}" in phrases and f"{verb} {words[1]}" not in phrases:
        return " ".join([verb, last, *words[1:-1]])
    return clause


def _form(clause: str, skill_phrases: Collection[str] = ()) -> Intent | None:
    """The intent of a clause by the tabletop's forms (pick, put, stack, push, pour, tap, open, close)."""
    grammar = _compiled()
    if grammar.home.match(clause):
        return Intent(action=IntentAction.HOME, clause=clause)
    for action, pattern in grammar.particles:
        match = pattern.match(clause)
        if match is not None:
            return _intent(action, clause, match.groupdict())
    if (stated := _goal_statement(clause)) is not None:
        return stated
    if (tower := _tower(clause)) is not None:
        return tower
    if (filled := _patterns().fill.match(clause)) is not None:  # "fill the bowl with the cubes": put them in it
        return _intent(IntentAction.PUT, clause, {"x": filled.group("x"), "y": filled.group("y"), "rel": "in"})
    verb = grammar.verb_re.match(clause)
    if verb is None:
        return _verbless(clause)
    rest, masked = _described((verb.group("rest") or "").strip())
    if grammar.unsupported.search(masked):
        return None  # "next to the plate": a relation no skill makes; not guessed at
    for action in grammar.verbs[verb.group("v")]:
        if action is IntentAction.PUSH:
            match = grammar.push.match(rest)
            if match is not None and match.group("d2") and not _same_way(match.group("d"), match.group("d2")):
                match = None  # "left forward": two ways at once is not one push
            kept, excluding = _except(rest)
            pushed = grammar.push.match(kept) if match is None and kept and excluding is not None else None
            if pushed is not None:
                # "push all the cubes forward except the blue one"
                return _intent(action, clause, {**pushed.groupdict(), "x": f"{pushed.group('x')} except {excluding}"})
        elif not rest and action is IntentAction.PUT:
            continue
        else:
            match = _patterns().forms[action].match(rest) if rest else None
        if match is None:
            if action is IntentAction.PUT and (put := _put_down_or_into_it(verb.group("v"), rest, clause)):
                return put
            continue
        intent = _intent(action, clause, match.groupdict())
        if intent is not None and verb.group("v") in skill_phrases:  # a manifest claims the verb ("fetch")
            return intent.model_copy(update={"verb": verb.group("v")})
        if intent is not None:
            return intent
    return None


_EVERY_CUBE = "all the cubes"
"""What "build a tower" with nothing named is built of."""


def _verbless(clause: str) -> Intent | None:
    """ "red cube on the plate", "the blue block to the bowl", "red on top of green": a placement with its verb
    left out.

    Only when what comes first ends in a category word the lexicon knows ("cube", "block"): "fly to the
    moon" is not a placement, and stays outside the grammar."""
    patterns = _patterns()
    match = patterns.forms[IntentAction.PUT].match(clause)
    if match is None or not match.group("x") or patterns.question.search(match.group("x")):
        return None
    lex = load_lexicon()
    kept, _ = _except(match.group("x"))  # "all the blocks apart from the red one into the bowl"
    words = (kept or "").split()
    nouns = lex.category_words() | set(lex.categories)
    starts = patterns.verbless_starts | lex.colour_words() | nouns
    last, first = words[-1].split("_")[-1], words[0].split("_")[0]  # "blue_cube on top of green_cube"
    named = last in nouns or (len(words) == 1 and last in lex.colour_words())  # "red on top of green"
    if len(words) > 4 or not named or (words[0] not in starts and first not in lex.colour_words()):
        return None  # an object phrase ("the red cube"), not a sentence that happens to end in "cube"
    if _compiled().unsupported.search(clause):
        return None
    return _intent(IntentAction.PUT, clause, match.groupdict())


def ordered_tower(text: str) -> Intent | None:
    """The tower of three a whole task asks for bottom to top, if it is one: its first and last say its bottom
    and top, so the middle is what is left."""
    found = _patterns().ordered_tower.match(text)
    if found is None or not re.search(r"\b(?:three|3)\b", found["head"]):
        return None  # of more than three, a bottom and a top leave the middle open
    tower = _tower(found["head"])
    if tower is None or tower.target is not None or not tower.tower:
        return None
    return tower.model_copy(
        update={"clause": text, "target": object_phrase(found["bottom"]), "top": object_phrase(found["top"])}
    )


def _tower(clause: str) -> Intent | None:
    """A tower of the objects named (all the cubes when none is), when the clause asks for one and names no
    base outside it; "with X at the bottom" / "with X on top" say which of them starts or ends it."""
    bottom = top = None
    patterns = _patterns()
    end = patterns.tower_end.match(clause)
    if end is not None:
        clause_rest, which = end.group("rest"), end.group("at") or end.group("as") or end.group("on")
        bottom, top = (None, end.group("who")) if which == "top" else (end.group("who"), None)
    else:
        clause_rest = clause
    match = patterns.tower.match(clause_rest)
    if match is None:
        return None
    stacked = match.group("y")
    if stacked is not None and patterns.base.search(f" {stacked} "):
        return None  # "pile the cubes up on the plate": a base is named, the stack form reads it
    named = match.group("x") or stacked or match.group("z")
    if named in patterns.them_all:  # "stack all three", "stack them all": of the tower's default kind, cubes
        named = "all three cubes" if "three" in named or "3" in named else None
    phrase = object_phrase(named) if named is not None else _EVERY_CUBE
    if phrase is None:
        return None
    phrases, quantified = expand_phrase(phrase)
    if not quantified and len(phrases) < 2:
        return None  # "stack the red cube": one object, and no base to stack it on
    return Intent(
        action=IntentAction.STACK,
        clause=clause,
        object=phrase,
        tower=True,
        target=object_phrase(bottom) if bottom else None,
        top=object_phrase(top) if top else None,
    )


def _goal_statement(clause: str) -> Intent | None:
    """The intent a stated goal asks for (open, close, or put), or None when the clause is not one."""
    patterns = _patterns()
    match = patterns.goal_statement.match(clause)
    if match is None or _compiled().unsupported.search(clause):
        return None
    if match.group("x").split()[-1] in patterns.relative_pronouns:
        return None  # "put the cube that is on the plate in the bowl": a relative clause, not a stated goal
    if match.group("lead") is None and match.group("x") in patterns.pronouns and match.group("be") in patterns.copulas:
        return None  # "close the drawer, it is open": what is so, a reason; "make sure it is open" asks
    state = match.group("state")
    if state is not None:
        action = IntentAction.OPEN if state in patterns.opened else IntentAction.CLOSE
        return Intent(action=action, clause=clause, object=object_phrase(match.group("x")))
    return _intent(IntentAction.PUT, clause, match.groupdict())


_DOWN = re.compile(r"^(?P<x>.+?)(?:\s+down)?$")
_AT = re.compile(r"^(?P<x>.+?)(?:\s+down|\s+off)?\s+at\s+(?P<y>.+)$")


def _put_down_or_into_it(verb: str, rest: str, clause: str) -> Intent | None:
    """ "put the cube inside" (into the previous object) or "drop it" / "put the cube down" (onto the table)."""
    into = _patterns().into_it.match(rest)
    if into is not None:
        relation: Literal["on", "in"] = "on" if into.group("rel") in _patterns().into_on else "in"
        return Intent(action=IntentAction.PUT, clause=clause, object=object_phrase(into.group("x")), relation=relation)
    there = _patterns().put_there.match(rest)
    if there is not None:  # "open the drawer and put the cube there": into what the clause before acted on
        return Intent(action=IntentAction.PUT, clause=clause, object=object_phrase(there.group("x")))
    at = _AT.match(rest)
    if at is not None and verb in _compiled().put_down:  # "drop it at pack station 2": there, not on a table
        obj = object_phrase(at.group("x"))
        return Intent(
            action=IntentAction.PUT, clause=clause, object=obj, target=at.group("y"), relation="on", verb=verb
        )
    down = _DOWN.match(rest)
    if down is not None and (verb in _compiled().put_down or rest.endswith(" down")):
        obj = object_phrase(down.group("x"))
        said = verb if verb in _compiled().put_down or not rest.endswith(" down") else f"{verb} down"
        # the verb as said ("set down"): a skill that claims it (a pallet's set-down) is what it asks for
        return Intent(action=IntentAction.PUT, clause=clause, object=obj, target="the table", relation="on", verb=said)
    return None


def other_splits(intent: Intent) -> list[Intent]:
    """A placement read with its object and target split at each other relation word, in order.

    "put the cube on the plate in the bowl" is read first as (the cube) in (the plate in the bowl); the
    planner takes the first reading whose phrases each name one object, here (the cube on the plate) in
    (the bowl). Empty for anything but a placement written with a verb.
    """
    if intent.action is not IntentAction.PUT:
        return []
    verb = _compiled().verb_re.match(intent.clause)
    rest = (verb.group("rest") or "").strip() if verb is not None else ""
    readings = []
    for at in re.finditer(rf"(?<=\s){on_relation()}(?=\s)", rest):
        x, y = rest[: at.start()].strip(), rest[at.end() :].strip()
        reading = _intent(IntentAction.PUT, intent.clause, {"x": x, "y": y, "rel": at.group("rel")})
        if reading is not None and (reading.object, reading.target) != (intent.object, intent.target):
            readings.append(reading)
    return readings


def _same_way(first: str, second: str) -> bool:
    """Whether two direction phrases say the same way ("back towards you")."""
    direction_of = _compiled().direction_of
    return direction_of[first] == direction_of[second]

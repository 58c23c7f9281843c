"""Object matching: the user's words for an object resolved to one world-state id.

Planners must never invent ids, so a phrase is matched only against the
objects in the current world state, by the first rule that finds anything:

1. exact: the phrase is an id ("red cube" or "red_cube" -> ``red_cube``);
2. substring: the phrase starts a word of an id ("red" -> ``red_cube``);
3. words: every word of the phrase is among the object's words - its id's
   words, its colour, its category and the container it is in - after the
   lexicon's synonyms (``config/lexicon.yaml``: "green plate" -> ``plate``,
   "crimson block" -> ``red_cube``, "cabinet drawer" -> ``drawer``);
4. embedding: the head noun, the one word no object has, read as a category
   present by MiniLM above a high bar (``category_link``), then as rule 3;
5. relation: "the cube on the plate", "the block in the bowl", "the cube that
   is on the green cube", "the red cube from the bowl": the objects the first
   part names that rest on (``supported_by``) or are in (``inside``) the one
   object the second part names ("from", "off" and "out of": either). A source
   that is the table filters nothing: everything stands on it in the end;
6. position (tried before 5): "the leftmost cube", "the cube on the right",
   "the nearest block", "the cube closest to the bowl", "the farthest cube
   from you": of the objects the rest names, the one furthest that way in the
   robot's frame (x forward, y left) or nearest to / furthest from the robot's
   base or the one object named after "to"/"from". Two within 1 cm of each
   other are a tie, refused as ambiguous.

Before all of them, a side of another object: "the cube to the left of the red
cube", "the mug behind the kettle", "the block in front of the bowl" are, of
the objects the first part names, those on that side of the one object the
second part names, in the robot's frame and within 45 degrees of that way; of
several, the clearly nearest (``_beside``).

Every word must match, so a different colour or category is never
substituted: "the purple cube" matches nothing when there is no purple cube,
and that is a refusal (``UnknownObject``) naming the objects there are. A
rule that finds more than one object is an ambiguity, refused with every
candidate rather than settled by a guess. Ids a replan has ruled out (not
found, unreachable) are passed as ``exclude`` and never chosen; when they
were the only match, planning fails (the world changed), which is not a
refusal of the request.

``expand_phrase`` reads lists and quantifiers: "the red and the blue cube"
is two phrases, "all the cubes" / "every block" / "both cubes" one phrase
that may match several objects.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Collection, Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.noun_phrases import articles, looks_plural, phrase_words
from bt_executive.llm.language.quantities import number_words
from bt_executive.llm.plan import PlannerError, PlannerRefused, RefusalKind
from bt_executive.skills.conditions import DRAWER_OPEN_FRACTION
from bt_executive.skills.world_state import ObjectState, WorldState

MatchRule = Literal["exact", "substring", "words", "embedding", "position", "relation", "size", "negation", "ordinal"]


def synonyms() -> dict[str, str]:
    """Words users say for the categories and colours the world states name (from the lexicon)."""
    return load_lexicon().synonyms()


def ignored_words() -> frozenset[str]:
    """Words that name no property an object has here, dropped before matching by words."""
    return frozenset(load_lexicon().ignored)


class ObjectMatchError(PlannerError):
    """A phrase could not be resolved to exactly one world-state id."""

    phrase: str


class UnknownObject(ObjectMatchError, PlannerRefused):
    """No object in the world state matches the phrase: the task names something that is not here."""

    def __init__(self, phrase: str, known: Iterable[str], excluded: Iterable[str] = (), why: str = "") -> None:
        self.phrase = phrase
        self.known = tuple(known)
        self.excluded = tuple(excluded)
        ruled_out = f" (ruled out after failed attempts: {', '.join(self.excluded)})" if self.excluded else ""
        because = f" ({why})" if why else ""
        there = ", ".join(self.known) or "none"
        PlannerRefused.__init__(
            self,
            f"no object matches {phrase!r}{because}{ruled_out}; objects in the world: {there}",
            RefusalKind.NO_SUCH_OBJECT,
        )


class RuledOutObject(ObjectMatchError):
    """Every object the phrase matches was ruled out by failed attempts: the world changed under the task."""

    def __init__(self, phrase: str, excluded: Iterable[str]) -> None:
        self.phrase = phrase
        self.excluded = tuple(excluded)
        super().__init__(
            f"no object matches {phrase!r} any more (ruled out after failed attempts: {', '.join(self.excluded)})"
        )


class AmbiguousObject(ObjectMatchError, PlannerRefused):
    """More than one object matches the phrase equally well."""

    def __init__(self, phrase: str, candidates: Iterable[str]) -> None:
        self.phrase = phrase
        PlannerRefused.__init__(
            self, f"{phrase!r} is ambiguous: name one of them", RefusalKind.AMBIGUOUS, candidates=tuple(candidates)
        )


class ObjectMatch(BaseModel):
    """The objects a phrase matches (best rule only), and the rule that found them."""

    model_config = ConfigDict(frozen=True)

    phrase: str
    ids: tuple[str, ...]
    rule: MatchRule | None = None


def object_words(obj: ObjectState, *, container: bool = True) -> frozenset[str]:
    """Every word that can name ``obj``: its id's words, colour, category, and its container's words."""
    words = set(phrase_words(obj.id))
    words.update(phrase_words(obj.colour))
    words.update(phrase_words(obj.category))
    if container and obj.inside:
        words.update(phrase_words(obj.inside))
    return frozenset(words)


def _kind_words(obj: ObjectState) -> set[str]:
    """The words of what an object is and looks like (category and colour), not of its id."""
    return set(phrase_words(obj.category)) | set(phrase_words(obj.colour))


_LETTER_NUMBER = re.compile(r"[a-z]\d+")


def _spoken_ids(phrase: str, world: WorldState) -> str:
    """ "p seven", "papa 7", "label lima four" as "p7", "label l4": a letter (or the radio alphabet's word
    for it) and then a number, where the two together are an id here or a word of one."""
    said = {w for o in world.objects for w in phrase_words(o.id) if _LETTER_NUMBER.fullmatch(w)}
    if not said:
        return phrase
    letters = load_lexicon().phonetic_letters
    words, out, i = phrase.split(), [], 0
    while i < len(words):
        letter = words[i] if len(words[i]) == 1 else letters.get(words[i])
        number = words[i + 1] if i + 1 < len(words) else ""
        digits = number if number.isdigit() else str(number_words().get(number, ""))
        if letter and digits and f"{letter}{digits}" in said:
            out.append(f"{letter}{digits}")
            i += 2
            continue
        out.append(words[i])
        i += 1
    return " ".join(out)


def _numbered_ids(phrase: str, world: WorldState) -> str:
    """ "pump two" as "pump 2" where an id here is ``pump_2``: a number said in words after the word it
    numbers; a number word anywhere else ("the two cubes") is left as it is."""
    pairs = {(a, b) for o in world.objects for a, b in itertools.pairwise(phrase_words(o.id)) if b.isdigit()}
    if not pairs:
        return phrase
    words = phrase.split()
    for i in range(1, len(words)):
        number = number_words().get(words[i])
        if number is not None and (words[i - 1], str(number)) in pairs:
            words[i] = str(number)
    return " ".join(words)


def match_objects(
    phrase: str, world: WorldState, *, exclude: Collection[str] = (), among: Collection[str] | None = None
) -> ObjectMatch:
    """The ids ``phrase`` matches by the first rule that matches any, sorted; empty when none does."""
    phrase = _numbered_ids(_spoken_ids(phrase, world), world)
    beside = _beside(phrase, world, exclude=exclude, among=among)
    if beside is not None:
        return beside
    near = _nearest_to(phrase, world, exclude=exclude, among=among)
    if near is not None:
        return near
    refined = _refined(phrase, world, exclude=exclude, among=among)
    if refined is not None:
        return refined
    whole = _without_part(phrase)
    if whole is not None:  # "the drawer handle": the drawer
        return match_objects(whole, world, exclude=exclude, among=among)
    pool = sorted(
        (o for o in world.objects if o.id not in exclude and (among is None or o.id in among)), key=lambda o: o.id
    )
    words = phrase_words(phrase)
    while words and words[0] in articles():
        words = words[1:]
    as_id = "_".join(words)

    def with_same_kind(by_id: list[str], rule: MatchRule) -> ObjectMatch:
        # "the door" names front_door by its id, and d2 by its category: both, never the id alone ("the red
        # cube" is every red cube; "green" alone names no kind, and stays the id's).
        kind = [
            o.id
            for o in pool
            if o.id not in by_id and set(words) <= _kind_words(o) and set(words) & set(phrase_words(o.category))
        ]
        if kind:
            return ObjectMatch(phrase=phrase, ids=tuple(sorted(by_id + kind)), rule="words")
        return ObjectMatch(phrase=phrase, ids=tuple(by_id), rule=rule)

    # "count rack b1": that rack, which no skill here takes (a skill only for drawers: "open the cabinet", its drawer)
    drawers_only = among is not None and set(among) <= set(world.drawers)
    if among is not None and as_id not in among and world.object(as_id) is not None and not drawers_only:
        return ObjectMatch(phrase=phrase, ids=())
    exact = [o.id for o in pool if o.id == as_id]
    if exact:  # "blue cube" is blue_cube, unless another cube is blue too: ids are names, not descriptions
        written = phrase.strip().lower().split()[-1:] == [as_id] and "_" in as_id  # "blue_cube", typed as the id
        return ObjectMatch(phrase=phrase, ids=tuple(exact), rule="exact") if written else with_same_kind(exact, "exact")
    if as_id in world.regions:  # "the kitchen" is the room, not the kitchen table: a place names no object
        return ObjectMatch(phrase=phrase, ids=())
    if as_id and not as_id.isdigit():  # "pull up to 9": a bare number names no object by part of its id
        starts_word = re.compile(rf"(?:^|_){re.escape(as_id)}")
        substring = [o.id for o in pool if starts_word.search(o.id)]
        if substring:
            return with_same_kind(substring, "substring")
    words = _with_phrase_synonyms(words)
    table = synonyms()
    # A word some object here has is its own meaning: "counter" is the counter, where there is one, not a table.
    own = {w for o in pool for w in object_words(o, container=False)}
    wanted = {_own_word(w, own, table) for w in words} - ignored_words()
    if wanted and not all(w.isdigit() for w in wanted):  # "count 7": a bare number names no object
        # An object's own words first: "the bowl" is the bowl, not also the cube inside it (nor, when
        # the bowl is ruled out, the cube inside it instead).
        # "every surface": a word for several categories names an object of any of them (unless one is so called)
        kinds = {w: frozenset(c) for w, c in load_lexicon().kinds_of.items() if w in wanted and w not in own}
        narrow = wanted - set(kinds)

        def says(obj: ObjectState, *, container: bool = True) -> bool:
            return narrow <= object_words(obj, container=container) and all(obj.category in c for c in kinds.values())

        eligible = (o for o in world.objects if among is None or o.id in among)
        named = {o.id for o in eligible if says(o, container=False)}
        # by the container's words only when the words name no object of their own here, among the ones a
        # skill takes or not: "the rack" is the rack, never the totes in it that a skill would take instead;
        # only for a skill that takes drawers alone is a drawer named by what it is in ("open the cabinet")
        if named:
            by_words = [o.id for o in pool if o.id in named]
        elif any(says(o, container=False) for o in world.objects) and not drawers_only:
            by_words = []
        else:
            by_words = [o.id for o in pool if says(o)]
        by_words = _by_head(wanted, by_words, pool)
        if not by_words and words:  # "the black plate": a black microplate (a word that ends in the noun)
            by_words = _by_closed_compound(words[-1], wanted, pool)
        if by_words:
            return ObjectMatch(phrase=phrase, ids=tuple(by_words), rule="words")
        numbered = _kind_numbered(words, pool)
        if numbered:  # "table 4" is t4, "bench 2" bench2: its kind, and the number its id ends in
            return ObjectMatch(phrase=phrase, ids=numbered, rule="words")
        linked = _linked_head(words, wanted, pool)
        if linked is not None:
            by_link = [o.id for o in pool if linked <= object_words(o)]
            if by_link:
                return ObjectMatch(phrase=phrase, ids=tuple(by_link), rule="embedding")
    placed = _by_position(phrase, world, exclude=exclude, among=among)
    if placed is not None:
        return ObjectMatch(phrase=phrase, ids=placed, rule="position")
    related = _related(phrase, world, exclude=exclude, among=among)
    if related is not None:
        return ObjectMatch(phrase=phrase, ids=related, rule="relation")
    modified = _modifier_first(phrase)
    if modified is not None:  # "the gauge on the boiler": the boiler gauge
        found = match_objects(modified, world, exclude=exclude, among=among)
        if found.ids:
            return found
    held = _held_by_modifier(phrase, world, exclude=exclude, among=among)
    if held:  # "the shelf label": the label on the shelf
        return ObjectMatch(phrase=phrase, ids=held, rule="relation")
    said = phrase.split()
    if len(said) > 1 and said[-1] in load_lexicon().outer_parts:  # "the fridge door": the fridge, opened
        owner = match_objects(" ".join(said[:-1]), world, exclude=exclude, among=among)
        if len(owner.ids) == 1:
            return owner
    return ObjectMatch(phrase=phrase, ids=())


def _by_head(wanted: set[str], found: list[str], pool: Sequence[ObjectState]) -> list[str]:
    """Of the objects one noun names, those it names as what they are, not as a word that qualifies it: "the
    plate" is a plate (a microplate: a word that ends in it), not the plate reader, whose kind is a reader. Only
    when some object is so named; else what was found ("the light": the light switch, the one light here)."""
    if len(wanted) != 1:
        return found
    (noun,) = wanted
    heads = [o.id for o in pool if _head(o.category) == noun and o.id in found]
    if heads:
        return heads if len(heads) < len(found) else found
    if not found:
        return found
    closed = [o.id for o in pool if _ends_in(o.category, noun)]
    return closed or found


def _kind_numbered(words: Sequence[str], pool: Sequence[ObjectState]) -> tuple[str, ...]:
    """The one object of the kind the words before a number name whose id ends in that number ("table 4": t4 of
    the tables; "bench two": bench2); empty unless exactly one is."""
    if len(words) < 2:
        return ()
    said = str(number_words()[words[-1]]) if words[-1] in number_words() else words[-1]
    if not said.isdigit():
        return ()
    kind = set(words[:-1])
    found = tuple(
        o.id
        for o in pool
        if re.search(rf"(?<!\d){said}$", o.id) and kind <= set(phrase_words(o.category)) | set(phrase_words(o.colour))
    )
    return found if len(found) == 1 else ()


def _by_closed_compound(noun: str, wanted: set[str], pool: Sequence[ObjectState]) -> list[str]:
    """The objects whose kind is one word ending in ``noun`` ("microplate" for "plate") and that the phrase's
    other words name too (their colour, their id's words)."""
    rest = wanted - {noun}
    return [o.id for o in pool if _ends_in(o.category, noun) and rest <= object_words(o)]


def _head(category: str) -> str:
    """The word a kind's name ends in: what the thing is ("plate_reader": reader)."""
    words = phrase_words(category)
    return words[-1] if words else ""


def _ends_in(category: str, noun: str) -> bool:
    """Whether a kind's last word is one word made of another and ``noun`` ("microplate" for "plate")."""
    head = _head(category)
    return head.endswith(noun) and len(head) >= len(noun) + 3


def _held_by_modifier(
    phrase: str, world: WorldState, *, exclude: Collection[str], among: Collection[str] | None
) -> tuple[str, ...]:
    """ "the shelf label": a noun after another object's name, read as what that one object holds (what rests
    on it or lies in it); "the living room light": after a region's name, what is in that region. Empty when
    no first words name exactly one object or region holding something the rest names."""
    words = [w for w in phrase_words(phrase) if w not in articles()]
    if not 2 <= len(words) <= 4 or "and" in words:
        return ()  # a name and a noun, not a list or a sentence: each cut below matches its parts again
    for cut in range(1, len(words)):
        in_place = _in_region(
            f"{' '.join(words[cut:])} in {' '.join(words[:cut])}", world, exclude=exclude, among=among
        )
        if in_place:
            return in_place
        holder = match_objects(" ".join(words[:cut]), world).ids
        if len(holder) != 1:
            continue
        named = match_objects(" ".join(words[cut:]), world, exclude=exclude, among=among).ids
        held = [i for i in named if (o := world.object(i)) is not None and holder[0] in (o.supported_by, o.inside)]
        if held:
            return tuple(held)
    return ()


def _with_phrase_synonyms(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` with each several-word synonym as its one category word ("charging station" -> dock)."""
    text = f" {' '.join(words)} "
    for said, canonical in sorted(load_lexicon().phrase_synonyms().items(), key=lambda kv: -len(kv[0])):
        text = text.replace(f" {said} ", f" {canonical} ")
    return tuple(text.split())


def _nearest_to(
    phrase: str, world: WorldState, *, exclude: Collection[str], among: Collection[str] | None
) -> ObjectMatch | None:
    """ "the mug next to the bin": of what the first part names, the one nearest the one object the second
    part names, when it is clearly nearest (the next is SIZE_MARGIN times as far), else all of them (an
    ambiguity to refuse); None when the phrase names no nearness."""
    split = _patterns().nearness.match(" ".join(phrase.lower().split()))
    if split is None:
        return None
    anchor, found = _anchored(split.group("x"), split.group("y"), world, exclude=exclude, among=among)
    ids = tuple(found) if anchor is None else _clearly_nearest(found, anchor, world)
    return ObjectMatch(phrase=phrase, ids=ids, rule="relation")


def _anchored(
    x: str, y: str, world: WorldState, *, exclude: Collection[str], among: Collection[str] | None
) -> tuple[ObjectState | None, list[str]]:
    """The one object ``y`` names (None when it names several), and what ``x`` names but it; UnknownObject
    when ``y`` names nothing here."""
    anchors = match_objects(y, world).ids
    if not anchors:
        raise UnknownObject(y, world.ids())
    found = [i for i in match_objects(x, world, exclude=exclude, among=among).ids if i not in anchors]
    return (world.object(anchors[0]) if len(anchors) == 1 else None), found


def _clearly_nearest(ids: Sequence[str], anchor: ObjectState, world: WorldState) -> tuple[str, ...]:
    """Of ``ids``, the one nearest ``anchor`` when the next is SIZE_MARGIN times as far; else all of them."""

    def distance(object_id: str) -> float:
        obj = world.object(object_id)
        return math.dist(obj.position, anchor.position) if obj is not None else math.inf

    ranked = sorted(ids, key=distance)
    if len(ranked) >= 2 and distance(ranked[1]) < SIZE_MARGIN * distance(ranked[0]):
        return tuple(sorted(ids))
    return tuple(ranked[:1])


def _beside(
    phrase: str, world: WorldState, *, exclude: Collection[str], among: Collection[str] | None
) -> ObjectMatch | None:
    """ "the cube to the left of the red cube", "the mug behind the kettle": of what the first part names, those
    on that side of the one object the second part names, in the robot's frame: further along y for left (less
    for right), along x for behind (further from the robot; less for in front of), by more than TIE_M and by
    more than across (within 45 degrees of that way, so a cube far off to the side is not "in front of" it).
    Of several, the one nearest it when it is clearly nearest (SIZE_MARGIN), else all of them (an ambiguity to
    refuse). None when the phrase names no side of an object."""
    patterns = _patterns()
    split = patterns.beside.match(" ".join(phrase.lower().split()))
    if split is None or not set(phrase_words(split.group("x"))) - articles():
        return None  # "the left side of the table": a place, not an object
    anchor, found = _anchored(split.group("x"), split.group("y"), world, exclude=exclude, among=among)
    if anchor is None:
        return ObjectMatch(phrase=phrase, ids=tuple(found), rule="relation")
    side = patterns.side_of[" ".join(split.group("side").split())]
    axis, sign = {"left": (1, 1.0), "right": (1, -1.0), "far": (0, 1.0), "near": (0, -1.0)}[side]

    def offset(object_id: str) -> float:
        obj = world.object(object_id)
        if obj is None:
            return -math.inf
        along = sign * (obj.position[axis] - anchor.position[axis])
        across = abs(obj.position[1 - axis] - anchor.position[1 - axis])
        return along if along > across else -math.inf

    there = [i for i in found if offset(i) > TIE_M]
    return ObjectMatch(phrase=phrase, ids=_clearly_nearest(there, anchor, world), rule="relation")


_OF = re.compile(r"^(?P<x>.+?)\s+(?P<rel>of)\s+(?P<y>.+)$")


def _modifier_first(phrase: str) -> str | None:
    """ "the gauge on the boiler" -> "boiler gauge": the words after the relation first, as a modifier, when
    the relation named no object it holds; None when the phrase is not "X <relation> Y"."""
    patterns = _patterns()
    text = " ".join(phrase.lower().split())
    split = patterns.relation.match(text) or _OF.match(text)  # "the door of the living room": no relation of place
    if split is None or split.group("rel") not in patterns.modifier_relations:
        return None
    said = [[w for w in phrase_words(part) if w not in articles()] for part in (split.group("y"), split.group("x"))]
    if said[0] == said[1]:
        return None  # "the bowl in the bowl": nothing is on or in itself
    words = [w for part in said for w in part]
    return " ".join(words) if words else None


def _own_word(word: str, own: Collection[str], table: dict[str, str]) -> str:
    """A word as the objects here say it: their own word, a synonym's canonical word, or the singular of a
    plural that names one of them ("the lights" for a light switch, "all the gauges")."""
    if word in own:
        return word
    if word in table:
        return table[word]
    for ending in ("es", "s"):
        stem = word[: -len(ending)]
        if word.endswith(ending) and len(stem) > 2 and (stem in own or stem in table):
            return table.get(stem, stem) if stem not in own else stem
    return word


SIZE_MARGIN = 1.25
"""The largest match must be this many times the volume of the next to be "the big one" (else a tie)."""


_SPACE = r"\s+"


class _Patterns:
    """The lexicon's words for where an object is and what state it is in, compiled once per lexicon.

    Rules 5 to 10 read them: "the cube (that is) (sitting) on top of the plate", "the mug next to the bin",
    "the cube that is not red", "the second cube from the left", "the open drawer", "the block furthest to
    the left", "the cube closest to you".
    """

    def __init__(self, lexicon: Lexicon) -> None:
        which = alternatives(lexicon.relative_pronouns)
        linking, placed, sides = lexicon.linking_verbs, lexicon.placement_verbs, lexicon.sides
        near = "|".join(re.escape(r) for r in sorted(lexicon.nearness_relations, key=len, reverse=True))
        self.nearness = re.compile(
            rf"^(?P<x>.+?)\s+(?:(?:{which})\s+(?:{alternatives(linking.nearness)})\s+)?(?:{near or '(?!)'})\s+"
            r"(?:to\s+)?(?P<y>.+)$"
        )
        self.side_of = {w: side for side, words in lexicon.side_relations.items() for w in words}
        side = alternatives(sorted(self.side_of, key=len, reverse=True), space=_SPACE)
        self.beside = re.compile(
            rf"^(?P<x>.+?)\s+(?:(?:{which})\s+(?:{alternatives(linking.position)})\s+)?"
            rf"(?:(?:{alternatives(placed.position)})\s+)?(?P<side>{side or '(?!)'})\s+(?P<y>.+)$"
        )
        # 'the cube that is not red', 'the block which isn't green' (apostrophes are gone by now)
        self.negation = re.compile(
            rf"^(?P<x>.+?)\s+(?:{which})\s+(?:{alternatives(linking.negation)})(?:\s+not|n\s+t|nt)\s+(?P<neg>.+)$"
        )
        self.ordinal = (
            re.compile(
                rf"^(?:the\s+)?(?P<n>{alternatives(lexicon.ordinals)})\s+(?P<x>.+?)\s+from\s+"
                rf"(?:{alternatives(sides.ordinal_owners, after=_SPACE)})?(?P<side>left|right)$"
            )
            if lexicon.ordinals
            else None
        )
        # State words of an object phrase: an object whose open state the world gives is kept when it agrees.
        self.states = {word: state == "open" for state, words in lexicon.states.items() for word in words}
        self.part_of = re.compile(rf"(?:{alternatives(lexicon.part_owners, after=' ')})?(?P<part>\w+) of (?P<rest>.+)")
        self.robot = re.compile(f"(?:{alternatives(lexicon.robot_words)})")
        self.extremes = {word: side for side, words in lexicon.extremes.items() for word in words}
        extreme = "|".join(sorted(self.extremes, key=len, reverse=True))
        # 'the block (that is) (sitting) nearest the drawer': words between an object and where it is, dropped
        between = (
            rf"(?:(?:{which})\s+(?:{alternatives(linking.position)})\s+)?(?:(?:{alternatives(placed.position)})\s+)?"
        )
        anchors = lexicon.position_anchors
        self.positions = (
            re.compile(rf"^(?:the\s+)?(?P<sup>{extreme})\s+(?P<x>.+?)(?:\s+(?:{alternatives(anchors)})\s+(?P<y>.+))?$"),
            re.compile(rf"^(?P<x>.+?)\s+{between}(?P<sup>{extreme})$"),  # "the block furthest to the left"
            re.compile(
                rf"^(?P<x>.+?)\s+{between}(?P<sup>{extreme})\s+(?:{alternatives(anchors, after=_SPACE)})?(?P<y>.+)$"
            ),
            re.compile(
                rf"^(?P<x>.+?)\s+(?:{alternatives(sides.prepositions)})\s+"
                rf"(?:{alternatives(sides.owners, after=_SPACE)})?(?P<sup>left|right)"
                rf"(?:{alternatives(sides.nouns, before=_SPACE)})?$"
            ),
        )
        middle = alternatives(lexicon.middles)
        self.middle = (
            re.compile(rf"^(?:the\s+)?(?:{middle})\s+(?P<x>(?!of\b).+)$"),  # "the middle cube", not "the middle of"
            re.compile(rf"^(?P<x>.+?)\s+(?:in|at)\s+the\s+(?:{middle})$"),  # "the cube in the middle"
        )
        self.place_part = re.compile(rf"\b(?:{alternatives(lexicon.place_parts)})\b")
        relations = lexicon.relations
        self.relation = re.compile(
            rf"^(?P<x>.+?)\s+(?:(?:{which})\s+(?:{alternatives(linking.relation)})\s+)?"
            rf"(?:(?:{alternatives(placed.relation)})\s+)?"
            rf"(?P<rel>{alternatives(w for words in relations.values() for w in words)})\s+(?P<y>.+)$"
        )
        self.in_relations = frozenset(relations["in"])
        self.from_relations = frozenset(relations["from"])
        self.region_relations = self.in_relations | frozenset(lexicon.place_relations)
        self.modifier_relations = frozenset(lexicon.modifier_relations)


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


def _refined(
    phrase: str, world: WorldState, *, exclude: Collection[str], among: Collection[str] | None
) -> ObjectMatch | None:
    """Rules 7-9, read before the others: negation, ordinals by position, and sizes. None: not such a phrase."""
    lex = load_lexicon()
    patterns = _patterns()
    text = " ".join(phrase.lower().replace("-", " ").split())
    negated = patterns.negation.match(text)
    if negated is not None:  # rule 7: what the head names, less what the negated words name
        head = match_objects(negated.group("x"), world, exclude=exclude, among=among).ids
        unwanted = {synonyms().get(w, w) for w in phrase_words(negated.group("neg"))} - ignored_words()
        kept = tuple(i for i in head if (o := world.object(i)) is not None and not unwanted <= object_words(o))
        return ObjectMatch(phrase=phrase, ids=kept, rule="negation")
    if patterns.ordinal is not None:
        ordinal = patterns.ordinal.match(text)
        if ordinal is not None:  # rule 8: "the second cube from the left", in the robot's frame (y is left)
            rank = lex.ordinals.index(ordinal.group("n"))
            found = match_objects(ordinal.group("x"), world, exclude=exclude, among=among).ids
            sign = -1.0 if ordinal.group("side") == "left" else 1.0
            ranked = sorted(found, key=lambda i: sign * _y(world, i))
            if rank >= len(ranked):
                return ObjectMatch(phrase=phrase, ids=(), rule="ordinal")
            ties = [i for i in ranked if abs(_y(world, i) - _y(world, ranked[rank])) < TIE_M]
            return ObjectMatch(phrase=phrase, ids=tuple(sorted(ties)), rule="ordinal")
    words = text.split()
    state = next((w for w in words if w in patterns.states), None)
    if state is not None and len(words) > 1:  # rule 10: "the open drawer", "the closed one"
        rest = " ".join(w for w in words if w != state)
        found = match_objects(rest, world, exclude=exclude, among=among).ids
        open_wanted = patterns.states[state]
        kept = tuple(i for i in found if i in world.drawers and is_open(world, i) == open_wanted)
        return ObjectMatch(phrase=phrase, ids=kept, rule="words")
    size = next((kind for kind, said in lex.sizes.items() for w in words if w in said), None)
    if size is None:
        return None
    rest = " ".join(w for w in words if not any(w in said for said in lex.sizes.values()))
    if not rest:
        return ObjectMatch(phrase=phrase, ids=(), rule="size")
    match = match_objects(rest, world, exclude=exclude, among=among)
    # Every object the words describe, an id's namesake with the rest ("the big red cube": both red cubes).
    wanted = {synonyms().get(w, w) for w in phrase_words(rest)} - ignored_words() - articles()
    described = {o.id for o in world.objects if wanted and wanted <= object_words(o, container=False)}
    sized = sorted(set(match.ids) | {i for i in described if i not in exclude and (among is None or i in among)})
    if len(sized) < 2:
        return match  # one: the size word only describes it
    by_volume = sorted(sized, key=lambda i: _volume(world, i), reverse=(size == "large"))
    first, second = (_volume(world, i) for i in by_volume[:2])
    clear = first >= SIZE_MARGIN * second if size == "large" else second >= SIZE_MARGIN * first
    return ObjectMatch(phrase=phrase, ids=(by_volume[0],) if clear else tuple(sized), rule="size")


def is_open(world: WorldState, object_id: str) -> bool:
    return world.drawers.get(object_id, 0.0) >= DRAWER_OPEN_FRACTION


def _without_part(phrase: str) -> str | None:
    """ "the drawer handle" or "the top of the bowl" -> "the drawer", "the bowl": a part word said of words
    that name something else; else None."""
    of = _patterns().part_of.fullmatch(phrase)
    if of is not None and of.group("part") in load_lexicon().parts:
        return of.group("rest")
    words = phrase.split()
    if len(words) < 2 or words[-1] not in load_lexicon().parts:
        return None
    rest = " ".join(words[:-1])
    return rest if set(phrase_words(rest)) - ignored_words() - articles() else None


def _y(world: WorldState, object_id: str) -> float:
    found = world.object(object_id)
    return float(found.position[1]) if found is not None else 0.0


def _volume(world: WorldState, object_id: str) -> float:
    found = world.object(object_id)
    return math.prod(found.size) if found is not None else 0.0


TIE_M = 0.01
"""Two objects whose positions differ by less than this (metres) along the asked direction are a tie."""


def _by_position(
    phrase: str, world: WorldState, *, exclude: Collection[str], among: Collection[str] | None
) -> tuple[str, ...] | None:
    """Rule 6: the object an extreme position picks out ("the leftmost cube"), ties both; None if not one."""
    text = " ".join(phrase.lower().replace("-", " ").split())  # "left-hand" as "left hand"
    patterns = _patterns()
    middle = next((m for pattern in patterns.middle if (m := pattern.match(text)) is not None), None)
    if middle is not None:
        return _in_the_middle(match_objects(middle.group("x"), world, exclude=exclude, among=among).ids, world)
    for pattern in patterns.positions:
        found = pattern.match(text)
        if found is not None:
            break
    else:
        return None
    sup = patterns.extremes.get(found.group("sup"), found.group("sup"))
    if patterns.place_part.search(found.group("x")):
        return None  # "the left of the plate", "the right side of the table": a place, not an object
    said = set(found.group("x").split()) - set(load_lexicon().stop_words)
    if any(looks_plural(word) for word in said):
        return None  # "the cubes on the left", "the cubes left": several, never the one furthest that way
    candidates = match_objects(found.group("x"), world, exclude=exclude, among=among).ids
    objects = {o.id: o for o in world.objects}
    anchor = (0.0, 0.0)  # the robot's base
    y = found.groupdict().get("y")
    if y and not patterns.robot.fullmatch(y):
        named = match_objects(y, world).ids
        if len(named) != 1:
            return None
        anchor = objects[named[0]].position[:2]
        candidates = tuple(i for i in candidates if i != named[0])
    if not candidates:
        return None

    def score(object_id: str) -> float:
        x, yy = float(objects[object_id].position[0]), float(objects[object_id].position[1])
        if sup in ("left", "right"):
            return yy if sup == "left" else -yy
        distance = math.hypot(x - anchor[0], yy - anchor[1])
        return -distance if sup == "near" else distance

    best = max(score(i) for i in candidates)
    return tuple(i for i in candidates if best - score(i) < TIE_M)


def _in_the_middle(candidates: Sequence[str], world: WorldState) -> tuple[str, ...] | None:
    """ "the middle cube": of an odd number of them, three or more, the one with as many to its left as to its
    right (y in the robot's frame); all of them (an ambiguity) when there is no such one or a neighbour is within
    TIE_M of it; None when the words name nothing."""
    if not candidates:
        return None
    ranked = sorted(candidates, key=lambda i: _y(world, i))
    half = len(ranked) // 2
    if len(ranked) < 3 or len(ranked) % 2 == 0:
        return tuple(candidates)
    if min(abs(_y(world, ranked[half]) - _y(world, ranked[k])) for k in (half - 1, half + 1)) < TIE_M:
        return tuple(candidates)
    return (ranked[half],)


def _related(
    phrase: str, world: WorldState, *, exclude: Collection[str], among: Collection[str] | None
) -> tuple[str, ...] | None:
    """Rule 5: the ids a relational phrase names ("the cube on the plate"), or None when it is not one.

    The second part must name exactly one object; the first part is matched by rules 1-5 and kept where
    the relation holds in ``world``.
    """
    placed = _in_region(phrase, world, exclude=exclude, among=among)
    if placed is not None:
        return placed
    parts = _relation_parts(phrase, world, exclude=exclude, among=among)
    if parts is None:
        return None
    rel, where, candidates = parts
    objects = {o.id: o for o in world.objects}
    patterns = _patterns()
    on_table = rel in patterns.from_relations and objects[where].category == "table"

    def holds(obj: ObjectState) -> bool:
        if rel in patterns.in_relations:
            return obj.inside == where
        if rel in patterns.from_relations:
            return where in (obj.inside, obj.supported_by)
        return obj.supported_by == where

    kept = tuple(i for i in candidates if i != where and holds(objects[i]))
    if on_table and not kept:  # "from the table": everything stands on it in the end, so it filters nothing
        return candidates or None
    return kept or None


def _in_region(
    phrase: str, world: WorldState, *, exclude: Collection[str], among: Collection[str] | None
) -> tuple[str, ...] | None:
    """ "the gauge in the boiler room": what the first part names inside the region the second part names
    by all its words (x and y within its bounds); None when the second part names no region."""
    patterns = _patterns()
    split = patterns.relation.match(" ".join(phrase.lower().split()))
    if split is None or split.group("rel") not in patterns.region_relations:
        return None
    words = set(phrase_words(split.group("y"))) - articles() - ignored_words()
    named = [bounds for name, bounds in world.regions.items() if words and set(phrase_words(name)) == words]
    if not named:  # "the gauge in the corridor": the one region whose name holds the words said
        named = [bounds for name, bounds in world.regions.items() if words and words < set(phrase_words(name))]
    if len(named) != 1:
        return None
    low, high = named[0]
    found = match_objects(split.group("x"), world, exclude=exclude, among=among).ids
    inside = []
    for object_id in found:
        obj = world.object(object_id)
        if obj is not None and all(low[k] <= obj.position[k] <= high[k] for k in (0, 1)):
            inside.append(object_id)
    return tuple(inside) or None


def _linked_head(words: Sequence[str], wanted: set[str], pool: Sequence[ObjectState]) -> set[str] | None:
    """``wanted`` with its head noun read as a category present (``category_link``), or None.

    Only when the head noun (the last word that is not ignored) is the one word no object has, and
    the lexicon does not know it: a colour or category it knows must match as said, never be swapped.
    """
    ignored = ignored_words()
    head = next((w for w in reversed(words) if w not in ignored and w not in articles()), None)
    known = frozenset().union(*(object_words(o) for o in pool)) if pool else frozenset()
    unknown = [w for w in wanted if w not in known]
    lexicon = load_lexicon()
    if head is None or unknown != [head] or head in lexicon.colour_words() or head in lexicon.category_words():
        return None  # a word the lexicon knows names what it names: absent here means absent
    from bt_executive.llm.grounding.category_link import link_category

    category = link_category(head, [o.category for o in pool])
    return None if category is None else (wanted - {head}) | {category}


def _relation_parts(
    phrase: str, world: WorldState, *, exclude: Collection[str] = (), among: Collection[str] | None = None
) -> tuple[str, str, tuple[str, ...]] | None:
    """A relational phrase as (relation word, the one object it is relative to, what its first part matches)."""
    split = _patterns().relation.match(" ".join(phrase.lower().split()))
    if split is None:
        return None
    anchor = match_objects(split.group("y"), world).ids
    if len(anchor) != 1:
        return None
    return split.group("rel"), anchor[0], match_objects(split.group("x"), world, exclude=exclude, among=among).ids


def names_by_relation(phrase: str) -> bool:
    """Whether a phrase names an object by what it is on, in or taken from ("a mug from the counter")."""
    return _patterns().relation.match(" ".join(phrase.lower().split())) is not None


def _relation_miss(phrase: str, world: WorldState) -> str:
    """Why a relational phrase matched nothing ("red_cube is not in bowl"), or '' when it is not one."""
    parts = _relation_parts(phrase, world)
    if parts is None:
        return ""
    rel, anchor, candidates = parts
    named = [i for i in candidates if i != anchor]
    if not named:
        return ""
    patterns = _patterns()
    where = "in" if rel in patterns.in_relations else "in or on" if rel in patterns.from_relations else "on"
    return f"{', '.join(named)} {'is' if len(named) == 1 else 'are'} not {where} {anchor}"


def resolve_object(
    phrase: str, world: WorldState, *, exclude: Collection[str] = (), among: Collection[str] | None = None
) -> ObjectMatch:
    """The one object ``phrase`` names; UnknownObject or AmbiguousObject (with the candidates) otherwise."""
    match = match_objects(phrase, world, exclude=exclude, among=among)
    if not match.ids:
        if exclude and match_objects(phrase, world, among=among).ids:
            raise RuledOutObject(phrase, sorted(exclude))
        known = sorted(o.id for o in world.objects if o.id not in exclude and (among is None or o.id in among))
        raise UnknownObject(phrase, known, sorted(exclude), why=_relation_miss(phrase, world))
    if len(match.ids) > 1:
        raise AmbiguousObject(phrase, match.ids)
    return match


def resolve_all(
    phrase: str, world: WorldState, *, exclude: Collection[str] = (), among: Collection[str] | None = None
) -> tuple[str, ...]:
    """Every object a quantified phrase ("all the cubes") matches, in id order; refused when none does."""
    match = match_objects(phrase, world, exclude=exclude, among=among)
    if not match.ids:
        known = sorted(o.id for o in world.objects if o.id not in exclude and (among is None or o.id in among))
        raise UnknownObject(phrase, known, sorted(exclude))
    return match.ids

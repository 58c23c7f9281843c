"""Skill choice: which of the robot's skills a clause asks for, read from the manifests, never from code.

A clause gives a verb and what it acts on; the manifests say which skills do
that verb (``actions`` through the lexicon's ``actions`` words, or a phrase
of their own under ``language.phrases``), on which objects (``objects``, and
the affordances their preconditions name) and with which parameter taking
the thing acted on or the place (``language.roles``)::

    "open the front door"     verb OPEN     referent front_door (a door)
      doors/open_door        objects [door, handle]      fits: its category is named    (2)
      storage/open_cabinet   objects [cabinet, fridge]   no
      tabletop/open_drawer   objects [drawer, cabinet]   no (and openable(drawer) fails)
    -> doors/open_door(door=front_door)

The most specific fit wins: a skill that names the object's category (2)
beats one that takes any object (1); a region fits a skill with a ``place``
parameter (2). No fit is a refusal naming the skills that do the verb; a tie
at the top is a refusal (``ambiguous``) naming the tied skills, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from bt_executive.llm.grounding.object_matching import UnknownObject, match_objects
from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.noun_phrases import phrase_words
from bt_executive.llm.plan import PlannerRefused, RefusalKind
from bt_executive.skills.affordances import AFFORDANCE_NAMES
from bt_executive.skills.manifest import ActionVerb, Role, SkillManifest
from bt_executive.skills.predicates import parse_predicate
from bt_executive.skills.world_state import WorldState

NAMED = 2
"""Score of a skill whose ``objects`` name the referent's category (or that takes a place, for a region)."""
ANY_OBJECT = 1
"""Score of a skill whose ``objects`` name only a generic word ("object", "item"): it takes anything."""


@dataclass(frozen=True)
class Referent:
    """What a clause acts on: an object id, or a named region of the world (a room, a bay); a list of
    regions ("patrol the boiler room and the pump house") keeps the rest in ``more``."""

    id: str
    region: bool = False
    more: tuple[str, ...] = ()

    def ids(self) -> list[str]:
        """Every id it names, in the order said."""
        return [self.id, *self.more]


@dataclass(frozen=True)
class Fit:
    """One skill that can serve the clause, the parameter the referent fills, and how specifically."""

    manifest: SkillManifest
    param: str | None
    score: int


def candidates(
    skills: Iterable[SkillManifest], verb: str | None, actions: Collection[ActionVerb]
) -> list[SkillManifest]:
    """The skills a verb asks for: those that list the verb phrase as their own, else those with the actions."""
    pool = list(skills)
    if verb is not None:
        own = [m for m in pool if verb in m.phrases()]
        if own:
            return own
    return [m for m in pool if set(m.actions) & set(actions)]


def actions_of(verb: str, lexicon: Lexicon | None = None) -> frozenset[ActionVerb]:
    """The closed actions a verb phrase means, by the lexicon's ``actions`` words."""
    lex = lexicon or load_lexicon()
    return frozenset(action for phrase, action in lex.action_phrases() if phrase == verb)


def referent_param(manifest: SkillManifest, *, region: bool) -> str | None:
    """The parameter that takes the thing acted on (or the place, for a region); None when it takes none."""
    roles = manifest.roles()
    wanted = Role.PLACE if region else Role.OBJECT
    stated = [p for p, role in roles.items() if role is wanted]
    if stated or region:
        return stated[0] if stated else None
    for param in manifest.parameter_names():  # no stated object role: its first plain string parameter
        schema = manifest.parameter_schema(param)
        if param not in roles and schema.get("type") == "string" and "enum" not in schema:
            return param
    return None


def affordance_needs(manifest: SkillManifest, param: str) -> frozenset[str]:
    """The affordances the skill's preconditions ask of ``param`` (``openable(drawer)`` -> openable)."""
    needs = set()
    for text in manifest.preconditions:
        atom = parse_predicate(text)
        if atom.name in AFFORDANCE_NAMES and not atom.negated and atom.args == (param,):
            needs.add(atom.name)
    return frozenset(needs)


def _canonical(words: Iterable[str], lex: Lexicon) -> frozenset[str]:
    """Each word, its synonym's canonical word and its singular (cached with the lexicon)."""
    key = tuple(words)
    found = lex.canonical_words.get(key)
    if found is None:
        table = lex.synonym_table
        found = frozenset(
            form
            for word in key
            for part in phrase_words(word)
            for form in (part, table.get(part, part), part.rstrip("s"))
        )
        lex.canonical_words[key] = found
    return found


def fit(
    manifest: SkillManifest, referent: Referent | None, world: WorldState, lexicon: Lexicon | None = None
) -> Fit | None:
    """How well ``manifest`` serves a clause about ``referent``; None when it does not."""
    lex = lexicon or load_lexicon()
    if referent is None:  # "undock", "take a photo": a skill that needs nothing named
        named = {referent_param(manifest, region=False), referent_param(manifest, region=True)}
        return None if named & set(_required(manifest)) else Fit(manifest, None, NAMED)
    param = referent_param(manifest, region=referent.region)
    if param is None:
        return None
    takes = _canonical(manifest.objects, lex)
    if referent.region:  # a skill for places (navigate_to) before one that also passes through one (vacuum)
        single = manifest.parameter_schema(param).get("type") == "string"
        if referent.more:  # several places: one call of a skill that takes a list of them, else one call each
            return Fit(manifest, param, NAMED) if not single else None
        return Fit(manifest, param, NAMED if single and takes & set(lex.places) else ANY_OBJECT)
    obj = world.object(referent.id)
    if obj is None or any(not obj.affords(need) for need in affordance_needs(manifest, param)):
        return None
    if names_category(manifest, obj.category, lex):
        return Fit(manifest, param, NAMED)
    if takes & set(lex.ignored):  # "object", "item": a skill for anything
        return Fit(manifest, param, ANY_OBJECT)
    return None


def names_category(manifest: SkillManifest, category: str, lexicon: Lexicon | None = None) -> bool:
    """Whether the skill's ``objects`` name this category (after the lexicon's synonyms), by what it is: the last
    word of each ("dish_pit" is a pit, which a skill for dishes does not name; "plate reader" names a reader)."""
    lex = lexicon or load_lexicon()
    heads = [words[-1] for entry in manifest.objects if (words := phrase_words(entry))]
    kind = phrase_words(category)
    return bool(kind) and bool(_canonical(kind[-1:], lex) & _canonical(heads, lex))


def same_kind(first: str, second: str, lexicon: Lexicon | None = None) -> bool:
    """Whether two categories share a word after the lexicon's synonyms ("counter" and "table")."""
    lex = lexicon or load_lexicon()
    return bool(_canonical([first], lex) & _canonical([second], lex))


def _required(manifest: SkillManifest) -> tuple[str, ...]:
    required = (manifest.parameters or {}).get("required", ())
    return tuple(required) if isinstance(required, list | tuple) else ()


def choose(
    skills: Sequence[SkillManifest],
    referent: Referent | None,
    world: WorldState,
    *,
    doing: str,
    actions: Collection[ActionVerb] = (),
) -> Fit:
    """The one most specific skill for the referent; a refusal naming the candidates when none or a tie.

    A skill that takes any object serves a verb only when that verb is its main action (its first):
    tap lists INSPECT second, so "read the gauge" is not a tap."""
    fits = [
        f
        for m in skills
        if (f := fit(m, referent, world)) is not None
        and (f.score > ANY_OBJECT or not actions or m.actions[0] in actions or doing in m.phrases())
    ]
    what = _describe(referent, world)
    if not fits:
        ids = [m.id for m in skills]
        lacking = _lacking(skills, referent, world)
        if lacking:
            raise PlannerRefused(
                f"{what} is not {' or '.join(lacking)}, which every skill that can {doing} needs ({', '.join(ids)})",
                RefusalKind.NOT_AFFORDED,
                candidates=ids,
            )
        nearest = f"; skills that {doing}: {', '.join(ids)}" if ids else ""
        raise PlannerRefused(
            f"no skill of this robot can {doing} {what}{nearest}", RefusalKind.MISSING_SKILL, candidates=ids
        )
    best = max(f.score for f in fits)
    top = [f for f in fits if f.score == best]
    if len(top) > 1:
        ids = [f.manifest.id for f in top]
        raise PlannerRefused(
            f"to {doing} {what}, {' and '.join(ids)} fit equally: say which", RefusalKind.AMBIGUOUS, candidates=ids
        )
    return top[0]


def _lacking(skills: Sequence[SkillManifest], referent: Referent | None, world: WorldState) -> list[str]:
    """The affordances the referent lacks when that, and nothing else, keeps every skill of the verb from it
    ("open the bowl": open_drawer needs openable); empty when some skill wants another kind of thing ("open
    the fridge" with only open_drawer: the fridge opens, but no skill here opens fridges)."""
    obj = world.object(referent.id) if referent is not None and not referent.region else None
    if obj is None or not skills:
        return []
    lacking: set[str] = set()
    for manifest in skills:
        param = referent_param(manifest, region=False)
        missing = {n for n in affordance_needs(manifest, param) if not obj.affords(n)} if param is not None else set()
        if not missing:
            return []
        lacking |= missing
    return sorted(lacking)


def _describe(referent: Referent | None, world: WorldState) -> str:
    if referent is None:
        return "that"
    if referent.region:
        return f"the place {referent.id}"
    obj = world.object(referent.id)
    return f"{referent.id} (a {obj.category.replace('_', ' ')})" if obj is not None else referent.id


def region_named(phrase: str, world: WorldState, lexicon: Lexicon | None = None, *, partly: bool = False) -> str | None:
    """The region a phrase names by all its words ("the living room" -> living_room), if any; ``partly``:
    also the one region whose name holds every word of the phrase ("the corridor" -> corridor_b)."""
    lex = lexicon or load_lexicon()
    words = _place_words(phrase, lex)
    if not words:
        return None
    named = [name for name in world.regions if set(phrase_words(name)) == words]
    if not named and partly:
        named = regions_partly_named(phrase, world, lex)
    if not named:
        return region_holding(phrase, world, lex)
    return named[0] if len(named) == 1 else None


def regions_partly_named(phrase: str, world: WorldState, lexicon: Lexicon | None = None) -> list[str]:
    """Every region whose name holds all the phrase's words and more ("the room": boiler_room, control_room)."""
    words = _place_words(phrase, lexicon or load_lexicon())
    return [name for name in world.regions if words and words < set(phrase_words(name))]


def _place_words(phrase: str, lexicon: Lexicon) -> set[str]:
    """The words of a place phrase that name it; a number word after a word is its digits ("aisle one": aisle 1)."""
    said = phrase_words(phrase)
    articles = {"the", "a", "an"}
    read = [
        str(lexicon.number_words[w]) if w in lexicon.number_words and n and said[n - 1] not in articles else w
        for n, w in enumerate(said)
    ]
    return set(read) - set(lexicon.ignored) - articles


def _holding(lexicon: Lexicon) -> re.Pattern[str]:
    """ "the room with the fridge", "the room where the gauge is" (``place_words`` in the lexicon)."""
    return _holding_pattern(tuple(lexicon.place_words.holding_relations), tuple(lexicon.place_words.holding_tails))


@cache
def _holding_pattern(relation_words: tuple[str, ...], tail_words: tuple[str, ...]) -> re.Pattern[str]:
    relations = alternatives(relation_words)
    tails = alternatives(tail_words)
    return re.compile(rf"^(?:the\s+)?(?P<place>\w+)\s+(?:{relations})\s+(?P<what>.+?)(?:\s+(?:{tails}))?$")


def region_holding(phrase: str, world: WorldState, lexicon: Lexicon) -> str | None:
    """The region a phrase names by what stands in it ("the room with the fridge", "the room where the red
    gauge is"): the one region holding everything the object phrase names (x and y within its bounds).
    UnknownObject when that phrase names nothing here; None when the phrase is not of this form."""
    found = _holding(lexicon).match(" ".join(phrase.lower().split()))
    if found is None or found.group("place") not in lexicon.places or not world.regions:
        return None
    ids = match_objects(found.group("what"), world).ids
    if not ids:
        raise UnknownObject(found.group("what"), world.ids())
    holding = {
        name
        for object_id in ids
        if (obj := world.object(object_id)) is not None
        for name, (low, high) in world.regions.items()
        if all(low[k] <= obj.position[k] <= high[k] for k in (0, 1))
    }
    return next(iter(holding)) if len(holding) == 1 else None


def every_region(phrase: str, world: WorldState, lexicon: Lexicon) -> list[str] | None:
    """Every region, in the world's order, for "every room", "all the rooms", "the rooms"; None otherwise."""
    words = [w for w in phrase_words(phrase) if w not in ("the", "of")]
    if not words or len(world.regions) < 2:
        return None
    head, rest = words[-1], set(words[:-1])
    plural = head.endswith("s") and head[:-1] in lexicon.places
    quantifiers = {w for q in lexicon.quantifiers for w in q.split()}
    if (head in lexicon.places and rest and rest <= quantifiers) or (plural and rest <= quantifiers):
        return list(world.regions)
    return None


def regions_listed(phrase: str, world: WorldState, lexicon: Lexicon | None = None) -> list[str] | None:
    """The regions a list names, in order ("the kitchen, the hallway and the living room"), when every
    part of it names one; None otherwise."""
    parts = [p for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s+then\s+", phrase) if p.strip()]
    if len(parts) < 2:
        return every_region(phrase, world, lexicon or load_lexicon())
    found = [region_named(part, world, lexicon) for part in parts]
    return [r for r in found if r is not None] if all(found) else None

"""Object matching: the user's words for an object resolved to one world-state id.

Planners must never invent ids, so a phrase is matched only against the
objects in the current world state, by the first rule that finds anything:

1. exact: the phrase is an id ("red cube" or "red_cube" -> ``red_cube``);
2. substring: the phrase starts a word of an id ("red" -> ``red_cube``);
3. words: every word of the phrase is among the object's words - its id's
   words, its colour, its category and the container it is in - after a few
   synonyms ("green plate" -> ``plate``, "red block" -> ``red_cube``,
   "cabinet drawer" -> ``drawer``).

A rule that finds more than one object is an ambiguity, reported with every
candidate rather than settled by a guess; no match at all names the objects
there are. Ids a replan has ruled out (not found, unreachable) are passed as
``exclude`` and never chosen.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from bt_executive.llm.plan import PlannerError
from bt_executive.skills.world_state import ObjectState, WorldState

MatchRule = Literal["exact", "substring", "words"]

SYNONYMS: dict[str, str] = {
    "block": "cube",
    "brick": "cube",
    "box": "cube",
    "dish": "plate",
    "saucer": "plate",
    "cupboard": "cabinet",
    "gray": "grey",
}
"""Words users say for the categories and colours the world states name."""

ARTICLES = frozenset({"the", "a", "an", "this", "that"})
"""Leading words that only point at an object, dropped before any rule."""

IGNORED_WORDS = frozenset(
    {"the", "a", "an", "one", "thing", "object", "item", "small", "big", "little", "large", "tiny"}
)
"""Words that name no property an object has here, dropped before matching by words."""


class ObjectMatchError(PlannerError):
    """A phrase could not be resolved to exactly one world-state id."""

    def __init__(self, phrase: str, message: str) -> None:
        self.phrase = phrase
        super().__init__(message)


class UnknownObject(ObjectMatchError):
    """No object in the world state matches the phrase."""

    def __init__(self, phrase: str, known: Iterable[str], excluded: Iterable[str] = ()) -> None:
        self.known = tuple(known)
        self.excluded = tuple(excluded)
        ruled_out = f" (ruled out after failed attempts: {', '.join(self.excluded)})" if self.excluded else ""
        super().__init__(
            phrase, f"no object matches {phrase!r}{ruled_out}; objects in the world: {', '.join(self.known) or 'none'}"
        )


class AmbiguousObject(ObjectMatchError):
    """More than one object matches the phrase equally well."""

    def __init__(self, phrase: str, candidates: Iterable[str]) -> None:
        self.candidates = tuple(candidates)
        super().__init__(
            phrase,
            f"{phrase!r} is ambiguous: it matches {', '.join(self.candidates)}; name one of them",
        )


class ObjectMatch(BaseModel):
    """The objects a phrase matches (best rule only), and the rule that found them."""

    model_config = ConfigDict(frozen=True)

    phrase: str
    ids: tuple[str, ...]
    rule: MatchRule | None = None


def phrase_words(phrase: str) -> tuple[str, ...]:
    """The words of a phrase or an id, lower case, split at spaces, underscores and hyphens."""
    return tuple(w for w in re.split(r"[\s_\-]+", phrase.lower()) if w)


def object_words(obj: ObjectState) -> frozenset[str]:
    """Every word that can name ``obj``: its id's words, colour, category, and its container's words."""
    words = set(phrase_words(obj.id))
    words.update(phrase_words(obj.colour))
    words.update(phrase_words(obj.category))
    if obj.inside:
        words.update(phrase_words(obj.inside))
    return frozenset(words)


def match_objects(
    phrase: str, world: WorldState, *, exclude: Collection[str] = (), among: Collection[str] | None = None
) -> ObjectMatch:
    """The ids ``phrase`` matches by the first rule that matches any, sorted; empty when none does."""
    pool = sorted(
        (o for o in world.objects if o.id not in exclude and (among is None or o.id in among)), key=lambda o: o.id
    )
    words = phrase_words(phrase)
    while words and words[0] in ARTICLES:
        words = words[1:]
    as_id = "_".join(words)
    exact = [o.id for o in pool if o.id == as_id]
    if exact:
        return ObjectMatch(phrase=phrase, ids=tuple(exact), rule="exact")
    if as_id:
        starts_word = re.compile(rf"(?:^|_){re.escape(as_id)}")
        substring = [o.id for o in pool if starts_word.search(o.id)]
        if substring:
            return ObjectMatch(phrase=phrase, ids=tuple(substring), rule="substring")
    wanted = {SYNONYMS.get(w, w) for w in words} - IGNORED_WORDS
    if wanted:
        by_words = [o.id for o in pool if wanted <= object_words(o)]
        if by_words:
            return ObjectMatch(phrase=phrase, ids=tuple(by_words), rule="words")
    return ObjectMatch(phrase=phrase, ids=())


def resolve_object(
    phrase: str, world: WorldState, *, exclude: Collection[str] = (), among: Collection[str] | None = None
) -> ObjectMatch:
    """The one object ``phrase`` names; UnknownObject or AmbiguousObject (with the candidates) otherwise."""
    match = match_objects(phrase, world, exclude=exclude, among=among)
    if not match.ids:
        known = sorted(o.id for o in world.objects if o.id not in exclude and (among is None or o.id in among))
        raise UnknownObject(phrase, known, sorted(exclude))
    if len(match.ids) > 1:
        raise AmbiguousObject(phrase, match.ids)
    return match

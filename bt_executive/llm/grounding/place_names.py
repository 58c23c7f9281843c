"""Place names: the other names people give a room, said as this world's region.

A world names its regions by id (``living_room``, ``hallway``); people call the
same rooms "the lounge", "the front room", "the hall". The lexicon's
``place_names`` lists, for a place's name in words, the other names of the
same place. Where this world has a region of that name, and nothing of its
own (object, region or drawer) is called by the other name, the other name is
read as the region's::

    "put the front room light off"   (world: living_room, s1 in it)
      -> "put the living room light off"

Only names of one and the same place are listed, so no request moves to a
room it did not name; a world with a region or object of its own called
"hall" keeps "hall" for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bt_executive.llm.grounding.object_matching import object_words
from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.noun_phrases import phrase_words
from bt_executive.skills.world_state import WorldState


@dataclass(frozen=True)
class NamedPlaces:
    """``text`` with other names of this world's regions said by the region's name; ``notes`` says which."""

    text: str
    notes: tuple[str, ...] = ()


def named_places(text: str, world: WorldState) -> NamedPlaces:
    """``text`` with each other name of a region of ``world`` replaced by the region's name."""
    table = load_lexicon().place_names
    if not table or not world.regions:
        return NamedPlaces(text)
    names = [frozenset(object_words(o)) for o in world.objects]
    names += [frozenset(phrase_words(n)) for n in (*world.regions, *world.drawers)]
    notes: list[str] = []
    for name, others in table.items():
        words = set(name.split())
        region = next((r for r in world.regions if set(phrase_words(r)) == words), None)
        if region is None:
            continue
        said = " ".join(phrase_words(region))
        for other in sorted(others, key=lambda o: -len(o.split())):
            if any(set(other.split()) <= own for own in names):
                continue  # something here is called that: it keeps the name
            pattern = re.compile(rf"(?<![a-z0-9_]){re.escape(other)}(?![a-z0-9_])", re.IGNORECASE)
            if pattern.search(text):
                text = pattern.sub(said, text)
                notes.append(f"{other!r} is the {said}")
    return NamedPlaces(text, tuple(notes))

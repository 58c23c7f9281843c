"""Task objects: the world-state ids a task names, a lever that narrows what a small model may pick.

An object is named when the words of its id appear together, in order, in
the task (after object matching's synonyms): "put the red block on the green
plate" names ``red_cube`` and ``plate`` (not ``green_cube``); "go home" names
none. With the ``task_objects``
lever the palette offers only the named ids as object arguments (when the
task names any), so a grammar-constrained model cannot pick the blue cube
for "the red cube". A task that names nothing leaves every id available.
"""

from __future__ import annotations

import re

from bt_executive.llm.grounding.object_matching import synonyms
from bt_executive.llm.language.noun_phrases import phrase_words
from bt_executive.skills.world_state import WorldState


def task_words(task: str) -> tuple[str, ...]:
    """The task's words in order, lower case, with synonyms mapped (block -> cube, dish -> plate, ...)."""
    words = phrase_words(re.sub(r"[^\w\s-]", " ", task))
    table = synonyms()
    return tuple(table.get(w, w) for w in words)


def _contains(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    return any(words[i : i + len(part)] == part for i in range(len(words) - len(part) + 1))


def named_ids(task: str, world_state: WorldState) -> tuple[str, ...]:
    """The object and drawer ids the task names (their words together, in order), sorted."""
    words = task_words(task)
    ids = {*world_state.ids(), *world_state.drawers}
    return tuple(sorted(i for i in ids if phrase_words(i) and _contains(words, phrase_words(i))))

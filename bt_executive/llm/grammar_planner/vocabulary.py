"""The words a robot knows, for typo correction: what is read as a typo, and what a typo may never become.

One list for the grammar planner's second reading of a task and for the model path's reading of it
(``llm/model/task_reading``), so both correct the same words the same way.
"""

from __future__ import annotations

from bt_executive.llm.grounding.object_matching import object_words
from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.noun_phrases import phrase_words
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState


def known_words(world: WorldState, registry: SkillRegistry) -> frozenset[str]:
    """Every word this robot knows: the lexicon's, its world's objects, drawers and regions, its skills' words."""
    known = set(load_lexicon().words())
    for obj in world.objects:
        known.update(object_words(obj))
    for name in (*world.regions, *world.drawers):
        known.update(phrase_words(name))
    for manifest in registry:
        known.update(w for phrase in manifest.phrases() for w in phrase.split())
        known.update(w for keyword in manifest.objects for w in phrase_words(keyword))
    return frozenset(known)


def protected_words(world: WorldState) -> frozenset[str]:
    """Colour and category words (the lexicon's and the world's): a typo is never corrected into another."""
    lex = load_lexicon()
    words = set(lex.colour_words() | lex.category_words())
    for obj in world.objects:
        words.update(phrase_words(obj.colour) + phrase_words(obj.category))
    return frozenset(words)


def robot_verbs(registry: SkillRegistry) -> list[str]:
    """The verbs this robot's skills are asked with (each action's first lexicon phrase, each skill's own)."""
    lex = load_lexicon()
    verbs: dict[str, None] = {}
    for manifest in registry:
        for action in manifest.actions:
            verbs.update(dict.fromkeys(lex.actions.get(action, [])[:1]))
        verbs.update(dict.fromkeys(manifest.phrases()))
    return sorted(verbs)

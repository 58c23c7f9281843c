"""The verb lexicon: which task words mean which action verb of the closed ``ActionVerb`` enum.

The router's cheapest link reads the verbs of a task ("grab", "shut",
"drive to") and prefers skills that declare a matching action. Words are
compared after ``bm25.stem``, so inflections ("grabbing", "shuts") match.
A word may mean several verbs ("move": transfer, pick-and-place or
navigate): the lexicon only prefers, it never excludes a skill.
"""

from __future__ import annotations

from bt_executive.llm.language.tokens import stem, tokenize
from bt_executive.skills.manifest import ActionVerb

V = ActionVerb

_WORDS_TEXT: dict[ActionVerb, str] = {
    V.PICK: "pick grab take lift fetch get collect retrieve raise",
    V.PLACE: "place put set lay deposit drop rest position stack onto",
    V.PICK_AND_PLACE: "move put relocate tidy sort stack load unload arrange clear",
    V.TRANSFER: "transfer hand bring deliver carry give pass handover receive",
    V.GRASP: "grasp grip hold clutch grab seize",
    V.RELEASE: "release drop let ungrasp loosen",
    V.OPEN: "open unlatch unlock unseal uncap unscrew",
    V.CLOSE: "close shut seal latch lock cap",
    V.PUSH: "push shove nudge press poke bump tap touch",
    V.PULL: "pull drag yank tug draw",
    V.SLIDE: "slide glide shift",
    V.INSERT: "insert plug slot mount fit socket",
    V.POUR: "pour empty decant fill tip dispense water",
    V.WIPE: "wipe clean scrub mop dust wash polish sweep spill",
    V.ROTATE: "rotate turn twist spin flip screw dial knob",
    V.REACH: "reach home pose point touch tap retract stow ready",
    V.NAVIGATE: "navigate go drive walk travel head return dock patrol visit follow come room elevator",
    V.WAVE: "wave greet hello goodbye bye salute",
    V.SHAKE: "shake stir mix agitate rattle",
    V.INSPECT: (
        "inspect check look examine scan see find search verify detect count photograph photo picture read "
        "monitor survey identify locate where"
    ),
    V.GENERALIST: "",
}
VERB_WORDS: dict[ActionVerb, tuple[str, ...]] = {verb: tuple(text.split()) for verb, text in _WORDS_TEXT.items()}
"""Task words per verb (before stemming)."""

_BY_STEM: dict[str, frozenset[ActionVerb]] = {}
for _verb, _words in VERB_WORDS.items():
    for _word in (*_words, _verb.value.lower().replace("_", " ")):
        for _part in _word.split():
            _key = stem(_part)
            _BY_STEM[_key] = _BY_STEM.get(_key, frozenset()) | {_verb}


def verbs_in(text: str) -> frozenset[ActionVerb]:
    """The action verbs a task's words name (empty when it names none the lexicon knows)."""
    found: set[ActionVerb] = set()
    for token in tokenize(text):
        found |= _BY_STEM.get(token, frozenset())
    return frozenset(found)

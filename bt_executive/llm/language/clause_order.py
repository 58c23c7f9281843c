"""Clause order: "before"/"after"/"once" sentences rewritten into the order the robot acts in.

::

    "after opening the drawer, put the blue cube in it"      -> "open the drawer, then put the blue cube in it"
    "before going home, put the red cube on the plate"       -> "put the red cube on the plate, then go home"
    "put the red cube on the plate after you put the blue
     cube in the bowl"                                       -> "put the blue cube in the bowl, then put ..."
    "once you have opened the drawer, put the cube in it"    -> "open the drawer, then put the cube in it"
    "tidy up by putting all the cubes in the bowl"           -> "put all the cubes in the bowl"

The clause that was subordinate starts with a gerund ("opening") or a past
participle ("opened"); it is turned back into the verb the lexicon knows
("open"), made from the lexicon's own verb words, so a verb added there is
understood here too. A sentence with no such word is returned unchanged, and
"after that" / "afterwards" are left to the clause splitter (they already
mean "then").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from bt_executive.llm.language.lexicon import load_lexicon

_SUBJECT = r"(?:you\s+(?:have\s+|ve\s+|are\s+|re\s+)?|you\s+|i\s+have\s+|it\s+is\s+|having\s+)?"
_LEADING = re.compile(rf"^(?P<word>after|once|when|before)\s+{_SUBJECT}(?P<a>.+?)\s*,\s*(?P<b>.+)$")
_TRAILING = re.compile(rf"^(?P<b>.+?)(?<!\band)\s*,?\s+(?P<word>after|before|once)\s+{_SUBJECT}(?P<a>.+)$")
"""A clause put after what it happens around; "..., and after you come back" is "and afterwards", not that."""
_NOT_ORDER = re.compile(r"^(?:that|this|which|afterwards)\b")
_NEXT_STEP = re.compile(
    r",\s+(?=(?:then|after that|afterwards|next|finally|lastly|(?:once|when|after)\s+(?:that|this|it|you)\b))"
)
"""Where a "before" sentence's main clause ends: a comma before a word that says what comes next."""


@cache
def _base_forms() -> dict[str, str]:
    """Gerunds and past participles of the lexicon's verb words -> the word ("opening", "opened" -> "open")."""
    forms: dict[str, str] = {}
    for word in sorted(load_lexicon().verb_words()):
        forms.setdefault(word, word)  # "after you open the drawer"
        stem = word[:-1] if word.endswith("e") and not word.endswith("ee") else word
        doubled = word + word[-1] if re.search(r"[^aeiou][aeiou][bdgklmnprt]$", word) and len(word) <= 4 else word
        for form in (f"{stem}ing", f"{doubled}ing", f"{stem}ed", f"{doubled}ed", f"{word}ed", f"{word}d"):
            forms.setdefault(form, word)
    forms.update({"got": "get", "put": "put", "set": "set", "taken": "take", "took": "take", "gone": "go"})
    return forms


def _as_command(clause: str) -> str | None:
    """A subordinate clause ("opening the drawer", "opened it") as a command ("open the drawer"), or None."""
    first, _, rest = clause.strip().partition(" ")
    base = _base_forms().get(first)
    if base is None:
        return None
    return f"{base} {rest}".strip()


_PRONOUN = re.compile(r"\b(?:it|them)\b")


_BY = re.compile(r"^(?P<goal>.+?)\s+by\s+(?P<means>\w+ing\b.*)$")


def reorder_clauses(text: str, object_of: Callable[[str], str | None] = lambda _clause: None) -> str:
    """``text`` (normalised) with a "before"/"after"/"once" clause put where it happens; else ``text``.

    ``object_of`` names a clause's object phrase: a pronoun in the clause that now comes first, whose
    referent now comes second ("close the drawer after you put the cube in it"), is replaced by it.
    "Tidy the table by putting the cubes in the bowl" becomes what it is done by: "put the cubes in the bowl".
    """
    by = _BY.match(text)
    if by is not None and (means := _as_command(by.group("means"))) is not None:
        text = means
    for pattern in (_LEADING, _TRAILING):
        match = pattern.match(text)
        if match is None or _NOT_ORDER.match(match.group("a")):
            continue
        sub = _as_command(match.group("a"))
        if sub is None:
            continue
        main, later = match.group("b").strip(" ,"), ""
        if match.group("word") == "before" and pattern is _LEADING and (cut := _NEXT_STEP.search(main)) is not None:
            # "before you read the gauge, photograph it, once that s done go home": the photo comes before the
            # reading, and what is said to come next still comes after both
            main, later = main[: cut.start()], main[cut.start() :]
        first, second = (main, sub) if match.group("word") == "before" else (sub, main)
        referent = object_of(second) if _PRONOUN.search(first) else None
        if referent is not None:
            first = _PRONOUN.sub(referent, first, count=1)
        return f"{first}, then {second}{later}"
    return text

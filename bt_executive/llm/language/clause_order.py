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
mean "then"). The words these sentences are said with ("before", "once you
have", "took") are the lexicon's ``clause_order``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from functools import cache

from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon


class _Patterns:
    """The lexicon's ``clause_order`` words as compiled patterns."""

    def __init__(self, lexicon: Lexicon) -> None:
        words = lexicon.clause_order
        space = r"\s+"
        subject = f"(?:{alternatives(words.subjects, after=space, space=space)})?"
        self.before = frozenset(words.before)
        leading, trailing = [*words.after, *words.before], [*words.trailing_after, *words.before]
        self.leading = re.compile(rf"^(?P<word>{alternatives(leading)})\s+{subject}(?P<a>.+?)\s*,\s*(?P<b>.+)$")
        # A clause put after what it happens around; "..., and after you come back" is "and afterwards", not that.
        self.trailing = re.compile(
            rf"^(?P<b>.+?)(?<!\band)\s*,?\s+(?P<word>{alternatives(trailing)})\s+{subject}(?P<a>.+)$"
        )
        self.not_order = re.compile(rf"^(?:{alternatives(words.not_order)})\b")
        # Where a "before" sentence's main clause ends: a comma before a word that says what comes next.
        leads, objects = alternatives(words.next_step_leads), alternatives(words.next_step_objects)
        self.next_step = re.compile(rf",\s+(?=(?:{alternatives(words.next_steps)}|(?:{leads})\s+(?:{objects})\b))")
        self.pronoun = re.compile(rf"\b(?:{alternatives(words.pronouns)})\b")
        self.irregular = dict(words.irregular)


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


@cache
def _base_forms(skill_words: frozenset[str] = frozenset()) -> dict[str, str]:
    """Gerunds and past participles of the lexicon's verb words, and of the first words of the manifests'
    phrases (``skill_words``: "dock", "recharge"), -> the word ("opening", "opened" -> "open")."""
    forms: dict[str, str] = {}
    for word in sorted(load_lexicon().verb_words() | skill_words):
        forms.setdefault(word, word)  # "after you open the drawer"
        stem = word[:-1] if word.endswith("e") and not word.endswith("ee") else word
        doubled = word + word[-1] if re.search(r"[^aeiou][aeiou][bdgklmnprt]$", word) and len(word) <= 4 else word
        for form in (f"{stem}ing", f"{doubled}ing", f"{stem}ed", f"{doubled}ed", f"{word}ed", f"{word}d"):
            forms.setdefault(form, word)
    forms.update(_patterns().irregular)  # "got", "taken": the lexicon's clause_order.irregular
    return forms


def _as_command(clause: str, skill_words: frozenset[str] = frozenset()) -> str | None:
    """A subordinate clause ("opening the drawer", "opened it") as a command ("open the drawer"), or None."""
    first, _, rest = clause.strip().partition(" ")
    base = _base_forms(skill_words).get(first)
    if base is None:
        return None
    return f"{base} {rest}".strip()


_BY = re.compile(r"^(?P<goal>.+?)\s+by\s+(?P<means>\w+ing\b.*)$")


def reorder_clauses(
    text: str, object_of: Callable[[str], str | None] = lambda _clause: None, skill_phrases: Collection[str] = ()
) -> str:
    """``text`` (normalised) with a "before"/"after"/"once" clause put where it happens; else ``text``.

    ``skill_phrases``: the manifests' verb phrases, whose first words are verbs too ("read it before you dock").

    ``object_of`` names a clause's object phrase: a pronoun in the clause that now comes first, whose
    referent now comes second ("close the drawer after you put the cube in it"), is replaced by it.
    "Tidy the table by putting the cubes in the bowl" becomes what it is done by: "put the cubes in the bowl".
    """
    skill_words = frozenset(phrase.split()[0] for phrase in skill_phrases if phrase.strip())
    by = _BY.match(text)
    if by is not None and (means := _as_command(by.group("means"), skill_words)) is not None:
        text = means
    patterns = _patterns()
    for pattern in (patterns.leading, patterns.trailing):
        match = pattern.match(text)
        if match is None or patterns.not_order.match(match.group("a")):
            continue
        sub = _as_command(match.group("a"), skill_words)
        if sub is None:
            continue
        main, later = match.group("b").strip(" ,"), ""
        before = match.group("word") in patterns.before
        if before and pattern is patterns.leading and (cut := patterns.next_step.search(main)) is not None:
            # "before you read the gauge, photograph it, once that s done go home": the photo comes before the
            # reading, and what is said to come next still comes after both
            main, later = main[: cut.start()], main[cut.start() :]
        first, second = (main, sub) if before else (sub, main)
        referent = object_of(second) if patterns.pronoun.search(first) else None
        if referent is not None:
            first = patterns.pronoun.sub(referent, first, count=1)
        return f"{first}, then {second}{later}"
    return text

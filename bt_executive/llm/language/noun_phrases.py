"""Noun phrases as text, before any world: their words, plurals and counts, and lists cut into parts.

Kept below ``grounding`` so that the task grammar (``clause_forms``) can expand "the red and the blue
cube" without importing the matcher that grounds each part.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache

from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.quantities import number_words, said_number


@cache
def articles() -> frozenset[str]:
    """Leading words that only point at an object (``config/lexicon.yaml``: ``articles``), dropped before any rule."""
    return frozenset(load_lexicon().articles)


_WORD_BREAK = re.compile(r"[\s_\-]+")


@lru_cache(maxsize=8192)
def phrase_words(phrase: str) -> tuple[str, ...]:
    """The words of a phrase or an id, lower case, split at spaces, underscores and hyphens (kept: grounding asks
    for every object's words on every clause)."""
    return tuple(w for w in _WORD_BREAK.split(phrase.lower()) if w)


@cache
def numbers() -> Mapping[str, int]:
    """The counts a noun phrase may start with ("the three cubes"); not "one": "the one on the left" is no count."""
    return {word: n for word, n in number_words().items() if 2 <= n <= 6} | {str(n): n for n in range(2, 7)}


class _Patterns:
    """The lexicon's noun-phrase words as compiled patterns."""

    def __init__(self, lexicon: Lexicon) -> None:
        joiners = lexicon.list_joiners
        after_comma = alternatives(j for j in joiners if " " not in j)  # "the red, and the blue"
        comma = rf"\s*,\s*(?:{after_comma}\s+)?" if after_comma else r"\s*,\s*"
        space = r"\s+"
        self.list_split = re.compile(rf"{comma}|{alternatives(joiners, before=space, after=space)}|\s*&\s*")
        self.counted = re.compile(
            rf"^(?:(?:{alternatives(lexicon.count_leads)})\s+(?:of\s+)?)?(?:the\s+)?(?P<n>{alternatives(numbers())})"
            r"\s+(?P<rest>.+)$"
        )
        # "the red and the blue both": the words after a list that only say all of it
        self.tails = re.compile(rf"(?<=\S)\s+(?:{alternatives(lexicon.list_tails)})$")
        self.any_of = re.compile(rf"^(?:{alternatives(lexicon.any_of)})\s+of\s+")
        # A relative clause or a placement: the phrase says which one by where it is, and is kept whole.
        self.described = re.compile(
            rf"\b(?:{alternatives([*lexicon.relative_pronouns, *lexicon.placement_verbs.described])})\s"
        )
        self.ones = frozenset(lexicon.ones)


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


def singular(word: str) -> str:
    """A plural category word's singular, through the lexicon ("blocks" -> "cube"), else the word."""
    table = load_lexicon().synonyms()
    if word in table:
        return table[word]
    if word.endswith("es") and word[:-2] in load_lexicon().categories:
        return word[:-2]
    if word.endswith("s") and word[:-1] in load_lexicon().categories:
        return word[:-1]
    return word


def count_said(word: str) -> int | None:
    """The whole number a count word or numeral says ("1", "one", "twelve"), else None."""
    said = said_number(word)
    return int(said) if said is not None and said == int(said) else None


def stated_count(phrase: str) -> int | None:
    """How many objects a phrase says it names ("the three cubes": 3), if it says."""
    text = " ".join(phrase.lower().split())
    counted = _patterns().counted.match(text)
    if counted is not None:
        return numbers()[counted.group("n")]
    return 2 if text.startswith("both ") else None


def looks_plural(word: str) -> bool:
    """Whether a word has the shape of a plural noun ("cubes", "gauges"; not "glass", "is"): read by shape where
    the lexicon does not know the word."""
    return re.fullmatch(r"[a-z]+[^s]s", word) is not None


def expand_phrase(phrase: str) -> tuple[tuple[str, ...], bool]:
    """The phrases a possibly plural phrase stands for, and whether it is quantified ("all the cubes").

    "the red and the blue cube" -> (("the red cube", "the blue cube"), False): the last part's category
    noun goes to the parts that have none. "all the cubes", "every block", "both cubes" and a plain
    plural ("the cubes") -> (("cube",), True): every object it matches, one step each.
    """
    lex = load_lexicon()
    patterns = _patterns()
    text = " ".join(phrase.lower().split())
    text = patterns.tails.sub("", text)  # "X and Y both"
    if patterns.any_of.match(text):  # "one of the cubes": a single object, any one
        return ((phrase,), False)
    quantified = False
    counted = patterns.counted.match(text)
    if counted is not None:  # "the three cubes": every match (the planner checks the count)
        text = counted.group("rest")
        quantified = True
    for quantifier in sorted(lex.quantifiers, key=len, reverse=True):
        if text == quantifier or text.startswith(quantifier + " "):
            text = text[len(quantifier) :].strip()
            quantified = True
            break
    parts = [p for p in patterns.list_split.split(text) if p]
    if len(parts) == 1 and not quantified and patterns.described.search(text):
        return ((phrase,), False)  # "the cube that s sitting on the blue one": one object, said by where it is
    categories = load_lexicon().category_words() | set(lex.categories)
    words_of = [phrase_words(p) for p in parts]
    head = next((w[-1] for w in reversed(words_of) if w and w[-1] in categories), None)
    dropped = articles() | patterns.ones
    expanded = []
    for words in words_of:
        core = [w for w in words if w not in dropped]
        if not core:
            continue
        last = core[-1]
        plural = last.endswith("s") and singular(last) != last
        if plural and not quantified and len(parts) == 1:
            quantified = True
        core[-1] = singular(last) if (plural or quantified) else last
        if head is not None and core[-1] not in categories and len(parts) > 1:
            core.append(singular(head))
        expanded.append(" ".join(core))
    if not expanded:
        return ((phrase,), False)
    if len(expanded) > 1:
        quantified = False
    return (tuple(expanded), quantified)

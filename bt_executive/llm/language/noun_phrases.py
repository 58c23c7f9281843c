"""Noun phrases as text, before any world: their words, plurals and counts, and lists cut into parts.

Kept below ``grounding`` so that the task grammar (``clause_forms``) can expand "the red and the blue
cube" without importing the matcher that grounds each part.
"""

from __future__ import annotations

import re

from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.quantities import NUMBER_WORDS

ARTICLES = frozenset({"the", "a", "an", "this", "that", "those", "these"})
"""Leading words that only point at an object, dropped before any rule."""


def phrase_words(phrase: str) -> tuple[str, ...]:
    """The words of a phrase or an id, lower case, split at spaces, underscores and hyphens."""
    return tuple(w for w in re.split(r"[\s_\-]+", phrase.lower()) if w)


_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s+as well as\s+|\s*&\s*")


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


NUMBERS = {word: n for word, n in NUMBER_WORDS.items() if 2 <= n <= 6} | {str(n): n for n in range(2, 7)}
"""The counts a noun phrase may start with ("the three cubes"); not "one": "the one on the left" is no count."""


def count_said(word: str) -> int | None:
    """The number a count word or numeral says ("1", "one", "twelve"), else None."""
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word)


_COUNTED = re.compile(
    r"^(?:(?:all|both|each|every one)\s+(?:of\s+)?)?(?:the\s+)?(?P<n>" + "|".join(NUMBERS) + r")\s+(?P<rest>.+)$"
)


def stated_count(phrase: str) -> int | None:
    """How many objects a phrase says it names ("the three cubes": 3), if it says."""
    text = " ".join(phrase.lower().split())
    counted = _COUNTED.match(text)
    if counted is not None:
        return NUMBERS[counted.group("n")]
    return 2 if text.startswith("both ") else None


_DESCRIBED = re.compile(r"\b(?:that|which|sitting|lying|resting|standing|placed|located)\s")
"""A relative clause or a placement: the phrase says which one by where it is, and is kept whole."""


def expand_phrase(phrase: str) -> tuple[tuple[str, ...], bool]:
    """The phrases a possibly plural phrase stands for, and whether it is quantified ("all the cubes").

    "the red and the blue cube" -> (("the red cube", "the blue cube"), False): the last part's category
    noun goes to the parts that have none. "all the cubes", "every block", "both cubes" and a plain
    plural ("the cubes") -> (("cube",), True): every object it matches, one step each.
    """
    lex = load_lexicon()
    text = " ".join(phrase.lower().split())
    text = re.sub(r"(?<=\S)\s+(?:both|all|each|all of them|both of them|too|as well)$", "", text)  # "X and Y both"
    if re.match(r"^(?:one|any|either)\s+of\s+", text):  # "one of the cubes": a single object, any one
        return ((phrase,), False)
    quantified = False
    counted = _COUNTED.match(text)
    if counted is not None:  # "the three cubes": every match (the planner checks the count)
        text = counted.group("rest")
        quantified = True
    for quantifier in sorted(lex.quantifiers, key=len, reverse=True):
        if text == quantifier or text.startswith(quantifier + " "):
            text = text[len(quantifier) :].strip()
            quantified = True
            break
    parts = [p for p in _LIST_SPLIT.split(text) if p]
    if len(parts) == 1 and not quantified and _DESCRIBED.search(text):
        return ((phrase,), False)  # "the cube that s sitting on the blue one": one object, said by where it is
    categories = load_lexicon().category_words() | set(lex.categories)
    words_of = [phrase_words(p) for p in parts]
    head = next((w[-1] for w in reversed(words_of) if w and w[-1] in categories), None)
    expanded = []
    for words in words_of:
        core = [w for w in words if w not in ARTICLES and w not in ("one", "ones")]
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

"""BM25: the lexical ranking link of the skill router, over words of ids, descriptions, objects and scenes.

Okapi BM25 (k1 = 1.2, b = 0.75, the Lucene idf that never goes negative)
over a small, dependency-free text pipeline: lower-case words split on
anything but letters and digits (so ``open_drawer`` is ``open drawer``),
English stop words and colour words dropped, and a light suffix stripper so that "drawers",
"opening" and "opened" meet "drawer" and "open". Catalogs are thousands of
short documents, so the index is plain dicts: a query costs microseconds per
matching posting.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = (
    "a an the and or of to in on at by for from with into onto it its this that these those is are be "
    "then please can you could would me my i we our your up out off over all any some one "
    # Colours name an argument (which cube), never a skill: "red" in a task must not pull in a skill
    # whose description happens to give red_cube as an example.
    "red green blue yellow black white orange purple pink brown grey gray"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())
# Only the suffixes that inflect verbs and nouns in task text; a real stemmer (Porter) would also merge words
# that skills keep apart ("general"/"generalist"), and is not worth a dependency.
_SUFFIXES = ("ing", "ed", "es", "s")


def stem(word: str) -> str:
    """A light stem: strip one inflection (-ing, -ed, -es, -s) and a final e, keeping 3+ letters."""
    if word.endswith("ss"):
        return word  # "glass", "press": no plural s to strip
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix == "es" and not base.endswith(("sh", "ch", "x", "ss", "z")):
                base = word[:-1]  # "plates" -> "plate", but "boxes" -> "box", "glasses" -> "glass"
            if suffix in ("ing", "ed") and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # "grabbing" -> "grab", "stopped" -> "stop"; "pulled" stays "pull"
            word = base
            break
    # A final silent e goes too, so "wipe", "wiped" and "wiping" all meet at "wip".
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def tokenize(text: str) -> list[str]:
    """Words of ``text`` as the router compares them: lower-case, no stop words, stemmed."""
    return [stem(w) for w in _WORD.findall(text.lower().replace("_", " ")) if w not in STOP_WORDS]


class Bm25Index:
    """A BM25 index over token lists; ``scores(query_tokens)`` gives one score per document."""

    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.size = len(documents)
        self._lengths = [len(d) for d in documents]
        self._average = (sum(self._lengths) / self.size) if self.size else 0.0
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for index, document in enumerate(documents):
            for term, count in Counter(document).items():
                self._postings.setdefault(term, []).append((index, count))

    def idf(self, term: str) -> float:
        """Lucene's idf: rare terms weigh more, and a term in every document still weighs a little."""
        frequency = len(self._postings.get(term, ()))
        return math.log(1.0 + (self.size - frequency + 0.5) / (frequency + 0.5))

    def scores(self, query: Sequence[str]) -> list[float]:
        """The BM25 score of every document for ``query`` (0 where no term matches)."""
        out = [0.0] * self.size
        for term in set(query):
            postings = self._postings.get(term)
            if not postings:
                continue
            weight = self.idf(term)
            for index, count in postings:
                norm = self.k1 * (1.0 - self.b + self.b * self._lengths[index] / (self._average or 1.0))
                out[index] += weight * count * (self.k1 + 1.0) / (count + norm)
        return out

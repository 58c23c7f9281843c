"""BM25: the lexical ranking link of the skill router, over words of ids, descriptions, objects and scenes.

Okapi BM25 (k1 = 1.2, b = 0.75, the Lucene idf that never goes negative)
over a small, dependency-free text pipeline (``language.tokens``): lower-case words split on
anything but letters and digits (so ``open_drawer`` is ``open drawer``),
English stop words and colour words dropped, and a light suffix stripper so that "drawers",
"opening" and "opened" meet "drawer" and "open". Catalogs are thousands of
short documents, so the index is plain dicts: a query costs microseconds per
matching posting.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence


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

"""The embedding link of object grounding: a head noun the lexicon does not know, read as a category present.

Rule 4 of ``object_matching``: when no rule found an object and the one word
the objects lack is the phrase's head noun ("the cabinetry", "the cuboids"),
all-MiniLM-L6-v2 compares that word with the categories of the objects in
the world. It links the word to the nearest one only when the cosine is at
least ``MIN_COSINE`` and beats the second by ``MIN_MARGIN``; otherwise the
phrase stays unmatched, which is a refusal naming the objects there are.

The bar is high on purpose. Measured over 47 head nouns
(``benchmarks/colour_grounding.py``, its category table): at 0.8 / 0.1 the link
took 5 words, all right (inflections such as "cubes", "cabinetry"); at 0.65
it also took "cubicle" for a cube, a substitution. Single words carry little
meaning for a sentence model ("block" is nearer "plate" than "cube"), so
synonyms belong in ``config/lexicon.yaml``; this link only catches what the
lexicon missed and is safe. Colour words are never linked: a colour the
lexicon does not know must not become another (same benchmark).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy and the model load only when a head noun needs the link
    from bt_executive.llm.embedding.embedder import Embedder

MIN_COSINE = 0.8
"""Cosine between the word and its nearest category at or above which the link holds."""
MIN_MARGIN = 0.1
"""How far the nearest category must beat the second."""


@cache
def _embedder() -> Embedder | None:
    """The shipped MiniLM embedder (vectors cached), built on first use; None without it (the link is off)."""
    from bt_executive.llm.embedding.embedder import default_embedder

    return default_embedder()


def nearest(word: str, categories: Sequence[str]) -> tuple[str, float, float] | None:
    """The category nearest ``word``, its cosine and its margin over the second; None without the model."""
    embedder = _embedder()
    if embedder is None or not categories:
        return None
    vectors = embedder.embed([word, *categories])
    scores = sorted(((float(vectors[0] @ vectors[i + 1]), c) for i, c in enumerate(categories)), reverse=True)
    best, name = scores[0]
    second = scores[1][0] if len(scores) > 1 else -1.0
    return name, best, best - second


def link_category(word: str, categories: Sequence[str]) -> str | None:
    """The category ``word`` means, when the model is sure enough (see the module docstring); else None."""
    found = nearest(word, sorted(set(categories)))
    if found is None:
        return None
    name, cosine, margin = found
    return name if cosine >= MIN_COSINE and margin >= MIN_MARGIN else None

"""BM25 and the router's text pipeline: words split, stop words dropped, inflections met, rare words weigh more."""

from __future__ import annotations

import pytest

from bt_executive.llm.language.tokens import stem, tokenize
from bt_executive.llm.routing.bm25 import Bm25Index


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("drawers", "drawer"),
        ("opening", "open"),
        ("opened", "open"),
        ("grabbing", "grab"),
        ("pulled", "pull"),
        ("boxes", "box"),
        ("glasses", "glass"),
        ("press", "press"),
    ],
)
def test_stem_strips_one_inflection(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_wipe_wiped_and_wiping_meet_at_one_stem() -> None:
    assert stem("wipe") == stem("wiped") == stem("wiping")


def test_tokenize_splits_ids_on_underscores_and_slashes_and_drops_stop_words() -> None:
    assert tokenize("Open the tabletop/open_drawer") == ["open", "tabletop", "open", "drawer"]


def test_document_with_the_query_words_ranks_first() -> None:
    index = Bm25Index([tokenize("pick up a cube"), tokenize("open the drawer"), tokenize("pour into the bowl")])
    scores = index.scores(tokenize("open drawers"))
    assert scores.index(max(scores)) == 1
    assert scores[0] == 0.0
    assert scores[2] == 0.0


def test_rare_word_outweighs_common_word() -> None:
    docs = [tokenize("cube table"), tokenize("cube plate"), tokenize("cube bowl"), tokenize("drawer table")]
    index = Bm25Index(docs)
    assert index.idf(stem("drawer")) > index.idf(stem("cube"))
    scores = index.scores(tokenize("cube drawer"))
    assert scores.index(max(scores)) == 3


def test_longer_document_scores_lower_for_the_same_match() -> None:
    index = Bm25Index([tokenize("drawer"), tokenize("drawer with many other unrelated words in it")])
    short, long = index.scores(["drawer"])
    assert short > long > 0.0


def test_empty_index_scores_nothing() -> None:
    assert Bm25Index([]).scores(["cube"]) == []

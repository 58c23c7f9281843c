"""The numpy all-MiniLM-L6-v2: reference similarities, stored vectors, batching, and the vector cache."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from bt_executive.llm.embedding.embedder import CachedEmbedder, Embedder, FloatArray, text_key
from bt_executive.llm.embedding.minilm import MiniLmEmbedder
from tests.llm.routing_data import shared_embedder

FIXTURE = Path(__file__).parent / "data" / "minilm_vectors.json"


@pytest.fixture(scope="module")
def minilm() -> MiniLmEmbedder:
    inner = shared_embedder().inner
    assert isinstance(inner, MiniLmEmbedder)
    return inner


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        # Cosine similarities sentence-transformers prints for all-MiniLM-L6-v2 in its own usage examples.
        ("A man is eating food.", "A man is eating a piece of bread.", 0.7553),
        ("The new movie is awesome", "The new movie is so great", 0.8939),
        ("A man is playing guitar", "A woman watches TV", -0.0327),
    ],
)
def test_similarity_matches_the_sentence_transformers_reference(
    minilm: MiniLmEmbedder, first: str, second: str, expected: float
) -> None:
    a, b = minilm.embed([first, second])
    assert float(a @ b) == pytest.approx(expected, abs=5e-4)


def test_vectors_match_the_stored_fixture(minilm: MiniLmEmbedder) -> None:
    stored = json.loads(FIXTURE.read_text())["vectors"]
    got = minilm.embed([row["text"] for row in stored])
    for row, vector in zip(stored, got, strict=True):
        expected = np.array(row["vector"], dtype=np.float32)
        cosine = float(vector @ expected) / float(np.linalg.norm(expected))
        assert cosine >= 0.99999, row["text"]


def test_vectors_are_unit_length_float32_rows(minilm: MiniLmEmbedder) -> None:
    vectors = minilm.embed(["open the drawer", "go home", "a much longer sentence about pouring water into a bowl"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_padded_batch_gives_the_same_vectors_as_one_at_a_time(minilm: MiniLmEmbedder) -> None:
    texts = ["pick", "pick up the red cube and put it on the plate", "wipe the table"]
    batched = minilm.embed(texts)
    alone = np.vstack([minilm.embed([t]) for t in texts])
    np.testing.assert_allclose(batched, alone, atol=1e-5)


def test_long_text_is_truncated_not_refused(minilm: MiniLmEmbedder) -> None:
    assert len(minilm.tokenize("cube " * 1000)) == 256
    assert minilm.embed(["cube " * 1000]).shape == (1, 384)


def test_embed_refuses_a_bare_string(minilm: MiniLmEmbedder) -> None:
    with pytest.raises(TypeError, match="sequence of texts"):
        minilm.embed("open the drawer")


class CountingEmbedder:
    """A deterministic stand-in that counts the texts it is asked for."""

    name = "counting"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> FloatArray:
        self.seen.extend(texts)
        rows = np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
        unit: FloatArray = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
        return unit


def test_counting_embedder_satisfies_the_protocol() -> None:
    assert isinstance(CountingEmbedder(), Embedder)
    assert isinstance(shared_embedder(), Embedder)


def test_cache_computes_each_text_once() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    first = cached.embed(["a", "bb", "a"])
    second = cached.embed(["bb", "ccc"])
    assert inner.seen == ["a", "bb", "ccc"]
    np.testing.assert_array_equal(first[1], second[0])


def test_disk_cache_serves_a_new_process_without_recomputing(tmp_path: Path) -> None:
    CachedEmbedder(CountingEmbedder(), tmp_path).embed(["open the drawer"])
    inner = CountingEmbedder()
    vector = CachedEmbedder(inner, tmp_path).embed(["open the drawer"])
    assert inner.seen == []
    assert vector.shape == (1, 2)


def test_a_changed_text_is_a_new_key() -> None:
    assert text_key("m", "open the drawer") != text_key("m", "open the drawer.")
    assert text_key("m", "x") != text_key("other-model", "x")


def test_corrupt_cache_file_is_recomputed_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    CachedEmbedder(CountingEmbedder(), tmp_path).embed(["go home"])
    for path in tmp_path.rglob("*.npy"):
        path.write_bytes(b"not a numpy file")
    inner = CountingEmbedder()
    with caplog.at_level(logging.WARNING, logger="bt_executive.llm.embedding.embedder"):
        CachedEmbedder(inner, tmp_path).embed(["go home"])
    assert inner.seen == ["go home"]
    assert "unreadable" in caplog.text

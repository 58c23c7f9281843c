"""Embedders: text -> unit vectors, behind a small protocol, with a cache keyed by the text's hash.

The router's embedding link only needs ``embed(texts) -> (n, d)`` rows of
unit length, so a model (the numpy MiniLM, an ONNX export, a remote service)
plugs in behind ``Embedder``. Skill texts change rarely and are embedded
often (every router built over the catalog), so ``CachedEmbedder`` keeps each
vector under ``sha256(model name, text)``: in memory, and optionally in a
cache directory (one ``.npy`` per vector; a corrupt file is recomputed).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

_log = logging.getLogger(__name__)

FloatArray = NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalised float32 rows, one per text."""

    name: str

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """One unit-length row per text, in order."""
        ...


def text_key(model: str, text: str) -> str:
    """The cache key of ``text`` under ``model``: a hex sha256, so any change of text is a new key."""
    return hashlib.sha256(f"{model}\0{text}".encode()).hexdigest()


class CachedEmbedder:
    """An Embedder that remembers every vector it computed (memory, and ``cache_dir`` if given)."""

    def __init__(self, inner: Embedder, cache_dir: Path | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache_dir = cache_dir
        self._memory: dict[str, FloatArray] = {}
        self.computed = 0
        """How many texts went to the inner embedder (the rest came from a cache)."""

    def _disk_path(self, key: str) -> Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / self.name / key[:2] / f"{key}.npy"

    def _from_disk(self, key: str) -> FloatArray | None:
        path = self._disk_path(key)
        if path is None or not path.is_file():
            return None
        try:
            vector = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as err:
            _log.warning("embedding cache file %s unreadable (%s); recomputing", path, err)
            return None
        return vector.astype(np.float32) if vector.ndim == 1 else None

    def _to_disk(self, key: str, vector: FloatArray) -> None:
        path = self._disk_path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp.npy")
            np.save(tmp, vector, allow_pickle=False)
            tmp.replace(path)  # atomic: a reader never sees half a vector
        except OSError as err:  # a read-only or full disk costs speed, never a route
            _log.warning("cannot write embedding cache %s: %s", path, err)

    def forget(self, texts: Sequence[str]) -> None:
        """Drop ``texts`` from the memory cache (benchmarks time a query's first embedding this way)."""
        for text in texts:
            self._memory.pop(text_key(self.name, text), None)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Vectors for ``texts``, computing only those no cache holds."""
        keys = [text_key(self.name, t) for t in texts]
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key in self._memory or key in missing:
                continue
            cached = self._from_disk(key)
            if cached is not None:
                self._memory[key] = cached
            else:
                missing[key] = text
        if missing:
            vectors = self.inner.embed(list(missing.values()))
            self.computed += len(missing)
            for key, vector in zip(missing, vectors, strict=True):
                self._memory[key] = vector
                self._to_disk(key, vector)
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._memory[k] for k in keys]).astype(np.float32)


@functools.cache
def default_embedder() -> Embedder | None:
    """The shipped MiniLM embedder, cached; None when its model package is not installed (lexical routing).

    One per process: the router and the grammar's category link share it, so a process with ``auto`` and a
    model fallback holds one MiniLM (~90 MB), not one per caller.
    """
    from bt_executive.llm.embedding.minilm import EmbedderUnavailable, MiniLmEmbedder

    try:
        return CachedEmbedder(MiniLmEmbedder())
    except EmbedderUnavailable:
        return None

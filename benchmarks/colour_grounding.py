"""Could the MiniLM embedder ground colour and category words the lexicon does not know? Only above a high bar.

Object grounding must never put a different colour in place of the one the
user said. The lexicon maps known synonyms (crimson -> red) and refuses a
known colour that names nothing here (purple); this benchmark asks whether
all-MiniLM-L6-v2 could settle the words in between (burgundy, turquoise...)
by cosine similarity to the colours the world's objects have. For each word
it prints the nearest colour, the margin over the second, whether that is
the colour a person means, and whether a threshold/margin rule would have
accepted it. The baseline row is the lexicon's own answer for the same words
(right, or refused: never wrong).

The category table asks the same of head nouns ("the cabinetry", "the
crate") against the tabletop's categories, through the link object grounding
uses (``bt_executive/llm/grounding/category_link.py``: cosine >= 0.8, margin >= 0.1),
beside a looser rule (0.65 / 0.1) to show why the bar is where it is.

    .venv/bin/python benchmarks/colour_grounding.py [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np

from bt_executive.llm.embedding.minilm import MiniLmEmbedder
from bt_executive.llm.grounding.category_link import MIN_COSINE as MIN_CATEGORY_COSINE
from bt_executive.llm.grounding.category_link import MIN_MARGIN as MIN_CATEGORY_MARGIN
from bt_executive.llm.grounding.category_link import link_category, nearest
from bt_executive.llm.language.lexicon import load_lexicon

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

WORLD_CATEGORIES = ("cube", "plate", "bowl", "cabinet", "drawer", "table")
"""The categories of the tabletop scene's objects."""

CATEGORY_WORDS: dict[str, str | None] = {
    # word -> the category a person means by it (None: none of them)
    "cubes": "cube", "plates": "plate", "bowls": "bowl", "drawers": "drawer", "cabinetry": "cabinet",
    "cuboid": "cube", "cupboard": "cabinet", "platter": "plate", "saucer": "plate", "basin": "bowl",
    "container": "bowl", "vessel": "bowl", "closet": "cabinet", "wardrobe": "cabinet", "desk": "table",
    "counter": "table", "tray": "plate", "compartment": "drawer", "block": "cube", "brick": "cube",
    "crate": None, "cup": None, "mug": None, "tile": None, "cubicle": None, "cubby": None, "square": None,
    "box": None, "shelf": None, "pot": None, "pan": None, "jar": None, "bin": None, "disc": None, "ball": None,
    "sphere": None, "cylinder": None, "bottle": None, "lid": None, "knob": None, "handle": None, "apple": None,
    "phone": None, "robot": None, "button": None, "teacup": None, "kettle": None,
}  # fmt: skip
LOOSE = (0.65, 0.1)
"""A looser rule, for comparison."""


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
    categories = _category_table()
    if args.json:
        print(
            json.dumps(
                {
                    "words": len(rows),
                    "embedding_right": embedding_right,
                    "embedding_substituted": embedding_wrong,
                    "lexicon_substituted": lexicon_wrong,
                    "rows": rows,
                    **categories,
                }
            )
        )
    return 0


def _category_table() -> dict[str, int]:
    """Head nouns against the scene's categories: the link's rule and a looser one."""
    print(f"\n{'head noun':12s} {'means':8s} {'nearest':8s} {'cos':>5s} {'margin':>6s} {'linked':>7s} {'loose':>6s}")
    figures = {"category_words": 0, "linked_right": 0, "linked_substituted": 0, "loose_substituted": 0}
    for word, means in CATEGORY_WORDS.items():
        found = nearest(word, sorted(WORLD_CATEGORIES))
        assert found is not None, "the embedder is not installed"
        name, cosine, margin = found
        linked = link_category(word, WORLD_CATEGORIES)
        loose = cosine >= LOOSE[0] and margin >= LOOSE[1]
        figures["category_words"] += 1
        figures["linked_right"] += linked is not None and linked == means
        figures["linked_substituted"] += linked is not None and linked != means
        figures["loose_substituted"] += loose and name != means
        mark = "-" if linked is None else ("yes" if linked == means else "WRONG")
        loose_mark = "-" if not loose else ("yes" if name == means else "WRONG")
        print(f"{word:12s} {means or '-':8s} {name:8s} {cosine:5.3f} {margin:6.3f} {mark:>7s} {loose_mark:>6s}")
    print(
        f"\ncategory link (cos >= {MIN_CATEGORY_COSINE}, margin >= {MIN_CATEGORY_MARGIN}): "
        f"{figures['linked_right']} right, {figures['linked_substituted']} substituted of {figures['category_words']}; "
        f"loose rule {LOOSE}: {figures['loose_substituted']} substituted"
    )
    return figures


if __name__ == "__main__":
    raise SystemExit(main())

"""Words as the skill router and the verb lexicon compare them: lower case, stop words out, lightly stemmed.

Kept in ``language`` (not beside BM25 in ``routing``) because the verb lexicon reads task words the same way,
and ``routing`` sits above ``language``.
"""

from __future__ import annotations

import re
from functools import cache

from bt_executive.llm.language.lexicon import load_lexicon

_WORD = re.compile(r"[a-z0-9]+")


@cache
def stop_words() -> frozenset[str]:
    """Words that name no skill (``config/lexicon.yaml``: ``stop_words``), and the colours' names: a colour
    names an argument (which cube), never a skill, so "red" in a task must not pull in a skill whose
    description happens to give red_cube as an example."""
    lexicon = load_lexicon()
    return frozenset(lexicon.stop_words) | frozenset(lexicon.colours)


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
    stops = stop_words()
    return [stem(w) for w in _WORD.findall(text.lower().replace("_", " ")) if w not in stops]

"""Typos: turn a misspelt word into the one vocabulary word it clearly meant ("teh" -> "the").

The grammar planner knows its words exactly (the lexicon, the world's names),
so "put teh red cueb on the plate" would be refused for two slips of the
keyboard. A wrong correction costs more than none: it plans the wrong thing
where a refusal would have let the user say it again. And the vocabulary is
not English: "ball", "shelf" and "pen" are real words it may not hold, one
edit from "all", "shell" and "open". So a word is corrected only when it is
one vocabulary word away by a slip of the fingers, and left alone otherwise::

    word ── known, has a digit or a non-letter ────────────────────────> kept
      │
      └─ close candidates: within one edit (an adjacent swap is one edit;
         two for words of eight letters or more) and similar enough
           ├─ none, or two equally close ──────────────────────────────> kept
           ├─ close to a protected word other than the closest one ────> kept
           ├─ the edit is no slip of the fingers ──────────────────────> kept
           │    slips: two neighbours swapped ("teh"), a letter missing
           │    ("blak"), a letter doubled ("redd"); for words that are not
           │    protected also a neighbouring key hit instead ("picj") or as
           │    well; never the first letter, never a plural's "s"
           └─ otherwise ──────────────────────────────────> corrected, with a note

Protected words are the ones that choose objects (colours, categories): a
protected word is always kept, so a colour never becomes another colour or a
verb ("pink" stays "pink", never "pick" or "ink"), and a typo becomes a
protected word only by a swap, a missing or a doubled letter ("read" never
becomes "red").

A vocabulary that holds more English (a word list) leaves more real words alone.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, ConfigDict
from rapidfuzz import process
from rapidfuzz.distance import OSA

MIN_SIMILARITY = 0.75
"""A candidate's least similarity (1 - edits / longer length): two edits pass only in words of eight letters or more.

Words of three letters or fewer need one edit instead ("teh" -> "the" is 0.67 similar)."""

QWERTY = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
"""The keyboard's letter rows, each shifted right of the one above: which keys a finger slips between."""


class Correction(BaseModel):
    """A task's words after correction, and one note per word changed, for the plan's notes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    words: tuple[str, ...]
    notes: tuple[str, ...] = ()


def neighbouring_keys(rows: Sequence[str] = QWERTY) -> Mapping[str, frozenset[str]]:
    """Each key's neighbours on a staggered keyboard, the keys a finger hits by mistake."""
    near: dict[str, set[str]] = {key: set() for row in rows for key in row}
    for r, row in enumerate(rows):
        for c, key in enumerate(row):
            beside = [row[c - 1 : c], row[c + 1 : c + 2]]
            above = rows[r - 1][c : c + 2] if r > 0 else ""  # the row above sits half a key to the left
            below = rows[r + 1][max(c - 1, 0) : c + 1] if r + 1 < len(rows) else ""
            near[key].update(k for k in (*beside, *above, *below) if k)
    return {key: frozenset(keys) for key, keys in near.items()}


_QWERTY_NEAR = neighbouring_keys()


def _close(word: str, candidate: str, edits: int) -> bool:
    """Whether a candidate is near enough to be what the word meant."""
    if len(word) <= 3:
        return edits == 1
    return 1 - edits / max(len(word), len(candidate)) >= MIN_SIMILARITY


def _slip(typo: str, meant: str, near: Mapping[str, frozenset[str]], *, strict: bool) -> bool:
    """Whether fingers typing ``meant`` plausibly typed ``typo``; ``strict`` allows only swaps, gaps, doubles."""
    if typo[0] != meant[0] and typo[:2] != meant[1::-1]:
        return False  # the first letter is rarely the wrong one, unless swapped with the second
    if typo in (meant + "s", meant + "es") or meant in (typo + "s", typo + "es"):
        return False  # a plural is a word, not a slip
    if len(typo) == len(meant):
        differ = [i for i, (a, b) in enumerate(zip(typo, meant, strict=True)) if a != b]
        if len(differ) == 2 and differ[1] == differ[0] + 1:
            first, second = differ
            return typo[first] == meant[second] and typo[second] == meant[first]
        return not strict and len(differ) == 1 and typo[differ[0]] in near.get(meant[differ[0]], ())
    if len(typo) == len(meant) - 1:
        return any(meant[:i] + meant[i + 1 :] == typo for i in range(1, len(meant)))
    if len(typo) == len(meant) + 1:
        for i in range(1, len(typo)):
            if typo[:i] + typo[i + 1 :] != meant:
                continue
            beside = typo[i - 1] + typo[i + 1 : i + 2]
            if typo[i] in beside or (not strict and any(typo[i] in near.get(key, ()) for key in beside)):
                return True
    return False


def _cased(meant: str, like: str) -> str:
    """``meant`` written in the case the user typed (``Teh`` -> ``The``)."""
    if like.isupper() and len(like) > 1:
        return meant.upper()
    return meant.capitalize() if like[:1].isupper() else meant


def _meant(
    word: str, known: Sequence[str], protected: Collection[str], near: Mapping[str, frozenset[str]]
) -> str | None:
    """The one known word a typo clearly stands for, or None when the evidence is not clear."""
    found = process.extract(word, known, scorer=OSA.distance, score_cutoff=2, limit=None)
    close = [(candidate, int(edits)) for candidate, edits, _ in found if _close(word, candidate, int(edits))]
    if not close:
        return None
    fewest = min(edits for _, edits in close)
    closest = [candidate for candidate, edits in close if edits == fewest]
    if len(closest) != 1:
        return None  # a tie: either could be meant
    meant = closest[0]
    if any(candidate in protected and candidate != meant for candidate, _ in close):
        return None  # it may be a misspelt colour or category: never guess which object
    if fewest == 1:
        return meant if _slip(word, meant, near, strict=meant in protected) else None
    # Two edits (similar enough only in words of eight letters or more): never into a protected word.
    return meant if meant not in protected and word[0] == meant[0] else None


def correct(
    words: Sequence[str],
    vocabulary: Collection[str],
    *,
    protected: Collection[str] = (),
    keyboard: Sequence[str] = QWERTY,
) -> Correction:
    """Correct the words no vocabulary knows, when one known word is clearly meant, so a typo does not refuse a task."""
    guarded = frozenset(word.lower() for word in protected)
    known_set = {word.lower() for word in vocabulary} | guarded
    near = _QWERTY_NEAR if keyboard == QWERTY else neighbouring_keys(keyboard)
    known: list[str] = []  # sorted on the first unknown word, so the usual task (no typo) pays nothing for it
    corrected: list[str] = []
    notes: list[str] = []
    for word in words:
        lower = word.lower()
        meant = None
        if lower not in known_set and word.isalpha():
            known = known or sorted(known_set)
            meant = _meant(lower, known, guarded, near)
        if meant is None:
            corrected.append(word)
            continue
        replacement = _cased(meant, word)
        corrected.append(replacement)
        notes.append(f'"{word}" -> "{replacement}"')
    return Correction(words=tuple(corrected), notes=tuple(notes))

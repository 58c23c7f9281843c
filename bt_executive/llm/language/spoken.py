"""Spoken and pasted English tidied before the grammar reads it: fillers, self-corrections, list numbers.

People do not type to a robot the way they write. A voice assistant hands
over "um put the blue no wait the red cube in the uh drawer"; a radio
operator wraps a request in "unit two, ..., over"; a pasted work order starts
"WO-5531 item 1:" or numbers its steps "1. ... 2. ...". What is asked is still
plain, and this module leaves only it::

    "um put the blue no wait the red cube in the uh drawer"  ->  "put the red cube in the drawer"
    "lift it fifteen no twenty centimetres"                  ->  "lift it twenty centimetres"
    "WO-7720: 1. Undock. 2. Proceed to corridor B."          ->  "Undock. Proceed to corridor B."

A correction replaces what it repeats: the words after the marker start with
a word said before it ("the", "in"), and replace everything from that word's
last place; or they are a number that replaces the last number. A marker
with neither is left alone, so the grammar refuses what it cannot read
rather than guessing. The words are data (``config/lexicon.yaml``:
``fillers``, ``corrections``, ``correction_words``, ``amount_hedges``,
``number_words``, ``number_parts``, ``enumerators``, ``call_signs``,
``procedure_words``, ``not_names``).
"""

from __future__ import annotations

import re
from functools import cache

from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.quantities import number_words

_REPEAT = re.compile(r"\b((?:\w+ ){0,4}\w+) \1\b")
"""A phrase of up to five words said twice in a row ("the the plate", "the control room the control room")."""
_PARENTHESIS = re.compile(r"\s*\([^()]*\)")
_LIST_MARK = re.compile(r"\s*\(\d{1,2}\)\s+")
_BULLET = re.compile(r"(?:^|(?<=\n))[ \t]*[-*\u2022\u2023\u25aa\u25e6][ \t]+(?=\S)")
"""A bulleted list's marks at the start of a line ("- push the red cube left 2 cm"): each item a clause."""


def _alternation(phrases: list[str]) -> str:
    return "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))


class _Patterns:
    """The lexicon's spoken-language words as compiled patterns."""

    def __init__(self, lexicon: Lexicon) -> None:
        # the words of an amount: "like thirty seconds" is hedged, "fifteen no twenty" corrected
        self.number_words = frozenset((*number_words(), *lexicon.number_parts))
        self.fillers = (
            re.compile(rf"(?<![\w-])(?:{_alternation(lexicon.fillers)})(?![\w-])\s*") if lexicon.fillers else None
        )
        self.hedges = (
            re.compile(
                rf"(?<![\w-])(?:{_alternation(lexicon.amount_hedges)})\s+(?=\d|(?:{'|'.join(self.number_words)})\b)"
            )
            if lexicon.amount_hedges
            else None
        )
        # "follow me but like stay two metres back": a hedge after a conjunction softens what follows, dropped
        self.joined_hedges = (
            re.compile(rf"\b(but|and|so|then|or),?\s+(?:{_alternation(lexicon.amount_hedges)})\b,?\s*")
            if lexicon.amount_hedges
            else None
        )
        marks = _alternation([*lexicon.corrections, "no"])
        words = lexicon.correction_words
        openers, followers = alternatives(words.openers), alternatives(words.followers)
        # "sorry, no, ...", "no, wait, ...": markers said in a row, commas between them, are one
        self.corrections = re.compile(
            rf",?\s*\b(?:(?:{openers}),?\s+)?(?:{marks})\b(?:,?\s+(?:{marks}|{followers})\b)*,?\s+"
        )
        self.negations = frozenset(words.negations)
        self.determiners = frozenset(words.determiners)
        self.phrase_starts = self.determiners | frozenset(words.prepositions)
        labels = _alternation(lexicon.enumerators) if lexicon.enumerators else r"(?!x)x"
        # "WO-5531 item 1:", "Task 3 -", "Test 4:" at the start of a sentence (the mark after the number is
        # what makes it a label: "step 2 metres back" keeps its words); "1." and "3)" before a step.
        self.enumerators = re.compile(
            rf"(?:^|(?<=[.;:!?,]\s)|(?<=\n))\s*(?:(?:{labels})\s*-?\s*#?\d+[a-z]?\s*(?:of\s+(?:the\s+)?\w+\s*)?)+"
            r"[:.)\-,]\s+"
            r"|(?:^|(?<=[.;:!?]\s)|(?<=\n))\s*#?\d{1,2}[.)]\s+",
            re.IGNORECASE,
        )
        # "Start of shift, line 2:", "End-of-shift routine:": a heading before a colon, dropped when it has a
        # heading word and is short (a place before a colon, "kitchen: wipe the counter", says where; it stays)
        heads = _alternation(lexicon.heading_words) if lexicon.heading_words else r"(?!x)x"
        self.heading = re.compile(
            rf"^\s*(?=[^:\n]*?(?<![\w-])(?:{heads})(?![\w-]))(?:[^:\n\s]+\s*){{1,10}}?:\s+(?=\S)", re.IGNORECASE
        )
        self.inline_numbers = re.compile(r"(?<=[a-z_]\s)#?\d{1,2}\)\s+")  # "1) go to the bin 2) empty it"
        signs = _alternation(lexicon.call_signs) if lexicon.call_signs else r"(?!x)x"
        # "unit two, ...", "base to unit four, ...": who is called, not what is asked
        self.call_sign = re.compile(rf"^(?:(?:\w+ ){{0,2}}to )?(?:{signs}) \w+$")
        self.procedure = frozenset(lexicon.procedure_words)
        # "okay sweetie, ...", "arm, ...": whom the words are for, after any opening filler ("okay", "hey")
        lead = _alternation(lexicon.filler_prefixes) if lexicon.filler_prefixes else r"(?!x)x"
        said_to = _alternation(lexicon.addresses) if lexicon.addresses else r"(?!x)x"
        self.address = re.compile(rf"^(?:(?:{lead}) )*(?:{said_to})$")
        # "dear robot, ...", "..., kind regards, m okafor": a letter's greeting and sign-off
        openings = _alternation(lexicon.letter_openings) if lexicon.letter_openings else r"(?!x)x"
        self.opening = re.compile(rf"^(?:{openings})(?: [a-z]+){{0,3}}?, ")
        closings = _alternation(lexicon.letter_closings) if lexicon.letter_closings else r"(?!x)x"
        self.closing = re.compile(rf",\s*(?:{closings})(?P<name>(?:,?\s+[a-z]+){{0,3}})$")
        self.not_names = lexicon.verb_words() | frozenset(lexicon.joiners) | {"then", "after", "also", "please"}
        # "arm, this is ops, ...": the caller says who speaks, not what to do
        self.identification = re.compile(rf"^this is (?!(?:{alternatives(lexicon.not_names)})\b)\w+(?: \w+)?$")


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


def strip_enumerators(task: str) -> str:
    """The task without a heading, list numbers and work-order labels, and without what it says in parentheses."""
    patterns = _patterns()
    task = _BULLET.sub(", ", task)
    task = patterns.heading.sub("", task.strip(" ,"), count=1)
    task = _LIST_MARK.sub(", ", task)  # "(1) pump house (2) boiler room": a list, not a remark in brackets
    task = _numbered_on_one_line(task)
    listed = patterns.inline_numbers.sub(", then ", _PARENTHESIS.sub("", task))
    return patterns.enumerators.sub(", ", listed).strip(" ,")


def _numbered_on_one_line(task: str) -> str:
    """ "1. light off 2. shut the door 3. wait 10 s": the items of a list numbered on one line, when its numbers
    run 1, 2, 3 from its start (a lone "10." ends a sentence about ten of something, and stays)."""
    if re.match(r"^\s*1[.)]\s", task) is None:
        return task
    number, start = 2, 0
    while (mark := re.compile(rf"(?<=\s){number}[.)]\s+(?:then\s+)?").search(task, start)) is not None:
        head = f"{task[: mark.start()].rstrip()}, then "
        task, start = head + task[mark.end() :], len(head)  # the next number comes after this one
        number += 1
    return task


def dropped_heading(task: str) -> str:
    """The heading ``strip_enumerators`` drops ("Night round:", "do 10 patrol rounds:"), without its colon;
    "" when there is none. A reading may want it back: a list of places under it says what is asked of them."""
    found = _patterns().heading.match(task)
    return found.group().strip().rstrip(":").strip() if found is not None else ""


def tidy(text: str) -> str:
    """A normalised task (lower case, commas) without fillers, call signs, repeats and corrected words."""
    patterns = _patterns()
    text = _unframed(text)
    if patterns.fillers is not None:
        text = patterns.fillers.sub("", text)
    if patterns.hedges is not None:
        text = patterns.hedges.sub("", text)  # "like thirty seconds"
    if patterns.joined_hedges is not None:
        text = patterns.joined_hedges.sub(r"\1 ", text)  # "follow me but like stay back"
    # call signs and procedure words ("..., over") first, so that a clause ending in "at" keeps its end
    parts = [
        p
        for p in text.split(", ")
        if not patterns.call_sign.fullmatch(p.strip())
        and not patterns.identification.fullmatch(p.strip())
        and not patterns.address.fullmatch(p.strip())
        and p.strip() not in patterns.procedure
    ]
    text = ", ".join(p for p in parts if p.strip())
    # "and then, er, hoover", "would you, um, pour": the filler's commas go with it
    text = re.sub(
        r"\b(and|then|or|for|to|of|at|with|(?:would|could|can|will) you(?: maybe)?(?: like)?)\s*(?:,\s*)+", r"\1 ", text
    )
    text = _corrected(text)
    previous = None
    while previous != text:
        previous, text = text, _REPEAT.sub(r"\1", text)
    return " ".join(text.split()).strip(" ,")


def _unframed(text: str) -> str:
    """A request written as a letter without its greeting and its sign-off ("dear robot, could you ..., kind
    regards, priya"); a sign-off's name is at most three words none of which asks for anything ("..., thanks,
    then go home" keeps its last request)."""
    patterns = _patterns()
    text = patterns.opening.sub("", text, count=1)
    found = patterns.closing.search(text)
    if found is not None and not set(found["name"].replace(",", " ").split()) & patterns.not_names:
        text = text[: found.start()]
    return text


def _corrected(text: str) -> str:
    """Each self-correction applied within its clause: what follows the marker replaces what it repeats."""
    patterns = _patterns()
    pattern = patterns.corrections
    start = 0
    while (found := pattern.search(text, start)) is not None:
        head_end = text.rfind(", ", 0, found.start())
        head, before_text = (
            (text[: head_end + 2], text[head_end + 2 : found.start()]) if head_end >= 0 else ("", text[: found.start()])
        )
        tail_start = text.find(", ", found.end())
        after_text, tail = (
            (text[found.end() : tail_start], text[tail_start:]) if tail_start >= 0 else (text[found.end() :], "")
        )
        if after_text.startswith("not ") and tail.startswith(", ") and (negated := after_text[4:].split()):
            # "drop it on the plate, no wait, not the plate, the bowl": what follows the "not" phrase replaces it
            instead, _, rest = tail[2:].partition(", ")
            words = before_text.split()
            if words[-len(negated) :] == negated and instead.split(" ", 1)[0] in patterns.determiners:
                text = head + " ".join([*words[: -len(negated)], *instead.split()])
                text += f", {rest}" if rest else ""
                start = 0
                continue
        replaced = _replace(before_text.split(), after_text.split(), bare=found.group().strip(" ,") == "no")
        if replaced is None:
            start = found.end()
            continue
        text = head + " ".join(replaced) + tail
        start = 0
    return text


def _replace(before: list[str], after: list[str], *, bare: bool) -> list[str] | None:
    if not before or not after:
        return None
    first = after[0]
    phrases = sum(word in _patterns().determiners for word in before)
    if len(after) > 1 and first in _patterns().determiners and after[-1] in ("one", "ones") and phrases > 1:
        return None  # "put the red cube in the bowl, no wait, the blue one": the cube or the bowl? Not guessed
    if len(after) > 1 and first in _patterns().determiners and after[-1] in before:
        # "put the red cube in the bowl, no wait, the blue cube": the phrase with the same noun is corrected
        at = len(before) - 1 - before[::-1].index(after[-1])
        start = max((i for i in range(at + 1) if before[i] in _patterns().determiners), default=at)
        return before[:start] + after + before[at + 1 :]
    if first in before:
        cut = len(before) - 1 - before[::-1].index(first)
        later = set(before[cut + 1 :]) & (_patterns().phrase_starts - _patterns().determiners)
        if first in _patterns().determiners and later:
            return None  # "take the risotto to table 4, no, the salad": the dish or the table? Not guessed
        return before[:cut] + after
    if _is_number(first):
        numbers = [i for i, word in enumerate(before) if _is_number(word)]
        if numbers:
            return before[: numbers[-1]] + after
    if bare:
        return None  # "no" alone corrects only what it visibly repeats
    if first in _patterns().negations:
        return before
    if len(after) > 1:  # "control room, no wait, corridor b": a phrase replaces the phrase, not its last word
        starts = [i for i, word in enumerate(before) if word in _patterns().phrase_starts]
        return before[: starts[-1] + 1] + after if starts else after
    return before[:-1] + after


def _is_number(word: str) -> bool:
    return word in _patterns().number_words or bool(re.fullmatch(r"\d+(?:\.\d+)?", word))

"""The rule every text field follows: no control characters, so text is safe in prompts, terminals and ROS.

Text from config files, knowledge bundles and task goals ends up in model
prompts, log lines, terminals and ROS string fields. A NUL truncates it in C
code, an ANSI escape (``ESC [``) rewrites a terminal, a carriage return hides
what came before it. So every text field refuses Unicode control characters
(category ``Cc``: C0, DEL and C1), except tab and newline in fields that hold
prose (descriptions, bodies, tasks). ``Line`` and ``Text`` are the two field
types; ``control_character_problem`` is the check itself, for callers that
walk data rather than validate a model (the YAML loader, the task intake).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator

PROSE_WHITESPACE = "\t\n"
"""The only control characters prose fields may hold."""


def find_control_character(text: str, allowed: str = "") -> int | None:
    """The index of the first control character in ``text`` not in ``allowed``, or None."""
    for index, char in enumerate(text):
        if char not in allowed and unicodedata.category(char) == "Cc":
            return index
    return None


def control_character_problem(text: str, allowed: str = "") -> str | None:
    """Why ``text`` is refused (the first control character, named with where it is), or None if it is clean."""
    index = find_control_character(text, allowed)
    if index is None:
        return None
    char = text[index]
    name = unicodedata.name(char, "") or _C0_NAMES.get(ord(char), "C1 control" if ord(char) >= 0x80 else "C0 control")
    return f"control character U+{ord(char):04X} ({name}) at character {index + 1}; {_allowance(allowed)}"


def _allowance(allowed: str) -> str:
    if not allowed:
        return "this field is one line of text without control characters"
    return "text may hold tab and newline but no other control characters"


_C0_NAMES = {
    0x00: "NUL",
    0x07: "BEL",
    0x08: "BACKSPACE",
    0x09: "TAB",
    0x0A: "LINE FEED",
    0x0D: "CARRIAGE RETURN",
    0x1B: "ESC",
    0x7F: "DEL",
}
"""unicodedata has no names for control characters; these are the ones worth naming."""


def _line(value: str) -> str:
    problem = control_character_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _text(value: str) -> str:
    problem = control_character_problem(value, PROSE_WHITESPACE)
    if problem is not None:
        raise ValueError(problem)
    return value


Line = Annotated[str, AfterValidator(_line)]
"""A one-line text field (a name, a label): no control characters at all."""

Text = Annotated[str, AfterValidator(_text)]
"""A prose field (a description, a body): tab and newline allowed, no other control characters."""

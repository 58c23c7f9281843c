"""The compact-JSON grammar generator: what it refuses rather than translate loosely.

Its output is checked against the real llama.cpp server in test_local_model.py
(a reply under the grammar is compact JSON valid against the plan schema).
"""

from __future__ import annotations

import pytest

from bt_executive.llm.model.compact_grammar import GrammarUnsupported, compact_grammar


def test_a_keyword_it_cannot_express_is_refused_not_dropped() -> None:
    schema = {"type": "object", "properties": {"speed": {"type": "number", "minimum": 0}}, "required": ["speed"]}
    with pytest.raises(GrammarUnsupported, match=r"minimum"):
        compact_grammar(schema)


def test_optional_members_only_never_open_with_a_comma() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}},
        "additionalProperties": False,
    }
    root = compact_grammar(schema).splitlines()[1]
    a, b = '"\\"a\\":" ("true" | "false")', '"\\"b\\":" ("true" | "false")'
    assert root == f'plan ::= "{{" ({a} ("," {b})? | {b})? "}}"'

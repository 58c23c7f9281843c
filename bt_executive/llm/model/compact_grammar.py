"""A GBNF grammar for the structured plan, in compact JSON: no whitespace for a small model to spend tokens on.

llama.cpp turns a ``response_format`` JSON Schema into a grammar that allows
a newline and up to twenty spaces or tabs between every two tokens, and
SmolLM2 uses them: half of a 100-token plan was indentation, at ~60 tokens a
second on two cores. The same schema as a grammar of our own, sent in the
request's ``grammar`` field (a llama.cpp server extension), admits exactly
one spelling of each plan::

    {"steps":[{"skill":"tabletop/pick","args":{"object":"red_cube"}}]}

Only the schema subset ``plan_schema`` produces is covered: objects with
known properties (required ones in order, optional ones after them, each
optional), ``const``, string ``enum``, strings with ``maxLength``, integers,
numbers, booleans, arrays with ``maxItems`` and ``oneOf``. Anything else is a
``GrammarUnsupported`` error, and the planner sends ``response_format``
instead.
"""

from __future__ import annotations

import json
from typing import Any

_STRING_CHAR = r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'
_UNBOUNDED_STRING = 1000
"""The longest free string without a ``maxLength``: ``max_tokens`` ends a reply before it anyway."""


class GrammarUnsupported(ValueError):
    """The schema uses a construct this generator does not translate."""


def _literal(text: str) -> str:
    """A GBNF literal matching ``text`` exactly."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Rules:
    """Named rules, added as the schema is walked; the first is the root."""

    def __init__(self) -> None:
        self.rules: dict[str, str] = {}
        self.needs_char = False

    def add(self, name: str, body: str) -> str:
        self.rules[name] = body
        return name

    def text(self) -> str:
        lines = [f"{name} ::= {body}" for name, body in self.rules.items()]
        if self.needs_char:
            lines.append(f"char ::= {_STRING_CHAR}")
        return "\n".join(lines) + "\n"


def _json_literal(value: Any) -> str:
    return _literal(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


_UNDERSTOOD = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "const", "enum", "oneOf", "items", "maxItems",
        "maxLength", "minLength", "description", "title", "default", "examples",
    }
)  # fmt: skip
"""Keywords this generator honours or may ignore; any other (pattern, minimum...) is refused, not dropped."""


def _value(schema: Any, rules: _Rules, name: str) -> str:
    """An expression (usually a rule name) for values valid against ``schema``."""
    if not isinstance(schema, dict):
        raise GrammarUnsupported(f"{name}: schema {schema!r} is not an object")
    unknown = sorted(set(schema) - _UNDERSTOOD)
    if unknown:
        raise GrammarUnsupported(f"{name}: no grammar for the keywords {unknown}")
    if "const" in schema:
        return _json_literal(schema["const"])
    if "enum" in schema:
        return "(" + " | ".join(_json_literal(v) for v in schema["enum"]) + ")"
    if "oneOf" in schema:
        options = [_value(branch, rules, f"{name}-{n}") for n, branch in enumerate(schema["oneOf"])]
        return rules.add(name, " | ".join(options))
    kind = schema.get("type")
    if kind == "object":
        return _object(schema, rules, name)
    if kind == "array":
        items = _value(schema.get("items", {}), rules, f"{name}-item")
        most = schema.get("maxItems")
        more = f'("," {items}){{0,{most - 1}}}' if most is not None else f'("," {items})*'
        if most == 0:
            return rules.add(name, '"[" "]"')
        return rules.add(name, f'"[" ({items} {more})? "]"')
    if kind == "string":
        most = int(schema.get("maxLength", _UNBOUNDED_STRING))
        least = int(schema.get("minLength", 0))
        rules.needs_char = True
        return rules.add(name, f'"\\"" char{{{least},{most}}} "\\""')
    if kind == "integer":
        return rules.add(name, '"-"? ("0" | [1-9] [0-9]{0,15})')
    if kind == "number":
        return rules.add(name, '"-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})?')
    if kind == "boolean":
        return '("true" | "false")'
    raise GrammarUnsupported(f"{name}: no grammar for {json.dumps(schema)[:120]}")


def _object(schema: dict[str, Any], rules: _Rules, name: str) -> str:
    properties: dict[str, Any] = schema.get("properties", {})
    if schema.get("additionalProperties", True) is not False and not properties:
        raise GrammarUnsupported(f"{name}: an object without listed properties")
    required = [p for p in properties if p in schema.get("required", ())]
    optional = [p for p in properties if p not in required]

    def member(prop: str) -> str:
        return f"{_literal(json.dumps(prop) + ':')} {_value(properties[prop], rules, f'{name}-{_slug(prop)}')}"

    first = ' "," '.join(member(p) for p in required)
    later = [f'("," {member(p)})?' for p in optional]
    if first:
        body = " ".join([first, *later])
    elif optional:
        # No member is required: whichever optional one comes first has no comma before it.
        firsts = [" ".join([member(p), *later[n + 1 :]]) for n, p in enumerate(optional)]
        body = "(" + " | ".join(firsts) + ")?"
    else:
        body = ""
    return rules.add(name, f'"{{" {body} "}}"' if body else '"{" "}"')


def _slug(text: str) -> str:
    """A rule-name part: GBNF names are letters, digits and dashes."""
    return "".join(c if c.isalnum() else "-" for c in text).strip("-") or "x"


def compact_grammar(schema: dict[str, Any]) -> str:
    """The GBNF grammar of ``schema``'s values written as compact JSON; GrammarUnsupported if it cannot."""
    rules = _Rules()
    rules.add("root", "")  # keeps root first; filled in below
    rules.rules["root"] = _value(schema, rules, "plan")
    return rules.text()

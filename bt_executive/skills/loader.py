"""Reading YAML config as data: safe, strict, and with errors that name file and field.

Everything a user writes for the executive (skill manifests, robot
profiles, scenes, recovery tables) is read through here. The YAML loader is
PyYAML's safe loader tightened further: no tags that construct Python
objects (safe_load already refuses them), no aliases (a manifest never needs
one, and they allow "billion laughs" blow-ups), no duplicate keys (PyYAML
would silently keep the last). Files are opened through ``safe_files`` (no
symlink out of the file's folder, no loops, regular files only, bounded
size), and every string in the parsed data follows the text rule of
``text_rules`` (no control characters but tab and newline; none in field
names). Anything that goes wrong, from a non-UTF-8 byte to a recursion
limit, becomes a ``ManifestError`` naming the file and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
import yaml.reader
from pydantic import BaseModel, ValidationError
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node

from bt_executive.skills.errors import ManifestError, Problem
from bt_executive.skills.safe_files import read_bounded
from bt_executive.skills.text_rules import PROSE_WHITESPACE, control_character_problem

MAX_FILE_BYTES = 256 * 1024
"""A manifest is a page of YAML; anything far bigger is a mistake or an attack."""

_M = TypeVar("_M", bound=BaseModel)


_SafeBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser when PyYAML was built with it (several times faster); same safe constructor."""


class _StrictSafeLoader(_SafeBase):  # type: ignore[valid-type, misc]
    """Safe loader that refuses aliases and duplicate mapping keys.

    Both checks live in the (Python) constructor, so they hold with libyaml's
    C parser too: an alias shows up as a node constructed a second time.
    """

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        if node in self.constructed_objects:
            reason = "aliases (*name) are not allowed in config files; the anchored node is here"
            raise ConstructorError(None, None, reason, node.start_mark)
        return super().construct_object(node, deep=deep)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        self.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in mapping
            except TypeError:
                raise ConstructorError(None, None, f"unhashable mapping key {key!r}", key_node.start_mark) from None
            if duplicate:
                raise ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def read_yaml_mapping(path: Path, *, root: Path | None = None) -> dict[str, Any]:
    """Read a YAML file whose top level is a mapping, or raise ManifestError.

    The file is opened through ``safe_files``: a symlink must stay inside
    ``root`` (default: the file's own directory), loops and non-regular files
    are refused, and at most ``MAX_FILE_BYTES`` are read.
    """
    source = str(path)
    raw = read_bounded(path, MAX_FILE_BYTES, root=root)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ManifestError.single(source, "(file)", f"not UTF-8: byte {err.start} is {raw[err.start]:#04x}") from None
    return parse_yaml_mapping(text, source)


def parse_yaml_mapping(text: str, source: str) -> dict[str, Any]:
    """Parse YAML text (named ``source`` in errors) whose top level must be a mapping."""
    try:
        data = yaml.load(text, Loader=_StrictSafeLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(yaml)"
        raise ManifestError.single(source, where, f"invalid YAML: {err.problem or err.context}") from None
    except yaml.reader.ReaderError as err:  # a raw control character in the file itself
        line = text.count("\n", 0, err.position) + 1
        column = err.position - (text.rfind("\n", 0, err.position) + 1) + 1
        code = err.character if isinstance(err.character, int) else ord(err.character)
        reason = f"character U+{code:04X} written raw in the file: {err.reason}"
        raise ManifestError.single(source, f"line {line}, column {column}", reason) from None
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as err:
        raise ManifestError.single(source, "(yaml)", f"invalid YAML: {type(err).__name__}: {err}") from None
    if data is None:
        raise ManifestError.single(source, "(file)", "empty file")
    if not isinstance(data, dict):
        raise ManifestError.single(source, "(root)", f"expected a mapping of fields, got {type(data).__name__}")
    bad_keys = [k for k in data if not isinstance(k, str)]
    if bad_keys:
        raise ManifestError.single(source, "(root)", f"field names must be strings, got {bad_keys[0]!r}")
    problem = first_control_character(data)
    if problem is not None:
        raise ManifestError.single(source, *problem)
    return data


def first_control_character(data: Any) -> tuple[str, str] | None:
    """The first text in parsed YAML breaking the text rule, as (field path, reason); None if all is clean.

    Every string value may hold tab and newline (prose); a mapping key is a
    name and may hold no control character at all. Model fields can be
    stricter (``text_rules.Line``); this walk is the floor for every field of
    every config file, including free-form ones such as ``default_goal``.
    Iterative, so a deeply nested file is not a RecursionError here.
    """
    stack: list[tuple[tuple[int | str, ...], Any]] = [((), data)]
    while stack:
        loc, item = stack.pop()
        if isinstance(item, str):
            reason = control_character_problem(item, PROSE_WHITESPACE)
            if reason is not None:
                return format_field_path(loc), reason
        elif isinstance(item, dict):
            children: list[tuple[tuple[int | str, ...], Any]] = []
            for key, value in item.items():
                if isinstance(key, str):
                    reason = control_character_problem(key)
                    if reason is not None:
                        return format_field_path(loc), f"field name {key!r}: {reason}"
                children.append(((*loc, key if isinstance(key, str) else str(key)), value))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend(reversed([((*loc, index), value) for index, value in enumerate(item)]))
    return None


def validate_model(data: dict[str, Any], model: type[_M], source: str) -> _M:
    """Validate a mapping into ``model``; every pydantic error becomes a Problem naming its field."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise ManifestError(problems_from_validation(err, source)) from None
    except RecursionError:
        raise ManifestError.single(source, "(root)", "nested too deeply") from None


def problems_from_validation(err: ValidationError, source: str) -> list[Problem]:
    """Turn a pydantic ValidationError into Problems with dotted field paths."""
    problems = []
    for item in err.errors(include_url=False):
        problems.append(Problem(source, format_field_path(item["loc"]), _reason(item)))
    return problems


def format_field_path(loc: tuple[int | str, ...]) -> str:
    """``("ros", "default_goal", 2)`` -> ``ros.default_goal[2]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(root)"


_PATTERN_HINTS = {
    "id": "must be owner/name: lower-case letters, digits, _ and -",
    "action_type": "must be a ROS action type like pkg/action/Name",
    "action_name": "must be a ROS name like skills/pick",
    "policy": "must be the name of an installed bt_executive.policies entry point, never a Python path",
    "endpoint": "must be a ws:// or wss:// URL",
    "version": "must be a semantic version like 1.2.0",
}


def _reason(item: Any) -> str:
    msg = str(item["msg"])
    if item["type"] == "string_pattern_mismatch":
        field = next((p for p in reversed(item["loc"]) if isinstance(p, str)), "")
        hint = _PATTERN_HINTS.get(field)
        shown = repr(item["input"])
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return f"{shown} {hint}" if hint else msg
    if item["type"] == "extra_forbidden":
        return "unknown field (not part of the schema; check the spelling)"
    if item["type"] == "missing":
        return "required field is missing"
    return msg.removeprefix("Value error, ")


def load_model(path: Path, model: type[_M], *, root: Path | None = None) -> _M:
    """Read a YAML file (a symlink staying inside ``root``, default its directory) and validate it into ``model``."""
    return validate_model(read_yaml_mapping(path, root=root), model, str(path))

"""ROS goal messages from skill calls, and ROS messages back to plain data.

A manifest's ``ros`` block names an action type by its ROS interface name
(``pkg/action/Name``) and says, in ``field_mapping``, which goal field each
value fills::

    field_mapping:                      goal message
      skill_id: $skill          ->      skill_id  = "tabletop/pick"
      args_json: $args_json     ->      args_json = '{"grasp": {...}, "object": "red_cube"}'
      prompt: $prompt           ->      prompt    = call.prompt or ""
      target.x: place.x         ->      target.x  = merged_args["place"]["x"]

Goal fields are dotted paths into nested messages; sources are ``$skill``,
``$args_json``, ``$prompt`` or a dotted path into the merged arguments (an
absent optional argument leaves the field at its message default). An empty
mapping assigns each merged argument to the goal field of the same name.
Values are coerced to the field's ROS type (an integer fills a ``double``; a
mapping fills a nested message; a list fills a sequence), and anything that
does not fit is a ``GoalBuildError`` naming the field, raised before a goal
is sent.

The action type is imported from its interface name only (``pkg.action``,
attribute ``Name``); the name pattern is already checked by the manifest, so
no manifest can make this import arbitrary code.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import JsonValue

from bt_executive.skills.call import SkillCall
from bt_executive.skills.manifest import RosBinding

_ACTION_TYPE = re.compile(r"^([a-z][a-z0-9_]*)/action/([A-Z][A-Za-z0-9]*)$")
_MESSAGE_TYPE = re.compile(r"^([a-z][a-z0-9_]*)/(?:msg/)?([A-Z][A-Za-z0-9]*)$")
_SEQUENCE = re.compile(r"^sequence<(.+?)(?:, *\d+)?>$")
_ARRAY = re.compile(r"^(.+)\[\d+\]$")
_BOUNDED_STRING = re.compile(r"^w?string<=\d+$")

_FLOATS = frozenset({"float", "double", "long double", "float32", "float64"})
_INTS = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "byte", "octet"})
_STRINGS = frozenset({"string", "wstring"})

SKILL_SOURCE = "$skill"
ARGS_JSON_SOURCE = "$args_json"
PROMPT_SOURCE = "$prompt"


class GoalBuildError(ValueError):
    """A goal cannot be built from the call: a field is missing from the message or a value does not fit it."""


def import_action_type(name: str) -> Any:
    """The generated action class for ``pkg/action/Name`` (its Goal, Result and Feedback types)."""
    match = _ACTION_TYPE.match(name)
    if match is None:
        raise ValueError(f"{name!r} is not a ROS action type name like pkg/action/Name")
    package, action = match.groups()
    try:
        module = importlib.import_module(f"{package}.action")
    except ImportError as err:
        raise ImportError(f"action type {name}: interface package {package!r} is not installed ({err})") from err
    action_type = getattr(module, action, None)
    if action_type is None or not all(hasattr(action_type, part) for part in ("Goal", "Result", "Feedback")):
        raise ImportError(f"action type {name}: {package}.action has no action named {action}")
    return action_type


def goal_values(binding: RosBinding, call: SkillCall, merged_args: Mapping[str, Any]) -> dict[str, Any]:
    """Goal field path -> value, as ``field_mapping`` says (no ROS types involved)."""
    mapping = binding.field_mapping or {name: name for name in merged_args}
    values: dict[str, Any] = {}
    for field, source in mapping.items():
        if source == SKILL_SOURCE:
            values[field] = call.skill
        elif source == ARGS_JSON_SOURCE:
            values[field] = json.dumps(merged_args, sort_keys=True)
        elif source == PROMPT_SOURCE:
            values[field] = call.prompt or ""
        else:
            found, value = _lookup(merged_args, source)
            if found:
                values[field] = value
    return values


def _lookup(data: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def build_goal(goal_type: Any, values: Mapping[str, Any]) -> Any:
    """A ``goal_type`` message with each dotted field path in ``values`` set, coerced to the field's type."""
    goal = goal_type()
    for path, value in values.items():
        parent = goal
        parts = path.split(".")
        for depth, part in enumerate(parts[:-1]):
            field_type = _field_types(parent).get(part)
            if field_type is None or _MESSAGE_TYPE.match(field_type) is None:
                where = ".".join(parts[: depth + 1])
                raise GoalBuildError(f"goal field {where!r} is not a nested message in {type(goal).__name__}")
            parent = getattr(parent, part)
        _assign(parent, parts[-1], value, path)
    return goal


def _field_types(message: Any) -> dict[str, str]:
    fields: dict[str, str] = message.get_fields_and_field_types()
    return fields


def _assign(message: Any, name: str, value: Any, path: str) -> None:
    field_type = _field_types(message).get(name)
    if field_type is None:
        raise GoalBuildError(f"{type(message).__name__} has no field {name!r} (goal field {path!r})")
    coerced = _coerce(field_type, value, path, getattr(message, name))
    try:
        setattr(message, name, coerced)
    except (AssertionError, TypeError, ValueError) as err:  # rosidl setters check ranges with assert
        raise GoalBuildError(f"goal field {path!r} ({field_type}) cannot hold {value!r}: {err}") from None


def _coerce(field_type: str, value: Any, path: str, current: Any = None) -> Any:
    """``value`` as the Python value a rosidl setter accepts for ``field_type``."""
    if field_type == "boolean":
        if isinstance(value, bool):
            return value
    elif field_type in _FLOATS:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif field_type in _INTS:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif field_type in _STRINGS or _BOUNDED_STRING.match(field_type) or field_type == "char":
        if isinstance(value, str):
            return value
    elif (element := _element_type(field_type)) is not None:
        if isinstance(value, list | tuple):
            return [_coerce(element, item, f"{path}[{index}]") for index, item in enumerate(value)]
    elif _MESSAGE_TYPE.match(field_type) and isinstance(value, Mapping):
        message = current if current is not None else _message_class(field_type, path)()
        for key, item in value.items():
            _assign(message, str(key), item, f"{path}.{key}")
        return message
    raise GoalBuildError(f"goal field {path!r} is {field_type}, got {type(value).__name__} {value!r}")


def _element_type(field_type: str) -> str | None:
    match = _SEQUENCE.match(field_type) or _ARRAY.match(field_type)
    return match.group(1) if match else None


def _message_class(field_type: str, path: str) -> Any:
    match = _MESSAGE_TYPE.match(field_type)
    if match is None:
        raise GoalBuildError(f"goal field {path!r}: {field_type} is not a message type")
    package, name = match.groups()
    try:
        return getattr(importlib.import_module(f"{package}.msg"), name)
    except (ImportError, AttributeError) as err:
        raise GoalBuildError(f"goal field {path!r}: cannot import {field_type} ({err})") from None


def message_to_data(message: Any) -> dict[str, JsonValue]:
    """A ROS message as JSON-ready data: nested messages become dicts, arrays become lists."""
    return {name: _to_data(getattr(message, name)) for name in _field_types(message)}


def _to_data(value: Any) -> JsonValue:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes):
        return value.hex()
    if hasattr(value, "get_fields_and_field_types"):
        return message_to_data(value)
    if hasattr(value, "tolist"):  # numpy arrays and scalars (fixed-size arrays)
        return _to_data(value.tolist())
    if isinstance(value, list | tuple) or hasattr(value, "__iter__"):  # lists, array.array (sequences)
        return [_to_data(item) for item in value]
    return str(value)

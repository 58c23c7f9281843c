"""Goal parameters: a call's arguments checked against the skill's schema, then merged over defaults.

Validation happens before anything moves: a bad argument is an
``invalid_params`` failure naming the JSON path, never a goal on the wire.
Merging follows one rule set everywhere (DESIGN.md): leaves replace, dicts
recurse, arrays replace whole.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import ValidationError as SchemaValidationError
from jsonschema.validators import Draft202012Validator, validator_for

from bt_executive.skills.loader import format_field_path
from bt_executive.skills.manifest import SkillManifest


class InvalidArguments(ValueError):
    """A call's arguments do not match the skill's schema; ``errors`` holds (path, reason) pairs."""

    def __init__(self, skill: str, errors: list[tuple[str, str]]) -> None:
        self.skill = skill
        self.errors = errors
        listed = "; ".join(f"{path}: {reason}" for path, reason in errors)
        super().__init__(f"invalid arguments for {skill}: {listed}")


def argument_errors(schema: Mapping[str, Any] | None, args: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every way ``args`` breaks ``schema``, as (JSON path, reason), sorted by path."""
    if schema is None:
        return [] if not args else [("$", "this skill takes no arguments, only a prompt")]
    return sorted((err.json_path, err.message) for err in _schema_errors(schema, args))


def field_errors(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every way ``args`` breaks ``schema``, as (field, reason), sorted by field.

    The field is the dotted name of the argument at fault, as manifest errors
    name fields (``grasp.lift_height``); a missing or unexpected argument is
    named itself rather than the object that lacks or holds it, so a caller
    reading only the field still knows which one to fix.
    """
    return sorted((_field_name(err), err.message) for err in _schema_errors(schema, args))


def _schema_errors(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[SchemaValidationError]:
    cls = validator_for(schema, default=Draft202012Validator)
    return list(cls(schema).iter_errors(dict(args)))


def _field_name(err: SchemaValidationError) -> str:
    """The dotted path of the value at fault, ending in the property ``required`` or ``additionalProperties`` names."""
    loc: list[int | str] = list(err.absolute_path)
    instance = err.instance
    if err.validator == "required" and isinstance(instance, Mapping) and isinstance(err.validator_value, list):
        missing = [p for p in err.validator_value if p not in instance]
        # jsonschema reports each missing property as its own error, quoting it in the message.
        loc += [next((p for p in missing if repr(p) in err.message), missing[0])] if missing else []
    elif err.validator == "additionalProperties" and isinstance(instance, Mapping):
        known = err.schema.get("properties", {}) if isinstance(err.schema, Mapping) else {}
        loc += [key for key in instance if key not in known][:1]
    return format_field_path(tuple(loc))


def validate_arguments(manifest: SkillManifest, args: Mapping[str, Any]) -> None:
    """Raise InvalidArguments unless ``args`` is valid for ``manifest``."""
    errors = argument_errors(manifest.parameters, args)
    if errors:
        raise InvalidArguments(manifest.id, errors)


def schema_defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Each property's ``default`` in an object schema, recursing into object properties that give none."""
    defaults: dict[str, Any] = {}
    props = schema.get("properties", {})
    for name, prop in props.items() if isinstance(props, Mapping) else ():
        if not isinstance(prop, Mapping):
            continue
        if "default" in prop:
            defaults[name] = copy.deepcopy(prop["default"])
        elif prop.get("type") == "object" and (nested := schema_defaults(prop)):
            defaults[name] = nested
    return defaults


def merge_goal(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Merge ``overrides`` over ``defaults``: leaves replace, dicts recurse, arrays replace whole.

    Neither input is modified; the result shares no mutable value with them.
    """
    merged: dict[str, Any] = copy.deepcopy(dict(defaults))
    for key, value in overrides.items():
        current = merged.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = merge_goal(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def argument_at(args: Mapping[str, Any], param: str) -> Any:
    """The value of ``param`` in a call's arguments, a nested one by its dotted path ("grasp.approach_height");
    None when absent."""
    value: Any = args
    for name in param.split("."):
        value = value.get(name) if isinstance(value, Mapping) else None
    return value


def with_argument(args: dict[str, Any], param: str, value: Any) -> None:
    """Set ``param`` in ``args`` (a nested one by its dotted path, its objects made as needed)."""
    *outer, last = param.split(".")
    for name in outer:
        inner = args.get(name)
        args = args.setdefault(name, {}) if not isinstance(inner, dict) else inner
    args[last] = value


def goal_arguments(manifest: SkillManifest, args: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a call's arguments and merge them over the manifest's default goal."""
    validate_arguments(manifest, args)
    defaults = manifest.ros.default_goal if manifest.ros is not None else {}
    return merge_goal(defaults, args)

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
    cls = validator_for(schema, default=Draft202012Validator)
    validator = cls(schema)
    errors: list[SchemaValidationError] = list(validator.iter_errors(dict(args)))
    return sorted((err.json_path, err.message) for err in errors)


def validate_arguments(manifest: SkillManifest, args: Mapping[str, Any]) -> None:
    """Raise InvalidArguments unless ``args`` is valid for ``manifest``."""
    errors = argument_errors(manifest.parameters, args)
    if errors:
        raise InvalidArguments(manifest.id, errors)


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


def goal_arguments(manifest: SkillManifest, args: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a call's arguments and merge them over the manifest's default goal."""
    validate_arguments(manifest, args)
    defaults = manifest.ros.default_goal if manifest.ros is not None else {}
    return merge_goal(defaults, args)

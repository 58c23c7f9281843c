"""A scripted skill's arguments, read from its manifest rather than retyped here.

The manifest (``tabletop/<name>``, in ``config/skills/``) is the one
statement of what a skill takes: names, JSON types, bounds and required
fields in ``parameters``; defaults in that schema's ``default`` keywords
and in ``ros.default_goal``. A call's arguments pass through it before the
motion sees them::

    {"object": "red_cube"}                            the call
      │ checked against manifest.parameters           bad: invalid_params naming the field
      ▼
    merged over the manifest's defaults               schema defaults, then ros.default_goal
      ▼                                               (the merge RosActionSkill does)
    PickArgs(object="red_cube", grasp=GraspArgs(approach_height=0.12, lift_height=0.15))

An argument view (an ``ArgumentView`` per skill) names the fields and their
Python types, so a motion reads ``args.grasp.lift_height`` and mypy checks
it; it states no bound and no default. ``check_view`` holds a view to its
manifest: the same fields, matching JSON types, and a default in the
manifest for every field a call may leave out.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue

from bt_executive.sim.execution import SkillFailure
from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.errors import ManifestError, Problem
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.parameters import field_errors, merge_goal, schema_defaults
from bt_executive.skills.registry import SkillRegistry

MANIFEST_OWNER = "tabletop"
"""The owner part of the scripted skills' manifest ids: ``pick`` runs ``tabletop/pick``."""

_JSON_TYPES: dict[object, str] = {str: "string", float: "number", int: "integer", bool: "boolean"}


class ArgumentView(BaseModel):
    """A skill's arguments as its motion reads them, built from values its manifest has checked and defaulted."""

    model_config = ConfigDict(frozen=True, extra="forbid")


_View = TypeVar("_View", bound=ArgumentView)


@functools.cache
def _shipped_skills() -> SkillRegistry:
    """The shipped manifests, read once per process (entry-point bundles are other robots' skills)."""
    return SkillRegistry.discover(default_skill_dirs(), use_entry_points=False)


def scripted_manifest(name: str, view: type[ArgumentView]) -> SkillManifest:
    """The manifest of the scripted skill ``name``, checked against the argument view its motion reads."""
    skills = _shipped_skills()
    skill_id = f"{MANIFEST_OWNER}/{name}"
    manifest = skills.get(skill_id)
    check_view(view, manifest, skills.source(skill_id))
    return manifest


def manifest_defaults(manifest: SkillManifest) -> dict[str, Any]:
    """What a call may leave out: the parameter schema's ``default``s with ``ros.default_goal`` merged over them."""
    goal = manifest.ros.default_goal if manifest.ros is not None else {}
    return merge_goal(schema_defaults(manifest.parameters or {}), goal)


def read_arguments(skill: str, manifest: SkillManifest, view: type[_View], raw: Mapping[str, JsonValue]) -> _View:
    """A call's arguments checked against the manifest's schema, merged over its defaults, as ``view``.

    A bad argument ends the call before anything moves: ``invalid_params``
    with reason ``invalid_args``, naming the first field at fault.
    """
    errors = field_errors(manifest.parameters or {}, raw)
    if errors:
        field, message = errors[0]
        raise SkillFailure(
            FailureKind.INVALID_PARAMS,
            "invalid_args",
            detail=f"{skill}: {field}: {message}",
            evidence={"field": field, "message": message},
        )
    return view.model_validate(merge_goal(manifest_defaults(manifest), raw))


def check_view(view: type[ArgumentView], manifest: SkillManifest, source: str) -> None:
    """Raise ManifestError (naming ``source`` and the field) unless ``view`` reads what ``manifest`` states."""
    problems = _view_problems(view, manifest.parameters or {}, manifest_defaults(manifest), "parameters")
    if problems:
        raise ManifestError([Problem(source, field, reason) for field, reason in problems])


def _view_problems(
    view: type[ArgumentView], schema: Mapping[str, Any], defaults: Mapping[str, Any], at: str
) -> list[tuple[str, str]]:
    """How ``view`` and an object ``schema`` (at field path ``at``) disagree, as (field, reason)."""
    props = schema.get("properties", {})
    props = props if isinstance(props, Mapping) else {}
    required = set(schema.get("required", ()))
    fields = view.model_fields
    problems = [
        (f"{at}.properties.{name}", f"the sim's {view.__name__} does not read it")
        for name in props
        if name not in fields
    ]
    for name, info in fields.items():
        where = f"{at}.properties.{name}"
        prop = props.get(name)
        if not isinstance(prop, Mapping):
            problems.append((where, f"missing: the sim's {view.__name__} reads {name!r}"))
            continue
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, ArgumentView):
            expected = "object"
            nested = defaults.get(name)
            problems += _view_problems(kind, prop, nested if isinstance(nested, Mapping) else {}, where)
        else:
            expected = _JSON_TYPES.get(kind, repr(kind))
        if prop.get("type") != expected:
            problems.append((f"{where}.type", f"is {prop.get('type')!r}; the sim's {view.__name__} reads {expected!r}"))
        if name not in required and name not in defaults:
            problems.append((where, "optional, but neither its schema nor ros.default_goal gives a default"))
    return problems

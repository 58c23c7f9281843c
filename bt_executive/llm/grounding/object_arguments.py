"""Object arguments: which skill arguments name an object of the world state.

A planner must never name an object the robot does not see. Manifests do not
mark such arguments explicitly, so they are recognised from the schema: a
string property (no enum, const or pattern of its own) whose name is a usual
object role (``object``, ``target``, ``source``, ``base``, ``drawer``, ...)
or whose description says it is an ``id`` (singular: a predicate over
ids is not one). Two levers use this: the palette
narrows these properties to an enum of the world's ids (a grammar-constrained
model can then only name real objects), and plan validation refuses a call
that names an absent one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bt_executive.skills.world_state import WorldState

OBJECT_ROLE_NAMES = frozenset(
    {"object", "target", "source", "base", "drawer", "container", "surface", "item", "destination", "receptacle"}
)
# "id" alone: "world-state id of the object" names one object; "a predicate over ids" does not.
_ID_WORD = re.compile(r"\bid\b", re.IGNORECASE)


def is_object_argument(name: str, schema: Mapping[str, Any]) -> bool:
    """True when the property ``name`` with ``schema`` holds a world-state object id."""
    if schema.get("type") != "string" or any(k in schema for k in ("enum", "const", "pattern", "format")):
        return False
    description = schema.get("description")
    return name in OBJECT_ROLE_NAMES or (isinstance(description, str) and bool(_ID_WORD.search(description)))


def object_argument_names(parameters: Mapping[str, Any] | None) -> tuple[str, ...]:
    """Top-level properties of a parameter schema that name world-state objects."""
    properties = (parameters or {}).get("properties", {})
    if not isinstance(properties, Mapping):
        return ()
    return tuple(n for n, s in properties.items() if isinstance(s, Mapping) and is_object_argument(n, s))


def world_ids(world_state: WorldState) -> tuple[str, ...]:
    """Every id a call may name: the objects and the drawers, sorted and unique."""
    return tuple(sorted({*world_state.ids(), *world_state.drawers}))


def narrow_to_world(parameters: Mapping[str, Any], ids: tuple[str, ...]) -> dict[str, Any]:
    """A copy of ``parameters`` whose object arguments are enums of ``ids`` (unchanged if no ids)."""
    narrowed = dict(parameters)
    names = object_argument_names(parameters)
    if not ids or not names:
        return narrowed
    properties = dict(narrowed["properties"])
    for name in names:
        # The enum replaces minLength and friends; the description stays for the model.
        kept = {k: v for k, v in properties[name].items() if k in ("description", "title")}
        properties[name] = {"type": "string", "enum": list(ids), **kept}
    narrowed["properties"] = properties
    return narrowed

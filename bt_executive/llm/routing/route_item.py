"""What the router ranks: a skill reduced to the fields routing reads, for tool and knowledge skills alike.

A tool skill (``SkillManifest``) and a knowledge skill (``KnowledgeSkill``:
site facts the planner reads, never runs) both have an id, a description,
action verbs, objects and scenes. ``route_item`` turns either, or anything
else shaped like them (the ``Routable`` protocol), into a ``RouteItem``, so
the router needs no knowledge of where an item came from. ``text`` is what
the lexical and embedding links see; its hash keys the embedding cache.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

RouteKind = Literal["tool", "knowledge"]


class Routable(Protocol):
    """The least a routable skill has: an ``owner/name`` id and a description."""

    @property
    def id(self) -> str:
        """``owner/name``."""
        ...

    @property
    def description(self) -> str:
        """What the skill does (tool) or says (knowledge), written for a router."""
        ...


class RouteItem(BaseModel):
    """One routable skill as the router sees it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    description: str
    actions: tuple[str, ...] = Field(default=(), description="ActionVerb values")
    objects: tuple[str, ...] = ()
    scenes: tuple[str, ...] = ()
    kind: RouteKind = "tool"
    preconditions: tuple[str, ...] = Field(default=(), description="predicates, as in the manifest")
    effects: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The part of the id after the owner (the whole id if it has no owner)."""
        return self.id.split("/", 1)[-1]

    @property
    def text(self) -> str:
        """The text matched against a query: name words, description, objects and scenes."""
        parts = [self.name.replace("_", " ").replace("-", " ") + ":", self.description.strip()]
        if self.objects:
            parts.append("Objects: " + ", ".join(self.objects) + ".")
        if self.scenes:
            parts.append("Scenes: " + ", ".join(self.scenes) + ".")
        return " ".join(parts)


def _strings(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        return tuple(str(getattr(v, "value", v)) for v in value)
    return ()


def route_item(skill: Routable | RouteItem) -> RouteItem:
    """``skill`` as a RouteItem: a SkillManifest, a KnowledgeSkill, or any Routable."""
    if isinstance(skill, RouteItem):
        return skill
    kind_value = str(getattr(getattr(skill, "kind", None), "value", getattr(skill, "kind", "")))
    return RouteItem(
        id=skill.id,
        description=skill.description,
        actions=_strings(getattr(skill, "actions", ())),
        objects=_strings(getattr(skill, "objects", ())),
        scenes=_strings(getattr(skill, "scenes", ())),
        kind="knowledge" if kind_value == "knowledge" else "tool",
        preconditions=_strings(getattr(skill, "preconditions", ())),
        effects=_strings(getattr(skill, "effects", ())),
    )


def route_items(skills: Iterable[Routable | RouteItem]) -> list[RouteItem]:
    """Every skill as a RouteItem, refusing two with one id (a route must name one skill)."""
    items: dict[str, RouteItem] = {}
    for skill in skills:
        item = route_item(skill)
        if item.id in items:
            raise ValueError(f"two routable skills share the id {item.id!r}")
        items[item.id] = item
    return list(items.values())

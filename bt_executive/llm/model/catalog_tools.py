"""Catalog tools: how a model browses a skill catalog too big to show it whole.

Where narrowing blindly might drop the skill a task needs, the planner can
offer the model three tools over the (narrowed or full) catalog, answered
here as JSON-able dicts:

- ``list_skills(verb?, scene?, text?, offset, limit)``: a page of skills
  (name, description, argument schema), filtered by action verb, scene and
  words, with the total and the next offset;
- ``describe_skill(name)``: one skill in full (verbs, objects, scenes,
  schema, preconditions, effects, failure kinds);
- ``search_skills(query, limit)``: the router's ranking (embedding link
  included when the router has one).

A name may be the skill id (``tabletop/pick``) or its tool name
(``tabletop__pick``). Bad input never raises: an unknown name gets
``{"error": {"code": "unknown_skill", "close_matches": [...], "hint": ...}}``,
an unknown verb the list of verbs, so the model can correct itself.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from bt_executive.llm.embedding.embedder import Embedder
from bt_executive.llm.language.tokens import tokenize
from bt_executive.llm.model.palette import slug
from bt_executive.llm.routing.route_item import Routable, RouteItem, route_item
from bt_executive.llm.routing.router import Router
from bt_executive.skills.manifest import ActionVerb, SkillManifest

LIST_SKILLS = "list_skills"
DESCRIBE_SKILL = "describe_skill"
SEARCH_SKILLS = "search_skills"
MAX_LIMIT = 50
_LIST_HINT = f"call {LIST_SKILLS} (optionally with a verb, scene or text filter) to see the skill names"


def _error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **extra}}


class CatalogTools:
    """The catalog tools over a set of skills (tool manifests and knowledge skills)."""

    def __init__(
        self,
        skills: Iterable[Routable | RouteItem],
        *,
        router: Router | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        """Tools over ``skills``; ``search_skills`` ranks with ``router`` (or one built with ``embedder``)."""
        self._skills: dict[str, Routable | RouteItem] = {}
        for skill in sorted(skills, key=lambda s: s.id):
            self._skills[skill.id] = skill
        self._items = {skill_id: route_item(s) for skill_id, s in self._skills.items()}
        self._by_tool_name = {slug(skill_id): skill_id for skill_id in self._skills}
        self.router = router or Router(self._items.values(), embedder=embedder)

    def _schema(self, skill_id: str) -> dict[str, Any] | None:
        skill = self._skills[skill_id]
        return skill.parameters if isinstance(skill, SkillManifest) else None

    def _summary(self, skill_id: str) -> dict[str, Any]:
        item = self._items[skill_id]
        return {"name": skill_id, "kind": item.kind, "description": item.description, "schema": self._schema(skill_id)}

    def resolve(self, name: str) -> str | None:
        """The skill id ``name`` stands for (an id or a tool name), or None."""
        if name in self._skills:
            return name
        return self._by_tool_name.get(name)

    def close_matches(self, name: str, limit: int = 3) -> list[str]:
        """Ids spelled like ``name`` (whole id or the part after the owner)."""
        ids = list(self._skills)
        by_name: dict[str, str] = {}
        for skill_id in ids:
            by_name.setdefault(skill_id.split("/", 1)[-1], skill_id)
        close = difflib.get_close_matches(name, ids, n=limit, cutoff=0.6)
        close += [by_name[n] for n in difflib.get_close_matches(name.split("/")[-1], list(by_name), n=limit)]
        return list(dict.fromkeys(close))[:limit]

    def list_skills(
        self,
        verb: str | None = None,
        scene: str | None = None,
        text: str | None = None,
        offset: int = 0,
        limit: int = 20,
    ) -> dict[str, Any]:
        """A page of skills matching every filter given: ``{total, offset, skills, next_offset}``."""
        if offset < 0 or not 1 <= limit <= MAX_LIMIT:
            return _error("bad_argument", f"offset must be >= 0 and limit within 1..{MAX_LIMIT}")
        wanted_verb: str | None = None
        if verb is not None:
            wanted_verb = verb.strip().upper().replace(" ", "_")
            if wanted_verb not in ActionVerb.__members__:
                return _error("unknown_verb", f"unknown verb {verb!r}", verbs=[v.value for v in ActionVerb])
        words = set(tokenize(text)) if text else set()
        matched = []
        for skill_id, item in self._items.items():
            if wanted_verb is not None and wanted_verb not in item.actions:
                continue
            if scene is not None and scene.strip().lower() not in {s.lower() for s in item.scenes}:
                continue
            if words and not words <= set(tokenize(f"{skill_id} {item.text}")):
                continue
            matched.append(skill_id)
        page = matched[offset : offset + limit]
        end = offset + len(page)
        return {
            "total": len(matched),
            "offset": offset,
            "skills": [self._summary(s) for s in page],
            "next_offset": end if end < len(matched) else None,
        }

    def describe_skill(self, name: str) -> dict[str, Any]:
        """Everything the model may know about one skill, or an unknown_skill error with close matches."""
        skill_id = self.resolve(name)
        if skill_id is None:
            return _error(
                "unknown_skill",
                f"no skill named {name!r}",
                close_matches=self.close_matches(name),
                hint=_LIST_HINT,
            )
        item = self._items[skill_id]
        out = self._summary(skill_id) | {
            "actions": list(item.actions),
            "objects": list(item.objects),
            "scenes": list(item.scenes),
        }
        skill = self._skills[skill_id]
        if isinstance(skill, SkillManifest):
            out |= {
                "preconditions": list(skill.preconditions),
                "effects": list(skill.effects),
                "failure_kinds": [k.value for k in skill.failure_kinds],
            }
        return out

    def search_skills(self, query: str, limit: int = 5) -> dict[str, Any]:
        """The router's best skills for ``query``, with scores: ``{query, skills}``."""
        if not query.strip():
            return _error("bad_argument", "query must not be empty", hint=_LIST_HINT)
        if not 1 <= limit <= MAX_LIMIT:
            return _error("bad_argument", f"limit must be within 1..{MAX_LIMIT}")
        hits = self.router.route(query, limit)
        return {
            "query": query,
            "skills": [self._summary(h.id) | {"score": h.score, "matched_by": h.link} for h in hits],
        }

    def call(self, tool: str, arguments: Mapping[str, Any] | str) -> dict[str, Any]:
        """Answer one model tool call (arguments as a dict or its JSON text); errors come back as dicts."""
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except json.JSONDecodeError as err:
                return _error("bad_arguments", f"arguments are not JSON: {err.msg}")
        if not isinstance(arguments, Mapping):
            return _error("bad_arguments", "arguments must be a JSON object")
        spec = next((t for t in catalog_tool_definitions() if t["function"]["name"] == tool), None)
        if spec is None:
            return _error(
                "unknown_tool", f"no catalog tool {tool!r}", tools=[LIST_SKILLS, DESCRIBE_SKILL, SEARCH_SKILLS]
            )
        params = spec["function"]["parameters"]
        unknown = sorted(set(arguments) - set(params["properties"]))
        missing = sorted(set(params.get("required", [])) - set(arguments))
        if unknown or missing:
            return _error("bad_arguments", f"{tool}: unknown {unknown or 'none'}, missing {missing or 'none'}")
        for key, value in arguments.items():
            expected = params["properties"][key]["type"]
            if (expected == "integer" and (not isinstance(value, int) or isinstance(value, bool))) or (
                expected == "string" and not isinstance(value, str)
            ):
                return _error(
                    "bad_arguments", f"{tool}: {key} must be a{'n' if expected == 'integer' else ''} {expected}"
                )
        if tool == LIST_SKILLS:
            return self.list_skills(**arguments)
        if tool == DESCRIBE_SKILL:
            return self.describe_skill(**arguments)
        return self.search_skills(**arguments)


def catalog_tool_definitions() -> list[dict[str, Any]]:
    """The three catalog tools in the OpenAI ``tools`` format, for a planner to offer the model."""
    verbs = [v.value for v in ActionVerb]
    return [
        {
            "type": "function",
            "function": {
                "name": LIST_SKILLS,
                "description": "List the robot's skills (name, description, argument schema), filtered and paged.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "verb": {"type": "string", "enum": verbs, "description": "only skills with this action"},
                        "scene": {"type": "string", "description": "only skills for this scene, e.g. kitchen"},
                        "text": {"type": "string", "description": "only skills whose text has all these words"},
                        "offset": {"type": "integer", "minimum": 0, "description": "first result (from next_offset)"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                    },
                    "additionalProperties": False,
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": DESCRIBE_SKILL,
                "description": "Everything about one skill: actions, objects, scenes, argument schema, effects.",
                "parameters": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "description": "skill id, e.g. tabletop/pick"}},
                    "required": ["name"],
                    "additionalProperties": False,
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": SEARCH_SKILLS,
                "description": "Find the skills that best fit a task in plain words (semantic search).",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "what the robot should do"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                    },
                    "required": ["query"],
                    "additionalProperties": False,
                },
            },
        },
    ]

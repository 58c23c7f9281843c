"""The skill palette: the robot's skills as the tools a language model may call.

One tool per skill. A tool name must match ``^[a-zA-Z0-9_-]{1,64}$`` (every
provider's rule), so it is slugged from the skill id (``tabletop/pick`` ->
``tabletop__pick``); an id too long for 64 characters, or two ids that slug
alike, get an 8-character sha1 suffix so names stay unique. The palette keeps
the name -> id map, so every tool call maps back to exactly one skill.

A tool's description is the manifest's description plus its action verbs,
objects and scenes; its input schema is the skill's parameter schema, plus
``prompt`` for VLA skills and an optional ``rationale``. Tools are sorted by
skill id so the prompt is byte-identical across runs.

A palette whose skills carry no metadata (no parameter schema, no objects,
no scenes: nothing that would make one tool per skill worth its tokens)
falls back to a single ``execute_skill`` tool whose ``skill`` argument is an
enum of the ids.
"""

from __future__ import annotations

import copy
import hashlib
import re
import string
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.llm.grounding.object_arguments import narrow_to_world, world_ids
from bt_executive.skills.manifest import SkillKind, SkillManifest
from bt_executive.skills.world_state import WorldState

TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
EXECUTE_SKILL_TOOL = "execute_skill"
RATIONALE_SCHEMA: dict[str, Any] = {"type": "string", "maxLength": 200, "description": "why this step (optional)"}
PROMPT_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 500,
    "description": "short instruction for the vision-language-action policy",
}
_MAX_NAME = 64
_SUFFIX = 8


class PaletteTool(BaseModel):
    """One tool offered to the model, and the skill it stands for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=TOOL_NAME_PATTERN)
    skill: str = Field(description="skill id; empty for the execute_skill fallback tool")
    description: str
    parameters: dict[str, Any]

    def openai_tool(self) -> dict[str, Any]:
        """The tool in the OpenAI ``tools`` format that litellm passes to every provider."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def slug(skill_id: str) -> str:
    """The readable part of a tool name: ``owner/name`` -> ``owner__name``, other characters -> ``_``."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", skill_id.replace("/", "__"))


def _suffixed(skill_id: str) -> str:
    digest = hashlib.sha1(skill_id.encode(), usedforsecurity=False).hexdigest()[:_SUFFIX]
    return f"{slug(skill_id)[: _MAX_NAME - _SUFFIX - 1]}_{digest}"


def tool_names(skill_ids: Iterable[str]) -> dict[str, str]:
    """Unique tool names for ``skill_ids`` (id -> name): slugs, suffixed where long or clashing."""
    ids = sorted(set(skill_ids))
    slugs = {i: slug(i) for i in ids}
    clashing = {s for s in slugs.values() if list(slugs.values()).count(s) > 1}
    names = {i: (_suffixed(i) if len(s) > _MAX_NAME or s in clashing else s) for i, s in slugs.items()}
    if len(set(names.values())) != len(names):  # a sha1 prefix clash among suffixed names: never seen, refuse
        raise ValueError("tool names are not unique after hashing; rename a skill")
    return names


def tool_description(manifest: SkillManifest) -> str:
    """What the model reads about a skill: its description, then verbs, objects and scenes."""
    parts = [manifest.description.strip(), f"Actions: {', '.join(v.value for v in manifest.actions)}."]
    if manifest.objects:
        parts.append(f"Objects: {', '.join(manifest.objects)}.")
    if manifest.scenes:
        parts.append(f"Scenes: {', '.join(manifest.scenes)}.")
    return " ".join(parts)


def call_arguments_schema(
    manifest: SkillManifest, object_ids: tuple[str, ...] = (), *, required_only: bool = False
) -> dict[str, Any]:
    """The skill's argument schema as a model fills it (no ``prompt``/``rationale``), ids enum-narrowed.

    ``required_only`` drops optional arguments (they keep the manifest's defaults): a lever for small
    models, which fill optional numbers with values a grammar cannot range-check (llama.cpp enforces
    ``minimum``/``maximum`` on integers only).
    """
    base = copy.deepcopy(manifest.parameters or {"type": "object", "properties": {}, "additionalProperties": False})
    if required_only and isinstance(base.get("properties"), dict):
        required = set(base.get("required", []))
        base["properties"] = {k: v for k, v in base["properties"].items() if k in required}
    return narrow_to_world(base, object_ids)


def tool_input_schema(manifest: SkillManifest, object_ids: tuple[str, ...] = ()) -> dict[str, Any]:
    """A tool's input schema: the arguments, plus ``prompt`` (VLA skills) and an optional ``rationale``."""
    schema = call_arguments_schema(manifest, object_ids)
    properties = dict(schema.get("properties", {}))
    required = list(schema.get("required", []))
    if needs_prompt(manifest):
        properties["prompt"] = PROMPT_SCHEMA
        required.append("prompt")
    properties["rationale"] = RATIONALE_SCHEMA
    schema["properties"] = properties
    if required:
        schema["required"] = required
    return schema


def needs_prompt(manifest: SkillManifest) -> bool:
    """Whether a call must carry a prompt: a VLA skill whose prompt template uses ``{prompt}``."""
    if manifest.kind is not SkillKind.VLA or manifest.vla is None:
        return False
    fields = {f for _, f, _, _ in string.Formatter().parse(manifest.vla.prompt_template) if f}
    return "prompt" in fields


def has_metadata(manifest: SkillManifest) -> bool:
    """Whether a skill says enough (arguments, objects or scenes) to deserve its own tool."""
    return manifest.parameters is not None or bool(manifest.objects) or bool(manifest.scenes)


class Palette:
    """The tools offered to the model and the map back from tool name to skill id."""

    def __init__(self, manifests: Iterable[SkillManifest], object_ids: Iterable[str] = ()) -> None:
        self.manifests: dict[str, SkillManifest] = {m.id: m for m in sorted(manifests, key=lambda m: m.id)}
        if not self.manifests:
            raise ValueError("an empty palette: this robot can run no skill")
        # Object arguments become enums of these ids (empty: left as the manifests say).
        self.object_ids: tuple[str, ...] = tuple(sorted(set(object_ids)))
        self.single_tool = not any(has_metadata(m) for m in self.manifests.values())
        names = tool_names(self.manifests)
        self._skill_by_name = {name: skill for skill, name in names.items()}
        self._name_by_skill = names
        if self.single_tool:
            self.tools: tuple[PaletteTool, ...] = (self._execute_skill_tool(),)
        else:
            self.tools = tuple(
                PaletteTool(
                    name=names[m.id],
                    skill=m.id,
                    description=tool_description(m),
                    parameters=tool_input_schema(m, self.object_ids),
                )
                for m in self.manifests.values()
            )

    def _execute_skill_tool(self) -> PaletteTool:
        lines = [f"{m.id}: {m.description.strip()}" for m in self.manifests.values()]
        return PaletteTool(
            name=EXECUTE_SKILL_TOOL,
            skill="",
            description="Run one robot skill. Skills:\n" + "\n".join(lines),
            parameters={
                "type": "object",
                "properties": {
                    "skill": {"type": "string", "enum": list(self.manifests)},
                    "args": {"type": "object"},
                    "prompt": {"type": "string"},
                    "rationale": RATIONALE_SCHEMA,
                },
                "required": ["skill"],
                "additionalProperties": False,
            },
        )

    def __len__(self) -> int:
        return len(self.manifests)

    def skill_ids(self) -> tuple[str, ...]:
        """Every skill in the palette, sorted."""
        return tuple(self.manifests)

    def tool_name(self, skill_id: str) -> str:
        """The tool name for a skill id (KeyError if the skill is not in the palette)."""
        return self._name_by_skill[skill_id]

    def skill_for(self, tool_name: str) -> str | None:
        """The skill id a tool name stands for; None for the fallback tool or an unknown name."""
        return self._skill_by_name.get(tool_name)

    def openai_tools(self) -> list[dict[str, Any]]:
        """Every tool in the OpenAI format, in palette order."""
        return [t.openai_tool() for t in self.tools]

    def signature(self, skill_id: str) -> str:
        """A one-line call signature for prompts, e.g. ``tabletop/pick(object, grasp?)``."""
        manifest = self.manifests[skill_id]
        schema: Mapping[str, Any] = manifest.parameters or {}
        required = set(schema.get("required", []))
        names = [n if n in required else f"{n}?" for n in manifest.parameter_names()]
        if needs_prompt(manifest):
            names.append("prompt")
        return f"{skill_id}({', '.join(names)})"


def build_palette(
    manifests: Iterable[SkillManifest], world_state: WorldState | None = None, *, narrow_objects: bool = True
) -> Palette:
    """The palette for these skills; with a world state (and ``narrow_objects``), object arguments are its ids."""
    ids = world_ids(world_state) if world_state is not None and narrow_objects else ()
    return Palette(manifests, ids)

"""The structured-plan JSON Schema: the shape of a whole plan, built from the palette.

In structured mode the model answers one JSON object,
``{"steps": [{"skill", "args", "prompt"?, "rationale"?}, ...]}``. Its schema
has one ``oneOf`` branch per skill (``skill`` is a ``const``, ``args`` is that
skill's argument schema), so a provider that enforces ``response_format``
json_schema with a grammar (llama.cpp does) can only emit plans whose every
step names a palette skill with well-typed arguments, or refuses the task
(``refusal_tool``: the last branch). ``max_steps`` caps the
plan length (a lever for small models that repeat themselves).
"""

from __future__ import annotations

from typing import Any

from bt_executive.llm.model.palette import PROMPT_SCHEMA, RATIONALE_SCHEMA, Palette, call_arguments_schema, needs_prompt
from bt_executive.llm.model.refusal_tool import refuse_step_schema

PLAN_SCHEMA_NAME = "skill_plan"


def cap_strings(schema: Any, max_length: int) -> Any:
    """A copy of ``schema`` whose free strings (no enum/const) are at most ``max_length`` long.

    A grammar-constrained small model can loop inside a free string until it runs out of tokens;
    a cap keeps every reply short and complete. A cap below a ``minLength`` leaves that string alone.
    """
    if isinstance(schema, list):
        return [cap_strings(item, max_length) for item in schema]
    if not isinstance(schema, dict):
        return schema
    capped = {k: cap_strings(v, max_length) for k, v in schema.items()}
    free = capped.get("type") == "string" and "enum" not in capped and "const" not in capped
    if free and capped.get("minLength", 0) <= max_length:
        capped["maxLength"] = min(capped.get("maxLength", max_length), max_length)
    return capped


def step_schema(
    palette: Palette,
    skill_id: str,
    *,
    rationale: bool = True,
    required_only: bool = False,
    max_string_length: int | None = None,
) -> dict[str, Any]:
    """The schema of one step calling ``skill_id``."""
    manifest = palette.manifests[skill_id]
    args = call_arguments_schema(manifest, palette.object_ids, required_only=required_only)
    if max_string_length is not None:
        args = cap_strings(args, max_string_length)
    properties: dict[str, Any] = {"skill": {"const": skill_id}, "args": args}
    required = ["skill", "args"]
    if needs_prompt(manifest):
        properties["prompt"] = PROMPT_SCHEMA
        required.append("prompt")
    if rationale:
        properties["rationale"] = RATIONALE_SCHEMA
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def plan_json_schema(
    palette: Palette,
    *,
    max_steps: int | None = None,
    rationale: bool = True,
    required_only: bool = False,
    max_string_length: int | None = None,
) -> dict[str, Any]:
    """The JSON Schema of a whole plan over ``palette`` (an empty ``steps`` means already done)."""
    branches = [
        step_schema(palette, s, rationale=rationale, required_only=required_only, max_string_length=max_string_length)
        for s in palette.skill_ids()
    ]
    branches.append(refuse_step_schema())  # a model may say no (refusal_tool)
    steps: dict[str, Any] = {"type": "array", "items": {"oneOf": branches}}
    if max_steps is not None:
        steps["maxItems"] = max_steps
    return {
        "type": "object",
        "properties": {"steps": steps},
        "required": ["steps"],
        "additionalProperties": False,
    }


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI ``response_format`` that asks the provider to enforce ``schema``."""
    return {"type": "json_schema", "json_schema": {"name": PLAN_SCHEMA_NAME, "schema": schema, "strict": True}}

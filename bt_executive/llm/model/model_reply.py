"""Model replies: a chat completion's message read as proposed plan steps, or as what is wrong with it.

Two output modes, two readers. In tool mode each tool call is one step, in
order; the tool name says the skill (through the palette's map), and a
``skill`` the model smuggles into the arguments is dropped: the tool name
wins. A reply with no tool calls is an empty plan when it says ``DONE``,
otherwise prose, which earns one "tool calls only" nudge. In structured mode
the content is one JSON object ``{"steps": [...]}``; anything else is a
problem the repair loop sends back. Nothing here checks skills or arguments
against the registry: that is ``plan_validation``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bt_executive.llm.model.palette import EXECUTE_SKILL_TOOL, Palette
from bt_executive.llm.model.plan_validation import ProposedStep
from bt_executive.llm.model.prompts import DONE_WORD
from bt_executive.llm.model.refusal_tool import REFUSE

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class ToolCallReply(BaseModel):
    """One tool call as the provider returned it (arguments are a JSON string on the wire)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = ""
    name: str
    arguments: str = ""


class ModelReply(BaseModel):
    """The parts of one chat completion the planner reads, plus its cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str | None = None
    tool_calls: tuple[ToolCallReply, ...] = ()
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ReadReply(BaseModel):
    """What a reply proposed, what was wrong with its form, and what was quietly corrected."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    steps: tuple[ProposedStep, ...] = ()
    problems: tuple[str, ...] = ()
    prose: bool = Field(default=False, description="no calls and no DONE: the model talked instead")
    notes: tuple[str, ...] = ()


def _is_done(content: str | None) -> bool:
    return (content or "").strip().strip(".!").upper() == DONE_WORD


def _split_extras(args: dict[str, Any], declared: tuple[str, ...]) -> tuple[dict[str, Any], str | None, str | None]:
    """Pull ``prompt`` and ``rationale`` out of tool arguments unless the skill declares them as arguments."""
    prompt = args.pop("prompt", None) if "prompt" not in declared else None
    rationale = args.pop("rationale", None) if "rationale" not in declared else None
    return args, prompt if isinstance(prompt, str) else None, rationale if isinstance(rationale, str) else None


def read_tool_calls(palette: Palette, reply: ModelReply) -> ReadReply:
    """Steps from a tool-calling reply (tool name wins over a smuggled ``skill`` argument)."""
    if not reply.tool_calls:
        if _is_done(reply.content):
            return ReadReply()
        return ReadReply(prose=True, problems=("the reply had no tool calls",))
    steps: list[ProposedStep] = []
    problems: list[str] = []
    notes: list[str] = []
    for index, call in enumerate(reply.tool_calls):
        try:
            args = json.loads(call.arguments or "{}")
        except json.JSONDecodeError as err:
            problems.append(f"step {index + 1} {call.name}: arguments are not valid JSON ({err.msg})")
            continue
        if not isinstance(args, dict):
            problems.append(f"step {index + 1} {call.name}: arguments must be a JSON object")
            continue
        if call.name == EXECUTE_SKILL_TOOL and palette.single_tool:
            skill = args.get("skill")
            inner = args.get("args", {})
            steps.append(
                ProposedStep(
                    skill=skill if isinstance(skill, str) else "",
                    args=inner if isinstance(inner, dict) else {},
                    prompt=args.get("prompt") if isinstance(args.get("prompt"), str) else None,
                    rationale=args.get("rationale") if isinstance(args.get("rationale"), str) else None,
                )
            )
            continue
        if call.name == REFUSE:
            steps.append(ProposedStep(skill=REFUSE, args=args))  # the planner reads it as a refusal
            continue
        skill = palette.skill_for(call.name)
        if skill is None:
            steps.append(ProposedStep(skill=call.name, args=args))  # validation reports it with suggestions
            continue
        declared = palette.manifests[skill].parameter_names()
        if "skill" in args and "skill" not in declared:
            smuggled = args.pop("skill")
            if smuggled != skill:
                notes.append(f"step {index + 1}: ignored skill {smuggled!r} in the arguments of tool {call.name}")
        args, prompt, rationale = _split_extras(args, declared)
        steps.append(ProposedStep(skill=skill, args=args, prompt=prompt, rationale=rationale))
    return ReadReply(steps=tuple(steps), problems=tuple(problems), notes=tuple(notes))


def _step(index: int, raw: Any) -> ProposedStep | str:
    if not isinstance(raw, dict):
        return f"$.steps[{index}] must be an object with skill and args"
    skill, args = raw.get("skill"), raw.get("args", {})
    if not isinstance(skill, str) or not skill:
        return f"$.steps[{index}].skill must be a skill id string"
    if not isinstance(args, dict):
        return f"$.steps[{index}].args must be an object"
    prompt, rationale = raw.get("prompt"), raw.get("rationale")
    extra = sorted(set(raw) - {"skill", "args", "prompt", "rationale"})
    if extra:
        return f"$.steps[{index}] has unknown fields {', '.join(extra)} (arguments go inside args)"
    typed_args: dict[str, JsonValue] = args
    return ProposedStep(
        skill=skill,
        args=typed_args,
        prompt=prompt if isinstance(prompt, str) else None,
        rationale=rationale if isinstance(rationale, str) else None,
    )


def read_structured(reply: ModelReply) -> ReadReply:
    """Steps from a structured-mode reply: one JSON object ``{"steps": [...]}`` in the content."""
    text = (reply.content or "").strip()
    fenced = _FENCE.match(text)
    if fenced:  # a model that wraps JSON in a markdown fence still said what it meant
        text = fenced.group(1)
    if not text:
        return ReadReply(problems=("the reply was empty; a JSON plan was expected",))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        return ReadReply(problems=(f"the reply is not valid JSON: {err.msg} at line {err.lineno} column {err.colno}",))
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        return ReadReply(problems=('the reply must be a JSON object with a "steps" list',))
    steps: list[ProposedStep] = []
    problems: list[str] = []
    for index, raw in enumerate(data["steps"]):
        read = _step(index, raw)
        if isinstance(read, str):
            problems.append(read)
        else:
            steps.append(read)
    return ReadReply(steps=tuple(steps), problems=tuple(problems))

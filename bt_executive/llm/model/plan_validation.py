"""Plan validation: every call a model proposes is checked before it can reach the compiler.

A proposed step names a skill and gives arguments. It becomes a ``SkillCall``
only when the skill is in the registry (else the issue lists close matches,
from ``SkillRegistry.suggest``), the arguments validate against the skill's
schema (else the issue names the JSON path and the reason, from
``skills.parameters``), a VLA skill has its prompt, and every object argument
names an object of the world state (else the issue lists the ids it may use).
The issues are written for the model: the repair loop sends them back.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from bt_executive.llm.grounding.object_arguments import object_argument_names, world_ids
from bt_executive.llm.model.palette import needs_prompt
from bt_executive.skills.call import SkillCall
from bt_executive.skills.parameters import argument_errors
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState


class ProposedStep(BaseModel):
    """One step as the model proposed it, before any check: the skill it named and what it gave."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str
    args: dict[str, JsonValue] = Field(default_factory=dict)
    prompt: str | None = None
    rationale: str | None = None


class CallIssue(BaseModel):
    """Why one proposed step was refused, precise enough for the model to fix it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int = Field(ge=0, description="0-based index of the step in the proposal")
    skill: str
    path: str = Field(default="$", description="JSON path into the step's args, or $ for the call itself")
    reason: str
    suggestions: tuple[str, ...] = ()

    def message(self) -> str:
        """One line: step, skill, path, reason, and what to use instead."""
        hint = f" (did you mean {', '.join(self.suggestions)}?)" if self.suggestions else ""
        where = "" if self.path == "$" else f" {self.path}:"
        return f"step {self.step + 1} {self.skill}:{where} {self.reason}{hint}"


class PlanCheck(BaseModel):
    """The outcome of checking a proposal: the valid calls, and every issue found."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: tuple[SkillCall, ...] = ()
    issues: tuple[CallIssue, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every proposed step became a valid call."""
        return not self.issues


def _object_issues(
    step: int, skill: str, parameters: Mapping[str, Any] | None, args: Mapping[str, Any], ids: Sequence[str]
) -> list[CallIssue]:
    issues = []
    for name in object_argument_names(parameters):
        value = args.get(name)
        if isinstance(value, str) and value not in ids:
            close = tuple(difflib.get_close_matches(value, ids, n=3, cutoff=0.5))
            issues.append(
                CallIssue(
                    step=step,
                    skill=skill,
                    path=f"$.{name}",
                    reason=f"{value!r} is not an object in the world state (objects: {', '.join(ids)})",
                    suggestions=close,
                )
            )
    return issues


def check_step(
    registry: SkillRegistry, step: int, proposed: ProposedStep, world_state: WorldState | None = None
) -> tuple[SkillCall | None, list[CallIssue]]:
    """The call for one proposed step, or the issues that stop it."""
    if proposed.skill not in registry:
        # Models often answer with the tool name (owner__name) or the bare name: suggest on both.
        wanted = proposed.skill.replace("__", "/")
        suggestions = tuple(registry.suggest(wanted) or registry.suggest(proposed.skill))
        return None, [CallIssue(step=step, skill=proposed.skill, reason="unknown skill", suggestions=suggestions)]
    manifest = registry.get(proposed.skill)
    issues = [
        CallIssue(step=step, skill=manifest.id, path=path, reason=reason)
        for path, reason in argument_errors(manifest.parameters, proposed.args)
    ]
    if needs_prompt(manifest) and not (proposed.prompt or "").strip():
        issues.append(CallIssue(step=step, skill=manifest.id, reason="a VLA skill needs a non-empty prompt"))
    ids = world_ids(world_state) if world_state is not None else ()
    if ids:
        issues += _object_issues(step, manifest.id, manifest.parameters, proposed.args, ids)
    if issues:
        return None, issues
    try:
        # A rambling rationale is only a note: cut it rather than refuse a good call.
        rationale = proposed.rationale[:2000] if proposed.rationale else None
        call = SkillCall(skill=manifest.id, args=proposed.args, prompt=proposed.prompt or None, rationale=rationale)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return None, [CallIssue(step=step, skill=manifest.id, reason=f"{where}: {first['msg']}")]
    return call, []


def check_plan(
    registry: SkillRegistry, proposal: Sequence[ProposedStep], world_state: WorldState | None = None
) -> PlanCheck:
    """Check every step of a proposal; the plan is usable only when no step has an issue."""
    calls: list[SkillCall] = []
    issues: list[CallIssue] = []
    for index, proposed in enumerate(proposal):
        call, found = check_step(registry, index, proposed, world_state)
        if call is not None:
            calls.append(call)
        issues += found
    return PlanCheck(calls=tuple(calls), issues=tuple(issues))

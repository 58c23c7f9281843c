"""SkillCall, SkillResult and AttemptRecord: what crosses between planner, tree and robot.

A planner emits ``SkillCall``s; a skill leaf turns one into a ``SkillResult``;
the pair, with the step it belonged to, is an ``AttemptRecord``, and the list
of those is what a replan shows the planner so it does not repeat a move that
already failed.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from bt_executive.skills.failures import FailureKind
from bt_executive.skills.manifest import SKILL_ID_PATTERN


class SkillCall(BaseModel):
    """One step of a plan: which skill, with which arguments, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str = Field(pattern=SKILL_ID_PATTERN, description="manifest id, owner/name")
    args: dict[str, JsonValue] = Field(default_factory=dict)
    prompt: str | None = Field(default=None, max_length=2000, description="instruction for VLA skills")
    rationale: str | None = Field(default=None, max_length=2000)

    def label(self) -> str:
        """Short human label, e.g. ``pick(red_cube)``, for trees, logs and viewers."""
        name = self.skill.split("/", 1)[1]
        shown = [_short(v) for v in self.args.values()]
        if self.prompt and not shown:
            shown = [repr(self.prompt if len(self.prompt) <= 24 else self.prompt[:21] + "...")]
        return f"{name}({', '.join(shown)})"


def _short(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return "…"
    return str(value)


class SkillFeedback(BaseModel):
    """The latest progress report of a running skill, as the blackboard shows it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    phase: str = ""
    progress: float | None = Field(default=None, description="0..1 when the skill reports it")
    detail: dict[str, JsonValue] = Field(default_factory=dict)


class SkillResult(BaseModel):
    """How a skill ended: success, or a failure kind with a short reason a policy can act on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    success: bool
    failure_kind: FailureKind | None = None
    reason: str = Field(default="", max_length=200, description="short, machine-friendly")
    detail: str = Field(default="", max_length=4000, description="longer, for humans")
    evidence: dict[str, JsonValue] = Field(default_factory=dict)
    duration_s: float = Field(default=0.0, ge=0.0)

    @model_validator(mode="after")
    def _kind_iff_failure(self) -> Self:
        if self.success and self.failure_kind is not None:
            raise ValueError("a successful result has no failure_kind")
        if not self.success and self.failure_kind is None:
            raise ValueError("a failed result needs a failure_kind")
        return self

    @classmethod
    def ok(cls, reason: str = "done", **kwargs: Any) -> SkillResult:
        """A success."""
        return cls(success=True, reason=reason, **kwargs)

    @classmethod
    def failed(cls, kind: FailureKind, reason: str, **kwargs: Any) -> SkillResult:
        """A failure of the given kind."""
        return cls(success=False, failure_kind=kind, reason=reason, **kwargs)


class AttemptRecord(BaseModel):
    """One executed step: the plan and step it came from, the call, and its result."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    plan_index: int = Field(default=0, ge=0)
    step: int = Field(ge=0)
    call: SkillCall
    result: SkillResult

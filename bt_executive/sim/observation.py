"""What a learned policy sees and sends: camera frames plus proprioception in, joint targets out.

``Observation`` is one control tick's input to a VLA policy: 224x224 RGB
frames from the ``front`` and ``wrist`` cameras, the six arm joint angles
and the finger gap. ``JointCommand`` is one tick's output: absolute joint
targets and a finger-gap target, which the backend applies for exactly one
control tick.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from bt_executive.sim import arm

CAMERAS: tuple[str, str] = ("front", "wrist")
"""The observation cameras, in the order policies expect them."""


@dataclass(frozen=True)
class Observation:
    """Camera frames and proprioception at one instant of sim time."""

    images: Mapping[str, npt.NDArray[np.uint8]]
    joint_positions: npt.NDArray[np.float64]
    gripper_opening: float
    stamp: float

    @property
    def state(self) -> npt.NDArray[np.float64]:
        """Proprioception as one vector: six joint angles (rad), then the finger gap (m)."""
        return np.concatenate([self.joint_positions, [self.gripper_opening]])


JointAngle = Annotated[float, Field(ge=-3.2, le=3.2, allow_inf_nan=False)]


class JointCommand(BaseModel):
    """One control tick of policy output: absolute arm joint targets and a finger-gap target."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    joint_positions: tuple[JointAngle, JointAngle, JointAngle, JointAngle, JointAngle, JointAngle] = Field(
        description="radians, base to hand; clipped to the joint limits when applied"
    )
    gripper_opening: float = Field(ge=0.0, le=arm.MAX_OPENING, allow_inf_nan=False, description="finger gap, metres")

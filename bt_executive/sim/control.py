"""What one control tick asks of the robot: arm joint targets, their velocity, and the finger gap.

Skills yield one ``TickCommand`` per control tick; the backend turns it into
actuator set-points (position target plus a velocity feed-forward that
cancels the servos' damping lag) and steps the physics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TickCommand:
    """Targets for the end of one control tick."""

    arm: FloatArray
    """Arm joint targets, radians, base to hand."""
    gripper: float
    """Finger gap target, metres."""
    arm_velocity: FloatArray | None = None
    """Joint velocities of the reference trajectory, for feed-forward; None when holding still."""

    @classmethod
    def hold(cls, arm: npt.ArrayLike, gripper: float) -> TickCommand:
        """Stay at ``arm`` with the fingers at ``gripper``."""
        return cls(arm=np.array(arm, dtype=float), gripper=float(gripper))

"""WorldState: what the robot believes about the scene, as planners and predicates see it.

The robot side (the MuJoCo sim here, perception on a real robot) publishes
it; planners read object ids from it so they never invent one, and
preconditions and effects are evaluated against it. Poses are metres and
unit quaternions (w, x, y, z) in the robot's base frame.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.skills.affordances import Affordance, default_affordances

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


class ObjectState(BaseModel):
    """One object the robot can name: a cube, a plate, a bowl, a drawer handle..."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    category: str = Field(default="object", description="cube, plate, bowl, drawer, ...")
    colour: str = ""
    position: Vec3
    orientation: Quat = (1.0, 0.0, 0.0, 0.0)
    size: Vec3 = Field(default=(0.0, 0.0, 0.0), description="bounding-box full extents")
    reachable: bool = True
    supported_by: str | None = Field(default=None, description="id of what it rests on, if anything")
    inside: str | None = Field(default=None, description="id of the container it is in, if any")
    affordances: tuple[Affordance, ...] | None = Field(
        default=None, description="what it affords (graspable, support, ...); None: its category's defaults"
    )

    def affords(self, affordance: Affordance | str) -> bool:
        """Whether the robot may use this object that way (stated affordances, else the category's)."""
        return affordance in self.effective_affordances()

    def effective_affordances(self) -> frozenset[Affordance]:
        """The affordances that hold for it: the stated ones, else its category's defaults."""
        return frozenset(self.affordances) if self.affordances is not None else default_affordances(self.category)


class GripperState(BaseModel):
    """The gripper: how far open, and what it holds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    opening: float = Field(default=0.0, ge=0.0, description="finger gap in metres")
    holding: str | None = None


class WorldState(BaseModel):
    """A snapshot of the world for planning and condition checks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stamp: float = Field(default=0.0, description="sim or wall time of the snapshot, seconds")
    objects: tuple[ObjectState, ...] = ()
    gripper: GripperState = GripperState()
    joint_positions: tuple[float, ...] = ()
    at_home: bool = False
    drawers: dict[str, float] = Field(default_factory=dict, description="drawer id -> open fraction 0..1")
    regions: dict[str, tuple[Vec3, Vec3]] = Field(
        default_factory=dict, description="named region -> (min corner, max corner)"
    )

    def object(self, object_id: str) -> ObjectState | None:
        """The object with this id, or None."""
        return next((o for o in self.objects if o.id == object_id), None)

    def ids(self) -> tuple[str, ...]:
        """Every object id, sorted, for prompts and fuzzy matching."""
        return tuple(sorted(o.id for o in self.objects))

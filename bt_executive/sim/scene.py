"""Scenes: what stands on the tabletop, and where, as YAML a robot integrator can edit.

A scene (``config/scenes/*.yaml``) names the movable objects (cubes, a plate,
a bowl) with their colour, size, mass and nominal pose, the cabinet with its
drawer, the front camera, and how to randomise the layout. ``Scene.layout``
turns a seed into object poses: the same seed always gives the same layout,
so a benchmark over seeds 0..N-1 is reproducible.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Literal, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from bt_executive.sim.arm import MAX_OPENING
from bt_executive.skills.affordances import Affordance, default_affordances
from bt_executive.skills.text_rules import Line, Text

ObjectId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")]

Colour = Annotated[
    str,
    Field(
        pattern=r"^[a-z]+([ \-][a-z]+)*$",
        max_length=32,
        description="a lower-case colour word or two (pink, light blue, dark-green); what the world state reports",
    ),
]
"""A colour is the word people call the object by, not a closed list: the planner grounds words, and the
renderer finds an RGBA for any word (``skills.colours.colour_rgba``), so a pink cube needs no code change."""


Interval = tuple[float, float]


class Pose2D(BaseModel):
    """A pose on the table: position in the robot base frame (metres) and yaw about z (degrees)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    x: float = Field(ge=-2.0, le=2.0)
    y: float = Field(ge=-2.0, le=2.0)
    yaw_deg: float = Field(default=0.0, ge=-360.0, le=360.0)

    @property
    def yaw(self) -> float:
        """Yaw in radians."""
        return math.radians(self.yaw_deg)


class ObjectSpec(BaseModel):
    """One movable object: a cube to grasp, or a plate or bowl to put things on or in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: ObjectId
    category: Literal["cube", "plate", "bowl"]
    colour: Colour
    size: tuple[float, float, float] = Field(
        description="full extents in metres: a cube's edges; a plate's or bowl's diameter, diameter, height"
    )
    mass: float = Field(gt=0.0, le=5.0, description="kg")
    pose: Pose2D
    randomise: bool = Field(default=True, description="whether layouts move this object")
    affordances: tuple[Affordance, ...] | None = Field(
        default=None, description="what it affords (graspable, support, ...); omitted: its category's defaults"
    )

    def effective_affordances(self) -> tuple[Affordance, ...]:
        """What the world state reports it affords: the stated set, else its category's defaults."""
        return _effective(self.affordances, self.category)

    @model_validator(mode="after")
    def _sane_size(self) -> Self:
        if any(not 0.005 <= s <= 0.4 for s in self.size):
            raise ValueError("every size must be between 0.005 and 0.4 m")
        if self.category == "cube" and min(self.size[0], self.size[1]) > MAX_OPENING - 0.02:
            raise ValueError(f"a cube must fit the gripper: its narrow side must be at most {MAX_OPENING - 0.02} m")
        if self.category in ("plate", "bowl") and self.size[0] != self.size[1]:
            raise ValueError("plates and bowls are round: the first two sizes (diameters) must be equal")
        return self

    @property
    def footprint_radius(self) -> float:
        """Radius of the circle the object covers on the table, for layout spacing."""
        return 0.5 * math.hypot(self.size[0], self.size[1]) if self.category == "cube" else 0.5 * self.size[0]


class CabinetSpec(BaseModel):
    """A cabinet with one drawer on a slide joint, its handle facing the robot."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: ObjectId = "cabinet"
    drawer_id: ObjectId = "drawer"
    pose: Pose2D = Field(description="centre of the cabinet's footprint; yaw turns its front (+x) towards the robot")
    size: tuple[float, float, float] = Field(default=(0.24, 0.26, 0.16), description="depth, width, height")
    drawer_travel: float = Field(default=0.14, gt=0.02, le=0.3, description="how far the drawer slides out, m")
    initial_open: float = Field(default=0.0, ge=0.0, le=1.0, description="open fraction at reset")
    colour: Colour = "brown"
    affordances: tuple[Affordance, ...] | None = Field(
        default=None, description="what the cabinet body affords; omitted: the cabinet category's defaults"
    )
    drawer_affordances: tuple[Affordance, ...] | None = Field(
        default=None, description="what its drawer affords; omitted: the drawer category's defaults"
    )


def _effective(stated: tuple[Affordance, ...] | None, category: str) -> tuple[Affordance, ...]:
    """Stated affordances, else the category's defaults, in name order (the world state's form)."""
    return tuple(sorted(set(stated) if stated is not None else default_affordances(category)))


class FrontCamera(BaseModel):
    """The fixed camera looking at the workspace."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    position: tuple[float, float, float] = (1.05, 0.0, 0.65)
    target: tuple[float, float, float] = (0.3, 0.0, 0.0)
    fovy_deg: float = Field(default=55.0, gt=10.0, lt=120.0)


class CameraStreams(BaseModel):
    """The camera topics of ``bt-executive sim``: frame size and rate, in sim time."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rate_hz: float = Field(default=10.0, gt=0.0, le=60.0, description="frames per second of sim time, per camera")
    width: int = Field(default=224, ge=16, le=1024)
    height: int = Field(default=224, ge=16, le=1024)


class Randomisation(BaseModel):
    """How a seed moves the objects marked ``randomise``: uniform in a region, spaced apart."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    x: Interval = (0.20, 0.46)
    y: Interval = (-0.30, 0.30)
    yaw_deg: Interval = (-45.0, 45.0)
    min_clearance: float = Field(default=0.075, ge=0.0, le=0.3, description="free gap between footprints, m")
    max_tries: int = Field(default=2000, ge=1, le=100_000)

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        for name in ("x", "y", "yaw_deg"):
            lo, hi = getattr(self, name)
            if lo > hi:
                raise ValueError(f"{name}: lower bound {lo} is above upper bound {hi}")
        return self


class Scene(BaseModel):
    """A tabletop scene: objects, cabinet, camera and randomisation, loaded from YAML."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Line = Field(min_length=1, max_length=64)
    description: Text = Field(default="", max_length=500)
    seed: int = Field(default=0, ge=0, description="layout seed used when the caller gives none")
    table_size: tuple[float, float] = Field(default=(1.4, 1.4), description="x and y extents of the table top, m")
    table_centre_x: float = 0.45
    table_affordances: tuple[Affordance, ...] | None = Field(
        default=None, description="what the table affords; omitted: the table category's defaults (support)"
    )
    objects: tuple[ObjectSpec, ...] = Field(min_length=1, max_length=16)
    cabinet: CabinetSpec | None = None
    front_camera: FrontCamera = FrontCamera()
    camera_streams: CameraStreams = CameraStreams()
    randomisation: Randomisation = Randomisation()

    @model_validator(mode="after")
    def _unique_ids(self) -> Self:
        ids = [o.id for o in self.objects]
        if self.cabinet is not None:
            ids += [self.cabinet.id, self.cabinet.drawer_id]
        reserved = {"table", "robot"}
        clash = sorted({i for i in ids if ids.count(i) > 1} | (set(ids) & reserved))
        if clash:
            raise ValueError(f"object ids must be unique and not 'table' or 'robot': {', '.join(clash)}")
        return self

    def affordances_of(self, object_id: str) -> tuple[Affordance, ...]:
        """The effective affordances of any object the scene names (movable, cabinet, drawer, table)."""
        spec = self.object_spec(object_id)
        if spec is not None:
            return spec.effective_affordances()
        cab = self.cabinet
        if cab is not None and object_id == cab.id:
            return _effective(cab.affordances, "cabinet")
        if cab is not None and object_id == cab.drawer_id:
            return _effective(cab.drawer_affordances, "drawer")
        if object_id == "table":
            return _effective(self.table_affordances, "table")
        raise KeyError(f"scene {self.name!r} has no object {object_id!r}")

    @classmethod
    def from_yaml(cls, path: Path) -> Scene:
        """Load a scene with the project's safe YAML loader (errors name file and field)."""
        from bt_executive.skills.loader import load_model

        return load_model(path, cls)

    def object_spec(self, object_id: str) -> ObjectSpec | None:
        """The spec of a movable object, or None."""
        return next((o for o in self.objects if o.id == object_id), None)

    def layout(self, seed: int | None = None) -> dict[str, Pose2D]:
        """Object poses for ``seed`` (the scene's own seed when None): deterministic, spaced, clear of the cabinet."""
        seed = self.seed if seed is None else seed
        poses = {o.id: o.pose for o in self.objects}
        rnd = self.randomisation
        # Biggest first: the plate and bowl find room before the cubes fill the region.
        movable = sorted((o for o in self.objects if o.randomise), key=lambda o: -o.footprint_radius)
        if not rnd.enabled or not movable:
            return poses
        rng = np.random.Generator(np.random.PCG64(seed))
        fixed = [(o.pose.x, o.pose.y, o.footprint_radius) for o in self.objects if not o.randomise]
        if self.cabinet is not None:
            cab = self.cabinet
            fixed.append((cab.pose.x, cab.pose.y, 0.5 * math.hypot(cab.size[0], cab.size[1]) + 0.02))
            # Keep the drawer's path clear: it slides out of the front (+x in the cabinet frame).
            reach = 0.5 * cab.size[0] + 0.5 * cab.drawer_travel + 0.05
            fixed.append(
                (
                    cab.pose.x + reach * math.cos(cab.pose.yaw),
                    cab.pose.y + reach * math.sin(cab.pose.yaw),
                    0.5 * math.hypot(cab.drawer_travel + 0.1, cab.size[1]) + 0.02,
                )
            )
        for _ in range(rnd.max_tries):
            placed = list(fixed)
            trial: dict[str, Pose2D] = {}
            for spec in movable:
                pose = self._sample(rng, spec, placed)
                if pose is None:
                    break
                trial[spec.id] = pose
                placed.append((pose.x, pose.y, spec.footprint_radius))
            else:
                poses.update(trial)
                return poses
        raise ValueError(f"scene {self.name!r}: no layout for seed {seed} after {rnd.max_tries} tries")

    def _sample(
        self, rng: np.random.Generator, spec: ObjectSpec, placed: list[tuple[float, float, float]]
    ) -> Pose2D | None:
        """The first of a batch of uniform candidates that keeps its clearance, or None."""
        rnd = self.randomisation
        n = 64
        xs = rng.uniform(rnd.x[0], rnd.x[1], n)
        ys = rng.uniform(rnd.y[0], rnd.y[1], n)
        yaws = rng.uniform(rnd.yaw_deg[0], rnd.yaw_deg[1], n)
        others = np.array(placed, dtype=float).reshape(-1, 3)
        gaps = np.hypot(xs[:, None] - others[None, :, 0], ys[:, None] - others[None, :, 1]) - others[None, :, 2]
        ok = np.all(gaps >= spec.footprint_radius + rnd.min_clearance, axis=1)
        if not ok.any():
            return None
        i = int(np.argmax(ok))
        yaw = float(yaws[i]) if spec.category == "cube" else 0.0
        return Pose2D(x=round(float(xs[i]), 6), y=round(float(ys[i]), 6), yaw_deg=round(yaw, 4))

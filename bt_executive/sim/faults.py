"""Fault injection: seeded, deterministic ways to make the simulated robot fail like a real one.

A fault file (``config/faults/*.yaml``) describes what goes wrong:

- ``missed_grasp``: with a probability per grasp, the grasp target the skill
  perceives is offset sideways, so the fingers close on nothing (on the side
  the arm can still reach, so it shows up as a missed grasp);
- ``object_removed``: after N skill calls (or N calls plus some ticks into
  the next one, i.e. mid-task) an object disappears or is moved out of reach;
- ``slowdown``: motions take ``factor`` times longer (so deadlines bite);
- ``server_crash``: carried for the ROS layer, which kills a skill server
  after N goals; the simulation itself does nothing with it;
- ``camera_dropout``: carried for the ROS layer too: a camera topic goes
  silent once sim time passes ``after_s`` (a driver that died), so a VLA
  skill must notice its frames going stale.

Every random draw comes from a generator seeded by the fault file's ``seed``
(or the backend's layout seed), one stream per fault kind, and a fixed
number of draws per call, so the same seed and the same calls give the same
faults, whatever happened in between.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bt_executive.sim.scene import ObjectId
from bt_executive.skills.text_rules import Line, Text


class MissedGraspFault(BaseModel):
    """Offset the perceived grasp target sideways with some probability, so the grasp closes on air."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    probability: float = Field(default=0.0, ge=0.0, le=1.0)
    first: int = Field(default=0, ge=0, le=100, description="the first N grasps always miss (deterministic demos)")
    offset_m: float = Field(default=0.065, gt=0.0, le=0.2, description="sideways error of the grasp target")
    skills: tuple[str, ...] = Field(default=("pick", "stack", "open_drawer"), description="skills whose grasps it hits")


class ObjectRemovalFault(BaseModel):
    """Take an object away, or put it out of reach, after some skill calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    object: ObjectId
    after_calls: int = Field(ge=0, description="skill calls that complete normally first")
    at_tick: int | None = Field(
        default=None, ge=0, description="None: before the next call starts; else this many ticks into it (mid-task)"
    )
    mode: Literal["remove", "out_of_reach"] = "remove"
    position: tuple[float, float] = Field(
        default=(0.95, 0.55), description="where out_of_reach puts it on the table (x, y)"
    )


class SlowdownFault(BaseModel):
    """Stretch motion durations by a factor, as a tired or throttled controller would."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    factor: float = Field(ge=1.0, le=100.0)
    probability: float = Field(default=1.0, ge=0.0, le=1.0, description="chance per skill call")
    skills: tuple[str, ...] = Field(default=(), description="skills it hits; empty means all")


class ServerCrashFault(BaseModel):
    """A skill action server dies after N goals (acted on by the ROS layer, carried here)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    after_goals: int = Field(ge=1)
    servers: tuple[str, ...] = Field(default=(), description="skill names whose servers crash; empty means all")
    restart_after_s: float | None = Field(default=None, gt=0.0, description="None: stays down")


class CameraDropoutFault(BaseModel):
    """A camera stops publishing once sim time passes ``after_s`` (acted on by the sim's robot topics)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    after_s: float = Field(ge=0.0, description="sim time after which the camera publishes nothing")
    cameras: tuple[str, ...] = Field(default=("front",), min_length=1, description="cameras that go silent")


class FaultConfig(BaseModel):
    """A fault file: which faults to inject and the seed that makes them repeatable."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Line = Field(min_length=1, max_length=64)
    description: Text = Field(default="", max_length=500)
    seed: int | None = Field(default=None, ge=0, description="None: use the backend's layout seed")
    missed_grasp: MissedGraspFault | None = None
    object_removed: tuple[ObjectRemovalFault, ...] = ()
    slowdown: SlowdownFault | None = None
    server_crash: ServerCrashFault | None = None
    camera_dropout: CameraDropoutFault | None = None

    @classmethod
    def from_yaml(cls, path: Path) -> FaultConfig:
        """Load a fault file with the project's safe YAML loader (errors name file and field)."""
        from bt_executive.skills.loader import load_model

        return load_model(path, cls)


@dataclass(frozen=True)
class FaultEvent:
    """One fault that actually fired: what, during which skill call, and when."""

    kind: str
    call: int
    skill: str
    sim_time: float
    detail: dict[str, JsonValue] = field(default_factory=dict)


_MISSED_GRASP_STREAM = 1
_SLOWDOWN_STREAM = 2


class FaultInjector:
    """Decides, call by call, which faults of a ``FaultConfig`` fire; the backend applies them."""

    def __init__(self, config: FaultConfig | None, seed: int) -> None:
        self.config = config
        self.reset(seed)

    def reset(self, seed: int) -> None:
        """Start over: no calls made, generators re-seeded."""
        base = self.config.seed if self.config is not None and self.config.seed is not None else seed
        self._grasp_rng = np.random.default_rng([base, _MISSED_GRASP_STREAM])
        self._slow_rng = np.random.default_rng([base, _SLOWDOWN_STREAM])
        self.calls = 0
        self.skill = ""
        self.slowdown = 1.0
        self.events: list[FaultEvent] = []
        self._removals_done: set[int] = set()
        self._grasps = 0

    def begin_call(self, skill: str, sim_time: float) -> None:
        """A skill call starts: count it and draw its slowdown."""
        self.calls += 1
        self.skill = skill
        self.slowdown = 1.0
        slow = self.config.slowdown if self.config is not None else None
        if slow is not None:
            draw = float(self._slow_rng.random())
            if (not slow.skills or skill in slow.skills) and draw < slow.probability:
                self.slowdown = slow.factor
                self._record("slowdown", sim_time, {"factor": slow.factor})

    def removals_due(self, ticks_into_call: int | None) -> list[ObjectRemovalFault]:
        """Removals to apply now: before a call starts (``None``) or this many ticks into it."""
        if self.config is None:
            return []
        due = []
        for i, fault in enumerate(self.config.object_removed):
            if i in self._removals_done:
                continue
            if fault.at_tick is None:
                fire = ticks_into_call is None and self.calls > fault.after_calls
            else:
                fire = (
                    self.calls == fault.after_calls + 1
                    and ticks_into_call is not None
                    and ticks_into_call >= fault.at_tick
                )
            if fire:
                self._removals_done.add(i)
                due.append(fault)
        return due

    def record_removal(self, fault: ObjectRemovalFault, sim_time: float) -> None:
        """Note that a removal was applied."""
        kind = "object_removed" if fault.mode == "remove" else "object_out_of_reach"
        self._record(kind, sim_time, {"object": fault.object})

    def grasp_offset(
        self,
        skill: str,
        finger_yaw: float,
        sim_time: float,
        usable: Callable[[tuple[float, float]], bool] | None = None,
    ) -> tuple[float, float] | None:
        """The perception error of this grasp (x, y metres), or None: two draws per grasp, whatever the outcome.

        The error is sideways to the closing direction, so the fingers come down
        beside the object, not on it. Its side is drawn; when ``usable`` says
        that side is out of the arm's reach, the other side is used, so the
        fault shows up as the missed grasp it models rather than as an
        unreachable target.
        """
        fault = self.config.missed_grasp if self.config is not None else None
        if fault is None:
            return None
        draw, side = self._grasp_rng.random(2)
        if skill not in fault.skills:
            return None
        self._grasps += 1
        if self._grasps > fault.first and draw >= fault.probability:
            return None
        sign = 1.0 if side < 0.5 else -1.0
        offset = (-math.sin(finger_yaw) * fault.offset_m * sign, math.cos(finger_yaw) * fault.offset_m * sign)
        if usable is not None and not usable(offset):
            flipped = (-offset[0], -offset[1])
            offset = flipped if usable(flipped) else offset
        self._record("missed_grasp", sim_time, {"offset": [round(offset[0], 4), round(offset[1], 4)]})
        return offset

    @property
    def crash_after_goals(self) -> int | None:
        """For the ROS layer: crash a skill server after this many goals, or None."""
        crash = self.config.server_crash if self.config is not None else None
        return crash.after_goals if crash is not None else None

    def _record(self, kind: str, sim_time: float, detail: dict[str, JsonValue]) -> None:
        self.events.append(FaultEvent(kind=kind, call=self.calls, skill=self.skill, sim_time=sim_time, detail=detail))

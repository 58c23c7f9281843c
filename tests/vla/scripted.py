"""A recording robot and scripted policies, for testing the VLA loop's logic without physics.

``RecordingRobot`` is a real ``RobotInterface`` whose world never changes:
it records every action row it is given, so tests can say exactly which
chunks were executed. ``ScriptedPolicy`` answers each ``infer`` from a list
of steps (a chunk, a delay, an exception, a stall), so a test states the
policy's behaviour call by call.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from bt_executive.skills.policy import ActionChunk, PolicyObservation
from bt_executive.skills.robot_interface import RobotObservation
from bt_executive.skills.world_state import WorldState

FRAME = (224, 224, 3)


class RecordingRobot:
    """A 7-D robot that only remembers what it was told (its world state never changes)."""

    action_dim = 7

    def __init__(self, world: WorldState | None = None) -> None:
        self.actions: list[npt.NDArray[np.float64]] = []
        self.holds = 0
        self.world = world or WorldState()
        self._lock = threading.Lock()

    def observe(self, cameras: Iterable[str]) -> RobotObservation:
        """Black frames and the latest commanded row as the state."""
        with self._lock:
            state = self.actions[-1].copy() if self.actions else np.zeros(self.action_dim)
        return RobotObservation(images={c: np.zeros(FRAME, dtype=np.uint8) for c in cameras}, state=state)

    def act(self, action: npt.NDArray[np.float64], period_s: float) -> None:
        """Record the row."""
        with self._lock:
            self.actions.append(np.array(action, dtype=np.float64))

    def hold(self) -> None:
        """Count the hold."""
        with self._lock:
            self.holds += 1

    def world_state(self) -> WorldState:
        """The fixed world."""
        return self.world

    def applied(self) -> int:
        """How many rows were applied so far."""
        with self._lock:
            return len(self.actions)


@dataclass(frozen=True)
class Step:
    """How the policy answers one ``infer``: after ``delay_s``, the ``chunk``, or raise ``error``, or stall."""

    chunk: ActionChunk | None = None
    delay_s: float = 0.0
    error: Exception | None = None
    stall: bool = False


def chunk(marker: float, length: int = 10) -> ActionChunk:
    """A (length, 7) chunk whose every value is ``marker``, so its rows are recognisable on the robot."""
    return np.full((length, 7), marker, dtype=np.float64)


class ScriptedPolicy:
    """A Policy that plays ``steps`` in order, then repeats the last one."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.calls = 0
        self.prompts: list[str] = []
        self.observations: list[PolicyObservation] = []
        self.release = threading.Event()
        """Set it to let a stalled ``infer`` return (tests set it at teardown)."""

    @property
    def metadata(self) -> Mapping[str, Any]:
        """Says what it is."""
        return {"policy": "scripted", "action_dim": 7}

    def reset(self, prompt: str) -> None:
        """Record the prompt."""
        self.prompts.append(prompt)

    def infer(self, observation: PolicyObservation) -> ActionChunk:
        """Play the next step."""
        step = self.steps[min(self.calls, len(self.steps) - 1)]
        self.calls += 1
        self.observations.append(observation)
        if step.stall:
            self.release.wait(60.0)
        if step.delay_s:
            time.sleep(step.delay_s)
        if step.error is not None:
            raise step.error
        assert step.chunk is not None
        return step.chunk

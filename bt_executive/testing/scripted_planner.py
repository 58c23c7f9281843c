"""ScriptedPlanner: a Planner that answers from a script and records what it was asked.

For tree tests that need a planner's answers to be known in advance (the
stub planner is for tasks; this is for recovery paths)::

    planner = ScriptedPlanner([plan_a, plan_b, PlannerError("model down")])
    ...
    assert planner.requests[1].attempts[-1].result.failure_kind == "not_found"

Each ``plan`` call takes the next entry (a Plan is returned, an exception is
raised) after ``delay_s``; past the end of the script it raises PlannerError.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bt_executive.llm.plan import Plan, PlannerError
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.world_state import WorldState


@dataclass(frozen=True)
class PlanRequest:
    """One call the planner received."""

    task: str
    world: WorldState
    attempts: tuple[AttemptRecord, ...]


class ScriptedPlanner:
    """Answers ``plan`` calls from a fixed script; thread-safe (trees call it from a worker)."""

    def __init__(self, script: Iterable[Plan | Exception], delay_s: float = 0.0) -> None:
        self._script = list(script)
        self.delay_s = delay_s
        self.requests: list[PlanRequest] = []
        self._lock = threading.Lock()

    def plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord] = ()) -> Plan:
        """The next scripted answer."""
        with self._lock:
            self.requests.append(PlanRequest(task, world_state, tuple(prior_attempts)))
            index = len(self.requests) - 1
        if self.delay_s:
            time.sleep(self.delay_s)
        if index >= len(self._script):
            raise PlannerError(f"the script has {len(self._script)} answer(s); call {index + 1} has none")
        answer = self._script[index]
        if isinstance(answer, Exception):
            raise answer
        return answer

"""In-process leaves with scripted endings, for testing tree logic without a robot.

The recovery and replan logic is the tree's own; these leaves stand in for
skills so that logic can be driven through every path in milliseconds. The
same paths against real action servers are in test_task_tree_ros.py.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable

import py_trees
from py_trees.common import Status

from bt_executive.skills.call import SkillCall, SkillResult
from bt_executive.skills.failures import FailureKind


class ScriptedLeaf(py_trees.behaviour.Behaviour):
    """Ends after ``ticks`` ticks with the next scripted result for its skill."""

    def __init__(self, factory: ScriptedLeafFactory, call: SkillCall, name: str) -> None:
        super().__init__(name)
        self.factory = factory
        self.call = call
        self.result: SkillResult | None = None
        self._ticks = 0
        self.halted = False

    def initialise(self) -> None:
        self.result = None
        self._ticks = 0
        self.factory.started.append(self.call)

    def update(self) -> Status:
        self._ticks += 1
        if self._ticks < self.factory.ticks:
            return Status.RUNNING
        self.result = self.factory.next_result(self.call)
        if self.result.success:
            self.factory.on_success(self.call)
        return Status.SUCCESS if self.result.success else Status.FAILURE

    def terminate(self, new_status: Status) -> None:
        if new_status == Status.INVALID and self.status == Status.RUNNING:
            self.halted = True
            self.factory.halted.append(self.call)


class ScriptedLeafFactory:
    """A LeafFactory whose leaves end as scripted per skill id (success once the script runs out)."""

    def __init__(self, ticks: int = 2) -> None:
        self.ticks = ticks
        self.scripts: dict[str, deque[SkillResult]] = defaultdict(deque)
        self.started: list[SkillCall] = []
        self.halted: list[SkillCall] = []
        self.succeeded: list[SkillCall] = []
        self.leaves: list[ScriptedLeaf] = []

    def script(self, skill: str, *kinds: FailureKind | None) -> None:
        """Queue endings for ``skill``: a failure kind each, None for a success."""
        for kind in kinds:
            self.scripts[skill].append(
                SkillResult.ok() if kind is None else SkillResult.failed(kind, f"scripted_{kind.value}")
            )

    def next_result(self, call: SkillCall) -> SkillResult:
        queue = self.scripts[call.skill]
        return queue.popleft() if queue else SkillResult.ok()

    def on_success(self, call: SkillCall) -> None:
        self.succeeded.append(call)

    def __call__(self, call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        leaf = ScriptedLeaf(self, call, name)
        self.leaves.append(leaf)
        return leaf


def labels(calls: Iterable[SkillCall]) -> list[str]:
    """``["pick(red_cube)", ...]``."""
    return [c.label() for c in calls]

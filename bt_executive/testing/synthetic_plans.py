"""Plans of any length that pass the plan check, and leaves that never end: for timing tree overhead.

``pick_place_plan(n)`` alternates pick(cube_i) and place_on(plate);
``cubes_world(n)`` is a world state it is valid in; ``running_leaf_factory``
makes leaves that stay RUNNING, so a timed tick measures the tree, not a robot.
"""

from __future__ import annotations

import py_trees
from py_trees.common import Status

from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall, SkillResult
from bt_executive.skills.world_state import ObjectState, WorldState


class RunningLeaf(py_trees.behaviour.Behaviour):
    """A skill leaf that never ends: the cost of ticking it is the floor any tree around it adds to."""

    def __init__(self, call: SkillCall, name: str) -> None:
        super().__init__(name)
        self.call = call
        self.result: SkillResult | None = None

    def update(self) -> Status:
        """Always RUNNING."""
        return Status.RUNNING


def running_leaf_factory(call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
    """A ``LeafFactory`` of RunningLeaf."""
    return RunningLeaf(call, name)


def pick_place_plan(steps: int) -> Plan:
    """Pick cube i, place it on the plate, pick the next one...: ``steps`` calls the plan check accepts."""
    calls = [
        SkillCall(skill="tabletop/pick", args={"object": f"cube_{i // 2}"})
        if i % 2 == 0
        else SkillCall(skill="tabletop/place_on", args={"target": "plate"})
        for i in range(steps)
    ]
    return Plan(steps=tuple(calls))


def cubes_world(steps: int) -> WorldState:
    """Enough cubes and a plate for ``pick_place_plan(steps)``."""
    cubes = [ObjectState(id=f"cube_{i}", category="cube", position=(0.4, 0.0, 0.02)) for i in range(steps)]
    return WorldState(objects=(*cubes, ObjectState(id="plate", category="plate", position=(0.4, 0.2, 0.0))))

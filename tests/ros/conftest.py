"""Shared setup for the ROS tests: a pick skill, and a rig that wires a leaf to the fake server process.

The fixtures it builds on (``ros_harness``, ``fake_skill_server``,
``clean_blackboard``) come from the bt_executive.testing plugin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import JsonValue
from rclpy.node import Node

from bt_executive.skills import SkillCall, SkillManifest
from bt_executive.skills.action_client_pool import SharedActionClient
from bt_executive.skills.action_skill import ActionSkillOptions, RosActionSkill
from bt_executive.testing import FakeSkillServer, RosHarness, valid_manifest_data

PICK_ACTION = "skills/pick"
TICK_S = 0.005
"""Tick period of the trees under test (200 Hz)."""
MAX_TICKS = 6000
"""At most 30 s of ticks before a goal's ending must have come: run_tree stops as soon as the tree ends, so
a generous bound costs nothing when all is well, and a loaded machine (a first goal answer lost right after
discovery and sent again 2 s later) still gets its answer. Never a window to count events in."""
DISCOVERY_TIMEOUT_S = 15.0


def pick_manifest(**overrides: Any) -> SkillManifest:
    """``test/pick`` as a RunSkill skill on ``skills/pick``, with a default grasp goal."""
    data = valid_manifest_data(
        parameters={
            "type": "object",
            "properties": {
                "object": {"type": "string", "minLength": 1},
                "grasp": {"type": "object", "properties": {"lift_height": {"type": "number"}}},
            },
            "required": ["object"],
            "additionalProperties": False,
        },
        timeout_s=10,
        ros={
            "action_name": PICK_ACTION,
            "default_goal": {"grasp": {"approach_height": 0.12, "lift_height": 0.15}},
            "field_mapping": {"skill_id": "$skill", "args_json": "$args_json", "prompt": "$prompt"},
        },
    )
    data.update(overrides)
    return SkillManifest.model_validate(data)


def pick(obj: str = "red_cube", **args: JsonValue) -> SkillCall:
    """A call of ``test/pick`` for ``obj``."""
    return SkillCall(skill="test/pick", args={"object": obj, **args})


@dataclass
class Rig:
    """A harness node for leaves, and the fake server process they talk to."""

    harness: RosHarness
    server: FakeSkillServer
    node: Node
    skills: list[RosActionSkill] = field(default_factory=list)

    def skill(
        self,
        call: SkillCall | None = None,
        manifest: SkillManifest | None = None,
        key: str | None = None,
        **options: Any,
    ) -> RosActionSkill:
        """A RosActionSkill on the rig's node (create them all before ``go``)."""
        leaf = RosActionSkill(
            manifest or pick_manifest(), call or pick(), self.node, ActionSkillOptions(**options), key=key
        )
        self.skills.append(leaf)
        return leaf

    def go(self, *, discover: bool = True) -> None:
        """Spin, and (with a started server) wait until every leaf has discovered it."""
        self.harness.start()
        if discover:
            for leaf in self.skills:
                self.harness.wait_until(leaf.server_is_ready, DISCOVERY_TIMEOUT_S, f"discovery of {leaf.action_name}")


@pytest.fixture
def rig(ros_harness: RosHarness, fake_skill_server: FakeSkillServer, clean_blackboard: None) -> Rig:
    """A node in this test's namespace and an unstarted fake server in the same namespace."""
    return Rig(ros_harness, fake_skill_server, ros_harness.node("executive"))


class AnswerLosingClient(SharedActionClient):
    """A shared client that never sees a goal response, as when the server's reply found no reader."""

    async def execute(self, taken_data: Any) -> None:
        if isinstance(taken_data, dict):
            taken_data.pop("goal", None)
        await super().execute(taken_data)

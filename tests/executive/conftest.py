"""Shared setup for the executive tests: the node in-process, a client node, the fake skill server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rclpy.node import Node
from std_msgs.msg import String

from bt_executive.cli.task_client import TaskClient
from bt_executive.executive.node import ExecutiveNode
from bt_executive.executive.params import ExecutiveParams
from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.testing import FakeSkillServer, RosHarness
from bt_executive.testing.scripted_planner import ScriptedPlanner

PICK = SkillCall(skill="tabletop/pick", args={"object": "red_cube"})
PLACE = SkillCall(skill="tabletop/place_on", args={"target": "plate"})
HOME = SkillCall(skill="tabletop/home", args={})


class Rig:
    """The executive node, a client node, and the fake skill server, in one namespace."""

    def __init__(
        self, harness: RosHarness, server: FakeSkillServer, runs: Path, plans: list[Plan], tick_rate_hz: float = 100.0
    ) -> None:
        self.harness = harness
        self.server = server
        self.planner = ScriptedPlanner(plans)
        params = ExecutiveParams(tick_rate_hz=tick_rate_hz, world_state_wait_s=0.0, run_dir=str(runs))
        self.executive = ExecutiveNode(
            harness.context, params, lambda _profile, _registry: self.planner, namespace=harness.namespace
        )
        harness.adopt(self.executive.node)
        self.client_node: Node = harness.node("client")
        self.snapshots: list[dict[str, Any]] = []
        self.client_node.create_subscription(
            String, f"{harness.namespace}/bt_executive/tree", lambda m: self.snapshots.append(json.loads(m.data)), 10
        )

    def client(self) -> TaskClient:
        return TaskClient(self.client_node, self.harness.namespace)


@pytest.fixture
def make_rig(
    ros_harness: RosHarness, fake_skill_server: FakeSkillServer, tmp_path: Path, clean_blackboard: None
) -> Iterator[Any]:
    rigs: list[Rig] = []

    def make(*plans: Plan, tick_rate_hz: float = 100.0) -> Rig:
        rigs.append(Rig(ros_harness, fake_skill_server, tmp_path / "runs", list(plans), tick_rate_hz))
        return rigs[-1]

    yield make
    # A test that failed mid-task leaves its goal's execute callback waiting for the task to end: end it,
    # or the harness's executor waits for that callback forever when it shuts down.
    for rig in rigs:
        rig.executive.shutdown()


def start(rig: Rig, *clients: TaskClient) -> None:
    rig.server.start()
    rig.harness.start()
    for client in clients:
        assert client.wait_for_server(15.0)

"""A watcher in this process streams a running ``bt-executive serve`` (a child process, with the sim) through the
py_trees_ros snapshot-stream services, as ``py-trees-tree-watcher`` does."""

from __future__ import annotations

import json
import math
import os
import queue
import time
from pathlib import Path
from typing import Any

import pytest

from bt_executive.cli.process_group import ProcessGroup
from bt_executive.cli.task_client import TaskClient
from bt_executive.executive.tree_topic import tree_qos
from bt_executive.testing import RosHarness
from tests.interop.ports import free_port_pair

pytest.importorskip("py_trees_ros_interfaces.srv", reason="py_trees_ros_interfaces is built by `make interfaces`")

from py_trees_ros_interfaces.msg import Behaviour, BehaviourTree
from py_trees_ros_interfaces.srv import CloseSnapshotStream, OpenSnapshotStream
from std_msgs.msg import String

pytestmark = [pytest.mark.ros, pytest.mark.sim, pytest.mark.slow]

TASK = "put the red cube on the plate"
STATUS = {"INVALID": Behaviour.INVALID, "RUNNING": Behaviour.RUNNING, "SUCCESS": Behaviour.SUCCESS}
STATUS["FAILURE"] = Behaviour.FAILURE


def drain(received: queue.Queue[Any]) -> list[Any]:
    out = []
    while not received.empty():
        out.append(received.get_nowait())
    return out


def by_id(message: Any) -> dict[str, tuple[str, int]]:
    """(name, status) of every behaviour, by its uuid as text."""
    import uuid

    return {str(uuid.UUID(bytes=bytes(b.own_id.uuid))): (b.name, b.status) for b in message.behaviours}


def groot2_tree_root(port: int) -> str | None:
    """The root's name in the tree btview (a Groot2 client from PyPI) fetches from ``serve --groot2-port``."""
    btview_client = pytest.importorskip("btview.client", reason="btview (requirements.txt) is the Groot2 client")
    client = btview_client.Groot2Client("127.0.0.1", port, timeout_ms=5000)
    try:
        roots = client.fetch_tree().roots
        return str(roots[0].name) if roots else None
    finally:
        client.close()


def test_a_stream_opened_through_the_service_streams_the_running_executives_tree(
    ros_harness: RosHarness, ros_domain_id: int, tmp_path: Path
) -> None:
    ns = ros_harness.namespace
    env = {**os.environ, "ROS_DOMAIN_ID": str(ros_domain_id)}
    watcher = ros_harness.node("tree_watcher")
    open_client: Any = watcher.create_client(OpenSnapshotStream, f"{ns}/bt_executive/snapshot_streams/open")
    close_client: Any = watcher.create_client(CloseSnapshotStream, f"{ns}/bt_executive/snapshot_streams/close")
    tree_json: queue.Queue[Any] = queue.Queue()
    watcher.create_subscription(String, f"{ns}/bt_executive/tree", tree_json.put, tree_qos())
    tasks = TaskClient(watcher, ns)
    groot2_port = free_port_pair()
    with ProcessGroup(echo=None, env=env) as group:
        sim = group.start("sim", ["sim", "--namespace", ns], ready=r"^sim ready")
        serve = group.start(
            "serve",
            [
                "serve",
                "--namespace",
                ns,
                "--planner",
                "stub",
                "--run-dir",
                str(tmp_path / "runs"),
                "--groot2-port",
                str(groot2_port),
            ],
            ready=r"^executive ready",
        )
        group.wait_ready(sim, 120)
        group.wait_ready(serve, 120)
        ros_harness.start()
        assert open_client.wait_for_service(timeout_sec=15.0)
        request = OpenSnapshotStream.Request()
        request.parameters.snapshot_period = math.inf  # changed-only
        opened = ros_harness.call(open_client, request, what="the open service")
        opened_response: Any = opened
        topic = str(opened_response.topic_name)
        received: queue.Queue[Any] = queue.Queue()
        subscription = watcher.create_subscription(BehaviourTree, topic, received.put, tree_qos())
        ros_harness.wait_until(lambda: watcher.count_publishers(topic) == 1, 10.0, "the stream's publisher")
        result = tasks.run(TASK, timeout_s=120.0)
        ros_harness.wait_until(lambda: not received.empty(), 10.0, "a snapshot")
        time.sleep(1.0)  # the last snapshots arrive
        groot2_root = groot2_tree_root(groot2_port)
        messages, snapshots = drain(received), [json.loads(m.data) for m in drain(tree_json)]
        watcher.destroy_subscription(subscription)  # as a watcher leaves: then the topic is the stream's alone
        closed = ros_harness.call(close_client, CloseSnapshotStream.Request(topic_name=topic), what="the close service")
        ros_harness.wait_until(
            lambda: topic not in dict(watcher.get_topic_names_and_types()), 10.0, "the closed stream's topic to go"
        )
    last_json = {key: (entry["name"], STATUS[entry["status"]]) for key, entry in snapshots[-1]["behaviours"].items()}
    root = [b.name for b in messages[-1].behaviours if not any(b.parent_id.uuid)]
    closed_response: Any = closed
    outcome = (
        result.final_reason,
        root,
        by_id(messages[-1]),
        all(m.changed for m in messages),
        closed_response.result,
        groot2_root,
    )
    assert outcome == (
        "done",
        [f'Task "{TASK}"'],
        last_json,
        True,
        True,
        f'Task "{TASK}"',
    )

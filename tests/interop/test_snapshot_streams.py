"""py_trees_ros snapshot streams over real rclpy: open, stream tick for tick, changed-only, reconfigure, close."""

from __future__ import annotations

import collections
import contextlib
import math
import queue
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import py_trees
import pytest
from py_trees.common import Status

from bt_executive.executive.snapshot_streams import SnapshotStreams
from bt_executive.executive.tree_topic import tree_qos
from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing.ros_harness import RosHarness
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.live_snapshot import LiveSnapshot
from bt_executive.trees.snapshot import walk
from bt_executive.trees.task_tree import TaskTree
from tests.trees.scripted_leaves import ScriptedLeafFactory

pytest.importorskip("py_trees_ros_interfaces.srv", reason="py_trees_ros_interfaces is built by `make interfaces`")

from py_trees_ros_interfaces.msg import Behaviour, BehaviourTree
from py_trees_ros_interfaces.srv import (
    CloseSnapshotStream,
    OpenSnapshotStream,
    ReconfigureSnapshotStream,
)

PLAN = Plan(
    steps=(
        SkillCall(skill="tabletop/pick", args={"object": "red_cube"}),
        SkillCall(skill="tabletop/place_on", args={"target": "plate"}),
    ),
    planner="scripted",
)
STATUS = {Status.INVALID: 1, Status.RUNNING: 2, Status.SUCCESS: 3, Status.FAILURE: 4}
ZERO = bytes(16)
WAIT_S = 5.0


@dataclass
class Rig:
    """An executive-side node with the streams and a task tree ticked by hand, and a watcher node."""

    harness: RosHarness
    streams: SnapshotStreams
    node: Any
    tree: TaskTree
    live: LiveSnapshot
    watcher: Any
    clients: dict[str, Any]
    ticks: int = 0
    last_changed: int = -1
    """The last tick (from 0) that changed the tree: every stream sent a message for it."""

    def tick(self) -> bool:
        """One tick, fed to the streams as the executive feeds them; whether the tree changed."""
        started = time.monotonic()
        self.tree.tick_once()
        changed = self.live.update()
        if changed:
            self.streams.on_snapshot(self.live.snapshot())
            self.last_changed = self.ticks
        self.streams.post_tick(started, time.monotonic() - started)
        self.ticks += 1
        return changed

    def run(self, max_ticks: int = 60) -> int:
        """Tick until the task ends; how many ticks changed the tree."""
        changes = 0
        for _ in range(max_ticks):
            changes += self.tick()
            if self.tree.final_reason is not None:
                return changes
        raise AssertionError(f"the task did not end in {max_ticks} ticks")

    def call(self, name: str, request: Any) -> Any:
        future = self.clients[name].call_async(request)
        self.harness.wait_until(future.done, WAIT_S, f"the {name} service")
        return future.result()

    def open(self, period: float = math.inf, topic_name: str = "") -> str:
        request = OpenSnapshotStream.Request(topic_name=topic_name)
        request.parameters.snapshot_period = period
        return str(self.call("open", request).topic_name)

    def subscribe(self, topic: str) -> queue.Queue[Any]:
        """Messages on ``topic``, once the stream's publisher and this subscription have matched."""
        received: queue.Queue[Any] = queue.Queue()
        self.watcher.create_subscription(BehaviourTree, topic, received.put, tree_qos())
        self.harness.wait_until(lambda: self.watcher.count_publishers(topic) == 1, WAIT_S, "the stream's publisher")
        self.harness.wait_until(lambda: self.node.count_subscribers(topic) == 1, WAIT_S, "the watcher's subscription")
        return received

    def messages_per_tick(
        self, topic: str, expected: Callable[[bool], int], max_ticks: int = 60
    ) -> list[tuple[bool, int, int]]:
        """Tick to the end: (did the tick change the tree, messages published for it, messages received for it).

        Published is what the stream sent (``SnapshotStreams.sent``): a second message in one tick shows
        there, where the keep-last-1 topic could hide it from a watcher by chance. Received messages are
        counted by the tick they name (``statistics.count``), never by when they arrive: after each tick
        the test waits (up to WAIT_S, for a loaded machine) for the messages the stream should send for it
        (``expected(changed)``) before the next tick, since the topic keeps one message.
        """
        received = self.subscribe(topic)
        sent: collections.Counter[int] = collections.Counter()
        changes = []
        published = []
        for tick in range(max_ticks):
            before = self.streams.sent(topic)
            changes.append(self.tick())
            published.append(self.streams.sent(topic) - before)
            deadline = time.monotonic() + WAIT_S
            while sent[tick] < expected(changes[-1]) and time.monotonic() < deadline:
                with contextlib.suppress(queue.Empty):
                    sent[received.get(timeout=0.05).statistics.count] += 1
            if self.tree.final_reason is not None:
                while not received.empty():
                    sent[received.get_nowait().statistics.count] += 1
                return [(changed, published[n], sent[n]) for n, changed in enumerate(changes)]
        raise AssertionError(f"the task did not end in {max_ticks} ticks")

    def last_message(self, received: queue.Queue[Any]) -> Any:
        """The message for the last tick that changed the tree (waiting for it), past any earlier ones."""
        while True:
            message = next_message(received)
            if message.statistics.count >= self.last_changed:
                return message


@pytest.fixture
def rig(ros_harness: RosHarness, skill_registry: SkillRegistry, clean_blackboard: None) -> Iterator[Rig]:
    node = ros_harness.node("bt_executive")
    watcher = ros_harness.node("tree_watcher")
    tree = TaskTree(
        "put the red cube on the plate",
        planner=ScriptedPlanner([PLAN]),
        registry=skill_registry,
        leaf_factory=ScriptedLeafFactory(ticks=4),
    )
    streams = SnapshotStreams(node, visited=lambda: tree.last_visited)
    clients: dict[str, Any] = {
        "open": watcher.create_client(OpenSnapshotStream, "bt_executive/snapshot_streams/open"),
        "close": watcher.create_client(CloseSnapshotStream, "bt_executive/snapshot_streams/close"),
        "reconfigure": watcher.create_client(ReconfigureSnapshotStream, "bt_executive/snapshot_streams/reconfigure"),
    }
    ros_harness.start()
    for client in clients.values():
        assert client.wait_for_service(timeout_sec=WAIT_S)
    yield Rig(ros_harness, streams, node, tree, LiveSnapshot(tree), watcher, clients)
    streams.shutdown()


def expected(tree: TaskTree) -> list[tuple[bytes, bytes, int, bool]]:
    """(own id, parent id, status, visited on the last tick) of every node, in pre-order."""
    visited = {node.id for node in tree.last_visited}
    return [(node.id.bytes, parent_id(node), STATUS[node.status], node.id in visited) for node in walk(tree.root)]


def parent_id(node: py_trees.behaviour.Behaviour) -> bytes:
    return node.parent.id.bytes if node.parent is not None else ZERO


def seen(message: Any) -> list[tuple[bytes, bytes, int, bool]]:
    return [(bytes(b.own_id.uuid), bytes(b.parent_id.uuid), b.status, b.is_active) for b in message.behaviours]


def next_message(received: queue.Queue[Any]) -> Any:
    return received.get(timeout=WAIT_S)


def test_open_answers_a_hidden_topic_under_the_node(rig: Rig) -> None:
    assert rig.open() == f"{rig.harness.namespace}/bt_executive/snapshot_streams/_snapshots_0"


def test_a_relative_topic_name_goes_under_snapshot_streams(rig: Rig) -> None:
    assert rig.open(topic_name="mine") == f"{rig.harness.namespace}/bt_executive/snapshot_streams/mine"


def test_a_stream_follows_the_tree_tick_for_tick(rig: Rig) -> None:
    received = rig.subscribe(rig.open())
    mismatches = []
    for tick in range(40):
        if rig.tick():
            message = next_message(received)
            if seen(message) != expected(rig.tree):
                mismatches.append(tick)
        if rig.tree.final_reason is not None:
            break
    assert (rig.tree.final_reason, mismatches) == ("done", [])


def test_the_root_is_the_behaviour_whose_parent_is_all_zeros(rig: Rig) -> None:
    received = rig.subscribe(rig.open())
    rig.tick()
    roots = [b for b in next_message(received).behaviours if bytes(b.parent_id.uuid) == ZERO]
    assert [uuid.UUID(bytes=bytes(b.own_id.uuid)) for b in roots] == [rig.tree.root.id]


def test_a_custom_composite_is_sent_as_a_behaviour_with_children(rig: Rig) -> None:
    received = rig.subscribe(rig.open())
    rig.run()
    message = rig.last_message(received)
    attempts = [(b.type, len(b.child_ids), b.blackbox_level) for b in message.behaviours if "Attempts" in b.name]
    assert attempts == [(Behaviour.BEHAVIOUR, 2, 4)] * 2


def test_a_changed_only_stream_publishes_only_when_the_tree_changes(rig: Rig) -> None:
    per_tick = rig.messages_per_tick(rig.open(period=math.inf), expected=int)
    assert [(published, received) for _, published, received in per_tick] == [
        (int(changed), int(changed)) for changed, _, _ in per_tick
    ]


def test_a_periodic_stream_also_publishes_unchanged_trees(rig: Rig) -> None:
    per_tick = rig.messages_per_tick(rig.open(period=0.0), expected=lambda _changed: 1)
    assert [(published, received) for _, published, received in per_tick] == [(1, 1)] * len(per_tick)


def test_reconfigure_turns_a_changed_only_stream_periodic(rig: Rig) -> None:
    topic = rig.open(period=math.inf)
    request = ReconfigureSnapshotStream.Request(topic_name=topic)
    request.parameters.snapshot_period = 0.0
    assert rig.call("reconfigure", request).result is True


def test_closing_a_stream_removes_its_topic(rig: Rig) -> None:
    topic = rig.open()
    rig.harness.wait_until(lambda: rig.watcher.count_publishers(topic) == 1, WAIT_S, "the stream's publisher")
    assert rig.call("close", CloseSnapshotStream.Request(topic_name=topic)).result is True
    rig.harness.wait_until(
        lambda: topic not in dict(rig.watcher.get_topic_names_and_types()), WAIT_S, "the topic to go away"
    )


def test_closing_a_stream_that_is_not_open_answers_false(rig: Rig) -> None:
    assert rig.call("close", CloseSnapshotStream.Request(topic_name="/no/such/stream")).result is False


def test_blackboard_data_comes_from_the_visited_path(rig: Rig) -> None:
    reader = py_trees.blackboard.Client(name="reader")
    reader.register_key("probe", access=py_trees.common.Access.WRITE)
    reader.probe = 7
    rig.tree.root.blackboards.append(reader)
    request = OpenSnapshotStream.Request()
    request.parameters.snapshot_period = math.inf
    request.parameters.blackboard_data = True
    received = rig.subscribe(str(rig.call("open", request).topic_name))
    rig.tick()
    assert [(kv.key, kv.value) for kv in next_message(received).blackboard_on_visited_path] == [("/probe", "7")]


def test_a_stream_nobody_subscribes_to_sends_nothing_and_a_late_watcher_gets_the_current_tree(rig: Rig) -> None:
    topic = rig.open()
    for _ in range(6):
        rig.tick()
    sent_unwatched = rig.streams.sent(topic)
    received = rig.subscribe(topic)
    first = next_message(received)
    assert (sent_unwatched, rig.streams.sent(topic), seen(first)) == (0, 1, expected(rig.tree))

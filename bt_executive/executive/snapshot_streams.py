"""py_trees_ros snapshot streams: the executive's tree for ``py-trees-tree-watcher`` and ``py_trees_ros_viewer``.

::

    ~/snapshot_streams/open          OpenSnapshotStream: topic_name ("" = a new hidden one), parameters
    ~/snapshot_streams/close         CloseSnapshotStream: topic_name -> result (False: no such stream)
    ~/snapshot_streams/reconfigure   ReconfigureSnapshotStream: topic_name, parameters -> result
    ~/snapshots                      the default stream (parameter default_snapshot_stream)

The same interface a ``py_trees_ros.trees.BehaviourTree`` offers, on the
executive's node: a watcher finds the services by type, opens a stream,
subscribes to the topic the service answers with (``BehaviourTree`` messages,
latched: reliable, transient local, depth 1) and closes it when done, which
destroys the publisher and with it the topic. Topic names expand as in
py_trees_ros: empty -> ``~/snapshot_streams/_snapshots_<n>``, relative ->
``~/snapshot_streams/<name>``, ``~/...`` and absolute names as given.

Each stream publishes after a tick that changed the tree (status, name or
shape: the executive's one incremental snapshot, ``trees.live_snapshot``,
says so) and, when nothing changed, once its ``snapshot_period`` has passed
(``inf``: changed-only; py_trees_ros' 2 % slack included). A stream nobody
subscribes to builds and sends nothing: a message costs ~5 ms of the tick
thread for a 100-node tree, and a latched topic without readers has no one
to deliver it to. When a subscriber matches, the stream publishes the tree
as it is then (its publisher's ``matched`` event, off the tick thread), so a
watcher that subscribes late still starts from the current tree. Messages are built
from that snapshot (``snapshot_messages``), once per tick for all streams
that want the same content. ``blackboard_data`` adds the blackboard
variables of the clients on the visited path; ``blackboard_activity`` is
accepted and sends an empty activity list (the executive does not run
py_trees' activity stream). ``statistics`` carries the tick count and tick
duration/interval over the last 10 ticks.
"""

from __future__ import annotations

import collections
import itertools
import math
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import py_trees

from bt_executive.executive.snapshot_messages import behaviour_tree_msg
from bt_executive.executive.tree_topic import tree_qos
from bt_executive.trees.snapshot import Snapshot

if TYPE_CHECKING:
    from rclpy.callback_groups import CallbackGroup
    from rclpy.node import Node
    from rclpy.publisher import Publisher

SERVICES = "~/snapshot_streams"
DEFAULT_STREAM = "~/snapshots"
CLOSE_ENOUGH = 0.98
"""py_trees_ros publishes a periodic snapshot at 98 % of the period, so a tick-aligned period is not skipped."""

_WINDOW = 10


@dataclass
class StreamParameters:
    """What one stream carries: ``SnapshotStreamParameters`` as a plain object."""

    snapshot_period: float = math.inf
    blackboard_data: bool = False
    blackboard_activity: bool = False

    @classmethod
    def from_msg(cls, msg: Any) -> StreamParameters:
        """From a ``SnapshotStreamParameters`` message (a NaN or negative period means changed-only)."""
        period = float(msg.snapshot_period)
        return cls(
            snapshot_period=period if period >= 0.0 else math.inf,
            blackboard_data=bool(msg.blackboard_data),
            blackboard_activity=bool(msg.blackboard_activity),
        )


@dataclass
class _Stream:
    topic: str
    publisher: Publisher[Any]
    parameters: StreamParameters
    last_published: float | None = None
    sent: int = 0
    missed: bool = False
    """A publish came due while nobody subscribed: the next subscriber to match is sent the tree."""
    sent_this_tick: bool = False
    """The tree changed during the tick in progress and this stream sent it: ``post_tick`` sends no second one."""


class SnapshotStreams:
    """The snapshot-stream services of ``node`` and the streams they opened; ``post_tick`` feeds them."""

    def __init__(
        self,
        node: Node,
        *,
        visited: Callable[[], Sequence[py_trees.behaviour.Behaviour]] = tuple,
        default_stream: StreamParameters | None = None,
        callback_group: CallbackGroup | None = None,
    ) -> None:
        from py_trees_ros_interfaces.srv import CloseSnapshotStream, OpenSnapshotStream, ReconfigureSnapshotStream

        self.node = node
        self._visited = visited
        """The nodes the last tick visited (``is_active``, and whose blackboard keys ``blackboard_data`` sends)."""
        self._lock = threading.Lock()
        self._group = callback_group
        self._streams: dict[str, _Stream] = {}
        self._counter = 0
        self._latest: Snapshot | None = None
        self._ticks = 0
        self._tick_starts: collections.deque[float] = collections.deque(maxlen=_WINDOW)
        self._durations: collections.deque[float] = collections.deque(maxlen=_WINDOW)
        self._services = [
            node.create_service(OpenSnapshotStream, f"{SERVICES}/open", self._open, callback_group=callback_group),
            node.create_service(CloseSnapshotStream, f"{SERVICES}/close", self._close, callback_group=callback_group),
            node.create_service(
                ReconfigureSnapshotStream, f"{SERVICES}/reconfigure", self._reconfigure, callback_group=callback_group
            ),
        ]
        self.default_topic: str | None = None
        if default_stream is not None:
            self.default_topic = self.open(DEFAULT_STREAM, default_stream)

    # streams ----------------------------------------------------------------------------------------

    @property
    def topics(self) -> list[str]:
        """The fully qualified topics of the open streams."""
        with self._lock:
            return list(self._streams)

    def sent(self, topic: str) -> int:
        """Messages published on a stream's topic so far (0 for a topic with no stream)."""
        with self._lock:
            stream = self._streams.get(topic)
            return stream.sent if stream is not None else 0

    def open(self, topic_name: str, parameters: StreamParameters) -> str:
        """Open a stream (or reconfigure the one on that topic); its fully qualified topic."""
        from py_trees_ros_interfaces.msg import BehaviourTree
        from rclpy.event_handler import PublisherEventCallbacks

        with self._lock:
            topic = self._expand(topic_name)
            stream = self._streams.get(topic)
            if stream is not None:
                stream.parameters = parameters
                return topic
            publisher = self.node.create_publisher(
                BehaviourTree,
                topic,
                tree_qos(),
                event_callbacks=PublisherEventCallbacks(matched=lambda info: self._matched(topic, info)),
                callback_group=self._group,
            )
            stream = _Stream(topic, publisher, parameters)
            self._streams[topic] = stream
            if self._latest is not None:  # a watcher opening mid-task is sent the tree at once
                if publisher.get_subscription_count() > 0:
                    self._publish(stream, self._message(parameters, changed=True), time.monotonic())
                else:
                    stream.missed = True
            return topic

    def _matched(self, topic: str, info: Any) -> None:
        """A subscriber matched: if publishes were skipped for want of one, send the tree as it is now."""
        if info.current_count_change <= 0:
            return
        with self._lock:
            stream = self._streams.get(topic)
            if stream is not None and stream.missed and self._latest is not None:
                self._publish(stream, self._message(stream.parameters, changed=True), time.monotonic())

    def close(self, topic: str) -> bool:
        """Close a stream: its publisher is destroyed, so its topic goes away. False if there is none."""
        with self._lock:
            stream = self._streams.pop(topic, None)
        if stream is None:
            return False
        self.node.destroy_publisher(stream.publisher)
        return True

    def shutdown(self) -> None:
        """Stop every stream; the node's teardown destroys the publishers and services.

        Not destroyed here: shutdown runs while the executor may still spin the node (a SIGTERM), and
        rclpy 9 ends a spinning executor's thread when an entity in its wait set (a publisher's QoS
        event handler) is destroyed under it ("cannot use Destroyable because destruction was requested").
        """
        with self._lock:
            self._streams.clear()

    def destroy(self) -> None:
        """Destroy every stream's publisher and the three services (lifecycle cleanup: the graph forgets them)."""
        with self._lock:
            streams = list(self._streams.values())
            self._streams.clear()
            self._latest = None
        for stream in streams:
            self.node.destroy_publisher(stream.publisher)
        for service in self._services:
            self.node.destroy_service(service)
        self._services = []

    def _expand(self, topic_name: str) -> str:
        from rclpy.expand_topic_name import expand_topic_name

        if not topic_name:
            topic_name = f"{SERVICES}/_snapshots_{self._counter}"
            self._counter += 1
        elif not topic_name.startswith(("~", "/")):
            topic_name = f"{SERVICES}/{topic_name}"
        return str(expand_topic_name(topic_name, self.node.get_name(), self.node.get_namespace()))

    # services ---------------------------------------------------------------------------------------

    def _open(self, request: Any, response: Any) -> Any:
        response.topic_name = self.open(request.topic_name, StreamParameters.from_msg(request.parameters))
        return response

    def _close(self, request: Any, response: Any) -> Any:
        response.result = self.close(request.topic_name)
        return response

    def _reconfigure(self, request: Any, response: Any) -> Any:
        with self._lock:
            stream = self._streams.get(request.topic_name)
            if stream is not None:
                stream.parameters = StreamParameters.from_msg(request.parameters)
        response.result = stream is not None
        return response

    # feeding ----------------------------------------------------------------------------------------

    def on_snapshot(self, snapshot: Snapshot, _text: str = "") -> None:
        """A snapshot listener (``ExecutiveNode.snapshot_listeners``): the tree changed, every stream publishes."""
        with self._lock:
            self._latest = snapshot
            self._publish_due(changed=True)

    def post_tick(self, tick_started: float, tick_duration_s: float) -> None:
        """After every tick: its timing for the statistics; periodic streams publish when their period is up.

        One message per stream per tick at most, as py_trees_ros sends it: a stream that sent the changed
        tree during this tick sends nothing more for it (two would race in a keep-last-1 topic, and a
        watcher would see one or both by chance). Every message of tick ``n`` (from 0) carries
        ``statistics.count == n``: the ticks completed before it, as py_trees' ``count`` at its post-tick.
        """
        with self._lock:
            self._tick_starts.append(tick_started)
            self._durations.append(tick_duration_s)
            self._publish_due(changed=False)
            self._ticks += 1
            for stream in self._streams.values():
                stream.sent_this_tick = False

    def _publish_due(self, *, changed: bool) -> None:
        """Publish to every stream that is due (all of them when ``changed``); the lock is held."""
        if self._latest is None or not self._streams:
            return
        now = time.monotonic()
        built: dict[bool, Any] = {}
        for stream in self._streams.values():
            last = stream.last_published
            if not changed and stream.sent_this_tick:
                continue
            if not changed and last is not None and now - last < CLOSE_ENOUGH * stream.parameters.snapshot_period:
                continue
            if stream.publisher.get_subscription_count() == 0:
                stream.missed = True  # nobody to deliver it to; a subscriber that matches later is sent the tree
                continue
            key = stream.parameters.blackboard_data
            if key not in built:
                built[key] = self._message(stream.parameters, changed=changed or last is None)
            self._publish(stream, built[key], now)
            stream.sent_this_tick = changed

    def _message(self, parameters: StreamParameters, *, changed: bool) -> Any:
        assert self._latest is not None
        visited = self._visited()
        active = {str(node.id) for node in visited}
        blackboard = _blackboard_on(visited) if parameters.blackboard_data else []
        return behaviour_tree_msg(
            self._latest, active=active, changed=changed, blackboard=blackboard, statistics=self._statistics()
        )

    def _publish(self, stream: _Stream, message: Any, now: float) -> None:
        stream.publisher.publish(message)
        stream.last_published = now
        stream.sent += 1
        stream.missed = False

    def _statistics(self) -> Any:
        from py_trees_ros_interfaces.msg import Statistics

        message = Statistics()
        message.count = self._ticks
        message.stamp = self.node.get_clock().now().to_msg()
        if self._durations:
            message.tick_duration = self._durations[-1]
            message.tick_duration_average = statistics.fmean(self._durations)
            message.tick_duration_variance = statistics.variance(self._durations) if len(self._durations) > 1 else 0.0
        starts = list(self._tick_starts)
        intervals = [b - a for a, b in itertools.pairwise(starts)]
        if intervals:
            message.tick_interval = intervals[-1]
            message.tick_interval_average = statistics.fmean(intervals)
            message.tick_interval_variance = statistics.variance(intervals) if len(intervals) > 1 else 0.0
        return message


def _blackboard_on(visited: Sequence[py_trees.behaviour.Behaviour]) -> list[tuple[str, str]]:
    """The blackboard keys of the visited behaviours' clients, with their values (``-`` when unset)."""
    clients = {client.id() for node in visited for client in getattr(node, "blackboards", ())}
    out: list[tuple[str, str]] = []
    for key in sorted(py_trees.blackboard.Blackboard.keys_filtered_by_clients(clients)):
        try:
            value = str(py_trees.blackboard.Blackboard.get(key))
        except KeyError:
            value = "-"
        out.append((key, value))
    return out


def interfaces_available() -> bool:
    """Whether the generated py_trees_ros_interfaces package imports (ours, or a ROS installation's)."""
    try:
        from py_trees_ros_interfaces.msg import BehaviourTree  # noqa: F401
        from py_trees_ros_interfaces.srv import OpenSnapshotStream  # noqa: F401
    except ImportError:
        return False
    return True

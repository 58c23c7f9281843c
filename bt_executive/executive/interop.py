"""What other tools watch besides ``~/tree``: py_trees_ros snapshot streams and the Groot2 feed.

::

    interop = Interop.attach(node, params, executive.snapshot_listeners, visited=lambda: tree.last_visited)
    ...after every tick:  interop.post_tick(tick_started)
    ...at shutdown:       interop.shutdown()
    ...at cleanup:        interop.detach(executive.snapshot_listeners)

Both read the executive's one snapshot (``snapshot_listeners``): the
snapshot streams (``snapshot_streams``, when ``py_trees_ros_interfaces``
imports: ours from ``make``, or a ROS installation's) and, with
``groot2_port`` set, the Groot2 feed (``groot2_feed``). Neither can stop the
executive from running: a missing package is a warning, not an error.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import py_trees

from bt_executive.executive.params import ExecutiveParams
from bt_executive.executive.snapshot_streams import SnapshotStreams, StreamParameters, interfaces_available
from bt_executive.trees.snapshot import Snapshot

if TYPE_CHECKING:
    from rclpy.node import Node

    from bt_executive.executive.groot2_feed import Groot2Feed

_log = logging.getLogger("bt_executive.executive")

SnapshotListener = Callable[[Snapshot, str], None]


class Interop:
    """The snapshot streams and the Groot2 feed of one executive node (either may be absent)."""

    def __init__(self, streams: SnapshotStreams | None, groot2: Groot2Feed | None) -> None:
        self.streams = streams
        self.groot2 = groot2

    @classmethod
    def attach(
        cls,
        node: Node,
        params: ExecutiveParams,
        listeners: list[SnapshotListener],
        *,
        visited: Callable[[], Sequence[py_trees.behaviour.Behaviour]],
    ) -> Interop:
        """Open what ``params`` asks for on ``node`` and subscribe it to the executive's snapshots."""
        from rclpy.callback_groups import MutuallyExclusiveCallbackGroup

        streams = None
        if interfaces_available():
            default = None
            if params.default_snapshot_stream:
                period = params.default_snapshot_period
                default = StreamParameters(
                    snapshot_period=period if period > 0.0 else math.inf,
                    blackboard_data=params.default_snapshot_blackboard_data,
                )
            streams = SnapshotStreams(
                node, visited=visited, default_stream=default, callback_group=MutuallyExclusiveCallbackGroup()
            )
            listeners.append(streams.on_snapshot)
        else:
            _log.warning("py_trees_ros_interfaces is not installed: no snapshot streams (run `make interfaces`)")
        groot2 = None
        if params.groot2_port:
            from bt_executive.executive.groot2_feed import Groot2Feed

            groot2 = Groot2Feed(params.groot2_port)
            listeners.append(groot2.on_snapshot)
        return cls(streams, groot2)

    def post_tick(self, tick_started: float) -> None:
        """After every tick: statistics and periodic snapshots."""
        if self.streams is not None:
            self.streams.post_tick(tick_started, time.monotonic() - tick_started)

    def shutdown(self) -> None:
        """Close the streams and the Groot2 feed."""
        if self.streams is not None:
            self.streams.shutdown()
        if self.groot2 is not None:
            self.groot2.close()

    def detach(self, listeners: list[SnapshotListener]) -> None:
        """Undo ``attach`` (lifecycle cleanup): off the listeners, feed closed, streams' topics and services gone."""
        mine = [self.streams.on_snapshot] if self.streams is not None else []
        if self.groot2 is not None:
            mine.append(self.groot2.on_snapshot)
        listeners[:] = [listener for listener in listeners if listener not in mine]
        if self.streams is not None:
            self.streams.destroy()  # not shutdown(): it forgets the streams whose publishers must go
        if self.groot2 is not None:
            self.groot2.close()

"""Per-task resource counts of the executive node, published when each task ends.

An executive runs for days, so what a task leaves behind must be visible from
outside without attaching a debugger: at the end of every task the node
publishes one JSON message on ``~/diagnostics`` (``std_msgs/String``)::

    {"task": "...", "final_reason": "done", "waitables": 2, "endpoints": 21,
     "publishers": 4, "subscriptions": 3, "clients": 0, "services": 6, "timers": 1,
     "threads": 11, "tick_periods_ms": [50.1, 49.8, ...]}

``waitables`` counts the node's action clients and servers (rclpy keeps them
in ``node.waitables``); ``endpoints`` estimates the DDS endpoints the node
holds (5 per action client or server, one per publisher, subscription,
service client and service). ``tick_periods_ms`` are the intervals between
the tick timer's callbacks during the task: a growing wait set or a busy
executor shows up there first. ``benchmarks/soak.py`` reads these; the cost
is one message per task and one ``time.monotonic()`` per timer tick.

When the process traces allocations (``PYTHONTRACEMALLOC=1``), the record
also carries ``traced_kb`` (Python's own heap) and ``top_growth``: the five
source lines whose allocations grew most since the first task ended. That
tells objects of ours apart from native growth (rclpy, DDS) that RSS alone
cannot.
"""

from __future__ import annotations

import json
import threading
import time
import tracemalloc

from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

DIAGNOSTICS_TOPIC = "~/diagnostics"
_ENDPOINTS_PER_ACTION = 5
"""An action client or server: three services (goal, cancel, result) and two topics (feedback, status)."""
_MAX_PERIODS = 10_000
"""Tick periods kept per task (~8 minutes at 20 Hz): a long task must not grow the list without bound."""


def diagnostics_qos() -> QoSProfile:
    """Reliable, a few messages deep: a reader that is briefly slow loses none of the per-task records."""
    return QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)


def node_counts(node: Node) -> dict[str, int]:
    """The node's ROS entities by kind, and the DDS endpoints they hold."""
    counts = {
        "waitables": sum(1 for _ in node.waitables),
        "publishers": sum(1 for _ in node.publishers),
        "subscriptions": sum(1 for _ in node.subscriptions),
        "clients": sum(1 for _ in node.clients),
        "services": sum(1 for _ in node.services),
        "timers": sum(1 for _ in node.timers),
        "guards": sum(1 for _ in node.guards),
    }
    counts["endpoints"] = (
        _ENDPOINTS_PER_ACTION * counts["waitables"]
        + counts["publishers"]
        + counts["subscriptions"]
        + counts["clients"]
        + counts["services"]
    )
    return counts


class TaskDiagnostics:
    """Collects the tick timer's periods during a task and publishes the node's counts when it ends."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self._pub = node.create_publisher(String, DIAGNOSTICS_TOPIC, diagnostics_qos())
        self._lock = threading.Lock()
        self._periods: list[float] = []
        self._last_tick: float | None = None
        self._baseline: tracemalloc.Snapshot | None = None

    def timer_ticked(self) -> None:
        """Called by the tick timer: the interval since its previous callback joins the task's periods."""
        now = time.monotonic()
        with self._lock:
            if self._last_tick is not None and len(self._periods) < _MAX_PERIODS:
                self._periods.append(now - self._last_tick)
            self._last_tick = now

    def task_started(self) -> None:
        """Start a new task's record (periods from the previous task are dropped)."""
        with self._lock:
            self._periods = []

    def task_ended(self, task: str, final_reason: str) -> None:
        """Publish the task's record: the node's counts now, the process's threads, the tick periods."""
        with self._lock:
            periods, self._periods = self._periods, []
        record: dict[str, object] = {"task": task, "final_reason": final_reason, **node_counts(self._node)}
        record["threads"] = threading.active_count()
        record["tick_periods_ms"] = [round(p * 1000.0, 3) for p in periods]
        if tracemalloc.is_tracing():
            record.update(self._allocations())
        self._pub.publish(String(data=json.dumps(record, separators=(",", ":"))))

    def destroy(self) -> None:
        """Destroy the publisher (lifecycle cleanup)."""
        self._node.destroy_publisher(self._pub)

    def _allocations(self) -> dict[str, object]:
        """Python heap size and the lines that grew most since the first task (only while tracing)."""
        snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        if self._baseline is None:
            self._baseline = snapshot
        growth = snapshot.compare_to(self._baseline, "lineno")[:5]
        return {
            "traced_kb": round(tracemalloc.get_traced_memory()[0] / 1024.0, 1),
            "top_growth": [_growth_line(stat) for stat in growth],
        }


def _growth_line(stat: tracemalloc.StatisticDiff) -> str:
    frame = stat.traceback[0]
    return f"{frame.filename}:{frame.lineno} {stat.size_diff / 1024.0:+.1f} kB {stat.count_diff:+d}"

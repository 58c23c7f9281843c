"""TopicBridge: the executive's tree topic, fed into a LiveFeed.

One subscription (``std_msgs/String``, ``tree_topic.tree_qos()``) on a node
the caller owns and spins; every message is checked to be a snapshot before
it reaches a browser, and a bad one is counted and logged, not forwarded.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from bt_executive.executive.tree_topic import decode_snapshot, tree_qos
from bt_executive.executive.viewer.live_feed import LiveFeed

if TYPE_CHECKING:
    from rclpy.node import Node


class TopicBridge:
    """Subscribes ``node`` to ``topic`` and publishes every valid snapshot into ``feed``."""

    def __init__(self, node: Node, feed: LiveFeed, topic: str) -> None:
        from std_msgs.msg import String

        self.node = node
        self.feed = feed
        self.topic = topic
        self.rejected = 0
        self.subscription = node.create_subscription(String, topic, self._on_message, tree_qos())

    def _on_message(self, message: Any) -> None:
        try:
            decode_snapshot(message.data)  # checked here; the text goes on to browsers as it came
        except ValueError as err:
            self.rejected += 1
            self.node.get_logger().warning(f"{self.topic}: {err}")
            return
        self.feed.publish(message.data)


class LiveTopic:
    """A ROS context, node and executor thread of the viewer's own, feeding ``feed`` from ``topic``.

    Torn down in the order rclpy needs (NOTES.md): stop the spin loop through
    its future and join the thread, shut the executor down, destroy the node,
    then shut down and destroy the context.
    """

    def __init__(self, feed: LiveFeed, topic: str, *, domain_id: int = 0) -> None:
        import rclpy
        from rclpy.executors import MultiThreadedExecutor
        from rclpy.signals import SignalHandlerOptions
        from rclpy.task import Future

        self.context = rclpy.Context()
        # The viewer handles Ctrl-C itself (and closes this in order); rclpy's handler would not.
        rclpy.init(context=self.context, domain_id=domain_id, signal_handler_options=SignalHandlerOptions.NO)
        self.node = rclpy.create_node("bt_executive_viewer", context=self.context)
        self.bridge = TopicBridge(self.node, feed, topic)
        self.executor = MultiThreadedExecutor(num_threads=2, context=self.context)
        self.executor.add_node(self.node)
        self._stop: Future[None] = Future()
        self._thread = threading.Thread(
            target=self.executor.spin_until_future_complete, args=(self._stop,), name="viewer-ros", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop spinning and free everything, in order."""
        import gc

        self._stop.set_result(None)
        self._thread.join(timeout=5)
        self.executor.shutdown(timeout_sec=5)
        self.node.destroy_node()
        self.context.try_shutdown()
        self.context.destroy()
        gc.collect()

    def __enter__(self) -> LiveTopic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""TopicBridge: the executive's tree topic, fed into a LiveFeed; CameraBridge: a camera topic into LiveFrames.

One subscription (``std_msgs/String``, ``tree_topic.tree_qos()``) on a node
the caller owns and spins; every message is checked to be a snapshot before
it reaches a browser, and a bad one is counted and logged, not forwarded.
A camera's ``sensor_msgs/Image`` messages only replace the newest frame
(nothing is encoded until a browser asks, ``live_frames.py``).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from bt_executive.executive.tree_topic import decode_snapshot, tree_qos
from bt_executive.executive.viewer.live_feed import LiveFeed
from bt_executive.executive.viewer.live_frames import LiveFrames

if TYPE_CHECKING:
    from rclpy.node import Node

_log = logging.getLogger(__name__)


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


class CameraBridge:
    """Subscribes ``node`` to one camera topic and keeps its newest frame in ``frames`` as ``camera``."""

    def __init__(self, node: Node, frames: LiveFrames, camera: str, topic: str) -> None:
        from rclpy.qos import qos_profile_sensor_data
        from sensor_msgs.msg import Image

        self.node = node
        self.frames = frames
        self.camera = camera
        self.topic = topic
        self.rejected = 0
        self.subscription = node.create_subscription(Image, topic, self._on_message, qos_profile_sensor_data)

    def _on_message(self, message: Any) -> None:
        from bt_executive.skills.sensor_msgs_conversion import BadImage, image_array

        try:
            frame = image_array(message)
        except BadImage as err:
            self.rejected += 1
            self.node.get_logger().warning(f"{self.topic}: {err}", throttle_duration_sec=10.0)
            return
        self.frames.put(self.camera, frame, message.header.stamp.sec + message.header.stamp.nanosec * 1e-9)


class LiveTopic:
    """A ROS context, node and executor thread of the viewer's own, feeding ``feed`` from ``topic``.

    Torn down in the order rclpy needs (NOTES.md): stop the spin loop through
    its future and join the thread, shut the executor down, destroy the node,
    then shut down and destroy the context.
    """

    def __init__(
        self,
        feed: LiveFeed,
        topic: str,
        *,
        domain_id: int = 0,
        frames: LiveFrames | None = None,
        camera_topic: str = "",
    ) -> None:
        """``frames`` and ``camera_topic``: also keep the front camera's newest frame (``view``'s live frame)."""
        import rclpy
        from rclpy.executors import MultiThreadedExecutor
        from rclpy.signals import SignalHandlerOptions
        from rclpy.task import Future

        self.context = rclpy.Context()
        # The viewer handles Ctrl-C itself (and closes this in order); rclpy's handler would not.
        rclpy.init(context=self.context, domain_id=domain_id, signal_handler_options=SignalHandlerOptions.NO)
        self.node = rclpy.create_node("bt_executive_viewer", context=self.context)
        self.bridge = TopicBridge(self.node, feed, topic)
        self.camera = CameraBridge(self.node, frames, "front", camera_topic) if frames and camera_topic else None
        self.executor = MultiThreadedExecutor(num_threads=2, context=self.context)
        self.executor.add_node(self.node)
        self._stop: Future[None] = Future()
        self._thread = threading.Thread(
            target=self.executor.spin_until_future_complete, args=(self._stop,), name="viewer-ros", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop spinning and free everything, in order; every wait bounded (what stayed is logged by name)."""
        import gc

        from bt_executive.runtime.ros_teardown import destroy_node, shutdown_executor, where

        problems: list[str] = []
        if not self._stop.done():
            self._stop.set_result(None)
        self._thread.join(timeout=5)
        if self._thread.is_alive():  # shutting the executor down under its loop would kill the loop mid-wait
            problems.append(f"the spin thread did not stop within 5 s: {where(self._thread)}")
        else:
            problems += [
                f"a callback still ran after the executor shut down: {s}" for s in shutdown_executor(self.executor)
            ]
        problems += destroy_node(self.node)
        self.context.try_shutdown()
        self.context.destroy()
        gc.collect()
        for problem in problems:
            _log.error("%s", problem)

    def __enter__(self) -> LiveTopic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

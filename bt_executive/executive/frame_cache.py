"""FrameCache: the newest front-camera frame, for planner profiles whose model takes images (``vision: true``).

It subscribes on first use, not at start: an executive whose planners never
look at images costs the camera nothing (the sim renders only for
subscribers). ``frame()`` is the ``FrameSource`` an LLM planner calls while
it plans on its worker thread; it waits a little for a first frame, then
raises naming the topic.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data

from bt_executive.skills.sensor_msgs_conversion import image_array


class NoFrame(RuntimeError):
    """No frame arrived on the camera topic in time."""


class FrameCache:
    """The latest ``sensor_msgs/Image`` of one topic, as an HxWx3 RGB array."""

    def __init__(self, node: Node, topic: str, *, wait_s: float = 3.0) -> None:
        self.node = node
        self.topic = topic
        self.wait_s = wait_s
        self.received = 0
        self._lock = threading.Lock()
        self._arrived = threading.Event()
        self._message: Any = None
        self._subscription: Any = None

    def _subscribe(self) -> None:
        from sensor_msgs.msg import Image

        with self._lock:
            if self._subscription is None:
                self._subscription = self.node.create_subscription(
                    Image, self.topic, self._keep, qos_profile_sensor_data
                )

    def _keep(self, message: Any) -> None:
        with self._lock:
            self._message = message
            self.received += 1
        self._arrived.set()

    def destroy(self) -> None:
        """Destroy the subscription, if a planner made one (lifecycle cleanup)."""
        with self._lock:
            subscription, self._subscription = self._subscription, None
        if subscription is not None:
            self.node.destroy_subscription(subscription)

    def frame(self) -> npt.NDArray[np.uint8]:
        """The newest frame (a copy); ``NoFrame`` if none arrives within ``wait_s`` of the first call."""
        self._subscribe()
        if not self._arrived.wait(self.wait_s):
            namespace = self.node.get_namespace().rstrip("/")
            raise NoFrame(f"no image on {namespace}/{self.topic} within {self.wait_s:g} s")
        with self._lock:
            message = self._message
        return np.array(image_array(message))

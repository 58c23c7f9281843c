"""FrameCache: the newest frame of one camera topic, for vision planners and for the run record's frames.

It subscribes on first use, not at start: an executive whose planners never
look at images and that records no frames costs the camera nothing (the sim
renders only for subscribers). ``frame()`` is the ``FrameSource`` an LLM
planner calls while it plans on its worker thread; it waits a little for a
first frame, then raises naming the topic. ``newest_after`` is what the run
record's ``FrameRecorder`` asks: the first frame that arrived after a moment,
or, if none comes in time, the newest one before it.

Frames arrive serialized (``raw=True``) and are decoded only when one is read:
a camera publishes far more often than a task has moments, and decoding every
image in the executor would take CPU from the tick.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
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
        self._newer = threading.Condition(self._lock)
        self._arrived = threading.Event()
        self._message: Any = None
        self._raw: bytes | None = None
        self._arrived_at = float("-inf")
        self._subscription: Any = None

    def subscribe(self) -> None:
        """Subscribe now rather than on first use (the run record wants frames from the first task on)."""
        self._subscribe()

    def _subscribe(self) -> None:
        from sensor_msgs.msg import Image

        with self._lock:
            if self._subscription is None:
                self._subscription = self.node.create_subscription(
                    Image, self.topic, self._keep, qos_profile_sensor_data, raw=True
                )

    def _keep(self, message: bytes) -> None:
        with self._lock:
            self._raw = message
            self._message = None  # decoded when read
            self._arrived_at = time.monotonic()
            self.received += 1
            self._newer.notify_all()
        self._arrived.set()

    def newest_after(
        self, moment: float, wait_s: float, hurry: Callable[[], bool] = lambda: False
    ) -> tuple[Any, float] | None:
        """The first message that arrives after ``moment`` (monotonic) within ``wait_s``, else the newest one.

        With its arrival time; None if no message ever arrived. ``hurry`` (checked every 20 ms) ends the
        wait early: the task ended and its last frames must not hold up the tick. The message is the
        one kept, not a copy: read it, do not change it.
        """
        deadline = time.monotonic() + wait_s
        with self._lock:
            while self._arrived_at <= moment and not hurry():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._newer.wait(min(left, 0.02))
            message = self._decoded()
            return None if message is None else (message, self._arrived_at)

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
            message = self._decoded()
        return np.array(image_array(message))

    def _decoded(self) -> Any:
        """The newest message, decoded once (call with the lock held); None before the first."""
        if self._message is None and self._raw is not None:
            from rclpy.serialization import deserialize_message
            from sensor_msgs.msg import Image

            self._message = deserialize_message(self._raw, Image)
        return self._message

"""WorldStateCache: the latest world state from the robot's topic, readable from any thread without waiting.

Condition nodes and planners read the world many times per second; the robot
publishes it at its own rate. The cache keeps the last message and converts
it to a ``WorldState`` once, on first read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from bt_executive.skills.world_state import WorldState
from bt_executive.skills.world_state_msg import from_msg


class WorldStateCache:
    """Subscribes to the world-state topic and answers ``latest()`` (None until the first message)."""

    def __init__(
        self,
        node: Node,
        topic: str,
        callback_group: CallbackGroup | None = None,
        on_arrival: Callable[[], None] | None = None,
    ) -> None:
        """``on_arrival`` runs after each message is stored (the node ticks at once: conditions wait for it)."""
        from bt_executive_interfaces.msg import WorldState as WorldStateMsg

        self._lock = threading.Lock()
        self._message: Any = None
        self._state: WorldState | None = None
        self.received = 0
        self._on_arrival = on_arrival
        self.arrived_at = float("-inf")
        """``time.monotonic()`` when the newest message arrived."""
        self._subscription = node.create_subscription(
            WorldStateMsg, topic, self._on_message, 10, callback_group=callback_group
        )

    def _on_message(self, message: Any) -> None:
        with self._lock:
            self._message = message
            self._state = None
            self.received += 1
            self.arrived_at = time.monotonic()
        if self._on_arrival is not None:
            self._on_arrival()

    def arrival(self) -> float:
        """When the newest world state arrived (monotonic seconds; -inf before the first)."""
        return self.arrived_at

    def latest(self) -> WorldState | None:
        """The newest world state, or None if none has arrived yet."""
        with self._lock:
            if self._state is None and self._message is not None:
                self._state = from_msg(self._message)
            return self._state

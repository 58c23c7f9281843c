"""WorldStateCache: the latest world state from the robot's topic, readable from any thread without waiting.

Condition nodes and planners read the world many times per second; the robot
publishes it at its own rate. Each message is checked and converted as it
arrives (``world_state_msg.from_msg``): a bad one (NaN or infinite numbers,
duplicate ids, more than ``max_objects`` objects, control characters in a
name) is dropped with a logged reason naming the field, and the last good
state stays, its arrival time unchanged, so nothing waiting for a fresh world
state takes the bad one for it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from bt_executive.skills.world_state import WorldState
from bt_executive.skills.world_state_msg import MAX_WORLD_OBJECTS, WorldStateRejected, from_msg

_log = logging.getLogger("bt_executive.executive")

LOG_EVERY = 100
"""A publisher stuck on bad messages is logged on its first one, then once per this many (and on a new reason)."""


class WorldStateCache:
    """Subscribes to the world-state topic and answers ``latest()`` (None until the first message)."""

    def __init__(
        self,
        node: Node,
        topic: str,
        callback_group: CallbackGroup | None = None,
        on_arrival: Callable[[], None] | None = None,
        max_objects: int = MAX_WORLD_OBJECTS,
    ) -> None:
        """``on_arrival`` runs after each good message is stored (the node ticks at once: conditions wait for it)."""
        from bt_executive_interfaces.msg import WorldState as WorldStateMsg

        self._lock = threading.Lock()
        self._state: WorldState | None = None
        self.max_objects = max_objects
        self.received = 0
        self.rejected = 0
        """Messages dropped as malformed (``last_rejection`` says why the newest one was)."""
        self.last_rejection = ""
        self._on_arrival = on_arrival
        self.arrived_at = float("-inf")
        """``time.monotonic()`` when the newest message arrived."""
        self._node = node
        self._subscription = node.create_subscription(
            WorldStateMsg, topic, self._on_message, 10, callback_group=callback_group
        )

    def _on_message(self, message: Any) -> None:
        try:
            state = from_msg(message, self.max_objects)
        except WorldStateRejected as err:
            self._reject(str(err))
            return
        except (ValueError, TypeError) as err:  # a case from_msg does not name yet: still dropped, never raised
            self._reject(f"(message): {type(err).__name__}: {str(err)[:200]!r}")  # into the executor
            return
        with self._lock:
            self._state = state
            self.received += 1
            self.arrived_at = time.monotonic()
        if self._on_arrival is not None:
            self._on_arrival()

    def arrival(self) -> float:
        """When the newest world state arrived (monotonic seconds; -inf before the first)."""
        return self.arrived_at

    def _reject(self, reason: str) -> None:
        with self._lock:
            self.rejected += 1
            new_reason = reason != self.last_rejection
            self.last_rejection = reason
            count = self.rejected
        if new_reason or count % LOG_EVERY == 1:
            _log.warning(f"world state dropped ({count} so far), the last good one kept: {reason}")

    def destroy(self) -> None:
        """Destroy the subscription (lifecycle cleanup); the last state stays readable."""
        self._node.destroy_subscription(self._subscription)

    def latest(self) -> WorldState | None:
        """The newest good world state, or None if none has arrived yet."""
        with self._lock:
            return self._state

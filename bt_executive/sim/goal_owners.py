"""The robot-side dead-man's rule: a goal whose client has left the ROS graph is stopped, the arm held.

A skill goal moves a real arm, so it must not outlive the process that sent it.
ROS 2 actions have no client heartbeat, and an rclpy goal callback is not told
who sent the goal. So each skill server turns on service introspection for its
``send_goal`` service (``<action>/_action/send_goal/_service_event``): the
``REQUEST_RECEIVED`` event carries the request writer's GUID, whose first 12
bytes are the sending DDS participant (one per ROS process), and the request's
goal id. While the goal runs, the server checks the ROS graph: the goal is
*orphaned* once no subscription of that participant remains on the action's
feedback topic, i.e. the process died (its participant's lease ran out) or it
destroyed its action client. Other listeners (a viewer echoing feedback, a
second executive with its own client) belong to other participants and do not
keep a dead client's goal alive. If the event never arrived (owner unknown) the
goal is orphaned when nobody at all subscribes to its feedback any more.

Bound: the participant lease of ``config/fastdds_profile.xml`` (1.5 s) plus one
check period (``CHECK_PERIOD_S``), so within 2 s of a client's SIGKILL.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from rclpy.qos import qos_profile_services_default
from rclpy.service_introspection import ServiceIntrospectionState

CHECK_PERIOD_S = 0.1
"""How often (wall time) a running goal's owner is looked up in the ROS graph."""
UNKNOWN_OWNER_GRACE_S = 0.5
"""With no introspection event for a goal, how long to wait before judging it by its feedback subscribers alone."""
PARTICIPANT_PREFIX_BYTES = 12
"""A DDS GUID is a 12-byte participant prefix and a 4-byte entity id."""
_REMEMBERED_GOALS = 64
"""Owners of goals never executed (rejected ones) are forgotten past this many."""


def participant_of(gid: Any) -> bytes:
    """The participant prefix of an endpoint or writer GID (a sequence of byte values)."""
    return bytes(gid)[:PARTICIPANT_PREFIX_BYTES]


class GoalOwners:
    """Who sent each goal of one action server, and whether that client still listens."""

    def __init__(self, node: Node, server: Any, action_type: Any, action_name: str, group: CallbackGroup) -> None:
        self._node = node
        self._feedback_topic = node.resolve_topic_name(f"{action_name}/_action/feedback")
        self._owners: OrderedDict[bytes, bytes] = OrderedDict()
        self._lock = threading.Lock()
        server.configure_introspection(
            node.get_clock(), qos_profile_services_default, ServiceIntrospectionState.CONTENTS
        )
        self._events = node.create_subscription(
            action_type.Impl.SendGoalService.Event,
            f"{action_name}/_action/send_goal/_service_event",
            self._on_event,
            qos_profile_services_default,
            callback_group=group,
        )

    def _on_event(self, event: Any) -> None:
        from service_msgs.msg import ServiceEventInfo  # type: ignore[import-untyped]

        if event.info.event_type != ServiceEventInfo.REQUEST_RECEIVED or not event.request:
            return
        goal_id = bytes(event.request[0].goal_id.uuid)
        with self._lock:
            self._owners[goal_id] = participant_of(event.info.client_gid)
            while len(self._owners) > _REMEMBERED_GOALS:
                self._owners.popitem(last=False)

    def owner(self, goal_id: bytes) -> bytes | None:
        """The participant that sent this goal, if its introspection event has arrived."""
        with self._lock:
            return self._owners.get(goal_id)

    def forget(self, goal_id: bytes) -> None:
        """The goal ended: drop its owner."""
        with self._lock:
            self._owners.pop(goal_id, None)

    def listeners(self) -> set[bytes]:
        """Participants with a subscription on this action's feedback topic now."""
        infos = self._node.get_subscriptions_info_by_topic(self._feedback_topic)
        return {participant_of(info.endpoint_gid) for info in infos}

    def orphaned(self, goal_id: bytes, accepted_at: float) -> str | None:
        """Why the goal has no client any more (a short text), or None while its client listens."""
        listeners = self.listeners()
        owner = self.owner(goal_id)
        if owner is not None:
            if owner in listeners:
                return None
            return f"participant {owner.hex()} that sent the goal no longer subscribes to {self._feedback_topic}"
        if listeners or time.monotonic() - accepted_at < UNKNOWN_OWNER_GRACE_S:
            return None
        return f"nobody subscribes to {self._feedback_topic} any more"

    def destroy(self) -> None:
        """Destroy the event subscription."""
        self._node.destroy_subscription(self._events)

"""The executive's tree topic: snapshots as JSON in ``std_msgs/String`` on ``~/tree``.

The executive publishes a snapshot (``trees.snapshot``) whenever its tree
changes, as the JSON text the task's ``LiveSnapshot`` encoded (the run
directory records the same text); the viewer (``bt-executive view``) and
anything else subscribe.
Both sides use ``TREE_QOS``: reliable, and transient-local with a depth of
one, so a viewer started mid-task still gets the tree as it is now (the
publisher sends only on change, so a volatile late joiner would see nothing
until the next change). A subscriber asking transient-local from a volatile
publisher gets nothing at all in DDS: keep both on this profile.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rclpy.qos import QoSProfile

TREE_TOPIC = "~/tree"
"""Relative to the executive node: ``/<namespace>/bt_executive/tree``."""

DEFAULT_VIEW_TOPIC = "/bt_executive/tree"
"""What ``bt-executive view`` subscribes to without ``--topic`` (an executive with no namespace)."""


def tree_qos() -> QoSProfile:
    """Reliable, transient-local, keep last 1 (imported lazily: rclpy is not needed to read runs)."""
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(
        depth=1,
        history=HistoryPolicy.KEEP_LAST,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )


def encode_snapshot(snapshot: dict[str, Any]) -> str:
    """The message text for one snapshot (compact JSON)."""
    return json.dumps(snapshot, separators=(",", ":"))


def decode_snapshot(text: str) -> dict[str, Any]:
    """A snapshot from message text; ValueError if it is not a py_trees_js snapshot."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"tree message is not JSON: {err.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("behaviours"), dict):
        raise ValueError("tree message has no 'behaviours' object")
    if not isinstance(data.get("visited_path"), list):
        raise ValueError("tree message has no 'visited_path' list (py_trees_js needs one)")
    return data

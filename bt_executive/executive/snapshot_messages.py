"""Our tree snapshots as py_trees_ros messages: ``py_trees_ros_interfaces/msg/BehaviourTree``.

::

    message = behaviour_tree_msg(snapshot, active={id, ...}, changed=True)   # trees.snapshot's dict in
    message.behaviours[0].own_id.uuid                                       # the behaviour's uuid, 16 bytes

The executive keeps one snapshot of its tree (``trees.live_snapshot``); this
turns it into what ``py_trees_ros.trees.BehaviourTree`` publishes, so
``py-trees-tree-watcher`` and ``py_trees_ros_viewer`` read a bt_executive as
they read a py_trees_ros tree: one ``Behaviour`` per node in pre-order (the
root's ``parent_id`` all zeros, which is how a watcher finds it), ids from the
behaviours' uuids, statuses and types as py_trees_ros maps them (a composite
of our own, ``StepAttempts``, is a ``BEHAVIOUR`` with children, as py_trees_ros
sends any composite that is not a Sequence, Selector or Parallel),
``is_active`` for the nodes ticked on the last tick. A composite's current
child is its last child that is not INVALID (py_trees' ``current_child``,
which a snapshot does not carry), and its tip follows current children down.
The generated message types are imported when a message is built.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from bt_executive.trees.snapshot import Snapshot

_STATUS = {"INVALID": 1, "RUNNING": 2, "SUCCESS": 3, "FAILURE": 4}
"""``Behaviour.INVALID`` .. ``Behaviour.FAILURE``."""

_TYPE = {"sequence": 2, "selector": 3, "parallel": 4, "decorator": 6}
"""``Behaviour.SEQUENCE`` ...; anything else is ``Behaviour.BEHAVIOUR`` (1), as py_trees_ros sends it."""

_CLASS_MODULE = {
    "sequence": "py_trees.composites",
    "selector": "py_trees.composites",
    "parallel": "py_trees.composites",
}

NOT_A_BLACKBOX = 4
"""``Behaviour.BLACKBOX_LEVEL_NOT_A_BLACKBOX``: watchers refuse a level outside 1..4."""

_ZERO = [0] * 16


def uuid_bytes(node_id: str) -> list[int]:
    """A behaviour id (a uuid's text) as the 16 bytes of ``unique_identifier_msgs/UUID`` (a list: numpy takes it)."""
    return list(uuid.UUID(node_id).bytes)


def behaviour_tree_msg(
    snapshot: Snapshot,
    *,
    active: Collection[str],
    changed: bool,
    blackboard: Iterable[tuple[str, str]] = (),
    statistics: Any = None,
) -> Any:
    """The ``BehaviourTree`` message for one snapshot; ``active``: ids ticked on the last tick."""
    from diagnostic_msgs.msg import KeyValue
    from py_trees_ros_interfaces.msg import Behaviour, BehaviourTree

    behaviours: Mapping[str, Mapping[str, Any]] = snapshot["behaviours"]
    root = str(snapshot.get("root") or next(iter(behaviours)))
    parents = {child: node_id for node_id, entry in behaviours.items() for child in entry.get("children", ())}
    message = BehaviourTree()
    message.changed = changed
    for node_id in _pre_order(behaviours, root):
        entry = behaviours[node_id]
        data = entry.get("data") or {}
        kind = str(data.get("kind", ""))
        current = _current_child(behaviours, entry)
        tip = _tip(behaviours, node_id)
        item = Behaviour()
        item.name = str(entry.get("name", ""))
        type_name = str(data.get("type", kind or "Behaviour"))
        item.class_name = f"{_CLASS_MODULE.get(kind, 'bt_executive')}.{type_name}"
        item.own_id.uuid = uuid_bytes(node_id)
        item.parent_id.uuid = uuid_bytes(parents[node_id]) if node_id in parents else _ZERO
        item.child_ids = [_uuid_msg(child) for child in entry.get("children", ())]
        item.current_child_id.uuid = uuid_bytes(current) if current is not None else _ZERO
        item.tip_id.uuid = uuid_bytes(tip) if tip is not None and tip != node_id else _ZERO
        item.type = _TYPE.get(kind, Behaviour.BEHAVIOUR)
        item.additional_detail = _additional_detail(kind, data)
        item.blackbox_level = NOT_A_BLACKBOX
        item.status = _STATUS.get(str(entry.get("status")), Behaviour.INVALID)
        details = str(entry.get("details", ""))
        item.message = "" if details == "..." else details
        item.is_active = node_id in active
        message.behaviours.append(item)
    message.blackboard_on_visited_path = [KeyValue(key=key, value=value) for key, value in blackboard]
    if statistics is not None:
        message.statistics = statistics
    return message


def _uuid_msg(node_id: str) -> Any:
    from unique_identifier_msgs.msg import UUID

    return UUID(uuid=uuid_bytes(node_id))


def _pre_order(behaviours: Mapping[str, Mapping[str, Any]], root: str) -> list[str]:
    order: list[str] = []
    stack = [root]
    while stack:
        node_id = stack.pop()
        if node_id not in behaviours:
            continue
        order.append(node_id)
        stack.extend(reversed([str(c) for c in behaviours[node_id].get("children", ())]))
    return order


def _current_child(behaviours: Mapping[str, Mapping[str, Any]], entry: Mapping[str, Any]) -> str | None:
    """The last child that is not INVALID: where the composite got to."""
    current = None
    for child in entry.get("children", ()):
        child_entry = behaviours.get(child)
        if child_entry is not None and child_entry.get("status") != "INVALID":
            current = str(child)
    return current


def _tip(behaviours: Mapping[str, Mapping[str, Any]], node_id: str) -> str | None:
    """py_trees' ``tip()``: down the current children to the deepest node reached; None when INVALID."""
    entry = behaviours[node_id]
    if entry.get("status") == "INVALID":
        return None
    while True:
        current = _current_child(behaviours, entry)
        if current is None:
            return node_id
        node_id, entry = current, behaviours[current]


def _additional_detail(kind: str, data: Mapping[str, Any]) -> str:
    """What py_trees_ros puts there: a composite's memory, a parallel's policy."""
    if kind in ("sequence", "selector"):
        return "WithMemory" if data.get("memory", True) else "WithoutMemory"
    if kind == "parallel":
        return str(data.get("policy", ""))
    return ""

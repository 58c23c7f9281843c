"""Groot2 feed: a BehaviorTree.CPP mirror of the executive's tree, published with BT.CPP's own Groot2Publisher.

::

    feed = Groot2Feed(port=1667)            # Groot2's port (its PUB socket takes port + 1)
    executive.snapshot_listeners.append(feed.on_snapshot)
    # Groot2 ("Connect" to 127.0.0.1:1667) or `btview snapshot --port 1667` shows the running tree

Groot2 attaches to a BT.CPP program, so the feed runs one inside the
executive (``behaviortreepy``): on each snapshot whose shape is new (a new
task, a graft) it rebuilds the tree from the snapshot (``tree_from_snapshot``),
exports it (``export_btcpp``: builtin controls and decorators, our
Actions/Conditions), loads it in BT.CPP and publishes it with
``Groot2Publisher``; Groot2 then gets the XML, node ids and statuses over
Groot2's own ZMQ protocol.

**How statuses follow.** BT.CPP sets a node's status only by ticking it, and
behaviortreepy cannot register a custom control or set a status from
Python. So each snapshot is replayed: the mirror is halted and ticked once,
every leaf answering its py_trees status from the snapshot. A leaf cannot
answer IDLE, so one that is INVALID there but that BT.CPP reaches answers
what lets BT.CPP's control reach the state py_trees' did: if a later sibling
is active, py_trees' memory composite passed over it, and it answers what
makes its parent go on (FAILURE under a selector, SUCCESS under a sequence);
otherwise it takes the status of its nearest ancestor that is not INVALID.
BT.CPP's own Sequence, Fallback, RetryUntilSuccessful... derive the statuses
above them.
Running leaves always show RUNNING, and no node shows the opposite ending
(tests/interop/test_groot2_feed.py reads them back through Groot2's protocol
with btview, and counts: 86% of node statuses equal over a run with a retry and
a replan). They differ where the py_trees node keeps state a replay cannot
see: BT.CPP resets what it finished to IDLE (py_trees keeps a SUCCESS/FAILURE
until the next tick; a finished task's root too), a passed-over check shows
the FAILURE that let its selector go on (INVALID in py_trees), a
StepAttempts waiting out a retry backoff (its recovery INVALID in py_trees,
RUNNING here), and the builtin wrappers the export adds around a step's
recovery (``Fallback`` / ``ForceFailure``, which have no py_trees node).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bt_executive.trees.btcpp_runtime import LoadedTree, load_btcpp_tree
from bt_executive.trees.export_btcpp import btcpp_export
from bt_executive.trees.inert_tree import tree_from_snapshot
from bt_executive.trees.snapshot import Snapshot, walk

_log = logging.getLogger("bt_executive.groot2")

DEFAULT_PORT = 1667
"""Groot2's (and Nav2's) default."""


@dataclass
class _Mirror:
    """The BT.CPP tree for one tree shape: its publisher, and the snapshot id each BT.CPP node stands for."""

    loaded: LoadedTree
    publisher: Any
    sources: tuple[str | None, ...]
    """By BT.CPP uid - root uid (pre-order): the py_trees node's id, None for nodes the export added."""
    root_uid: int


class Groot2Feed:
    """Keeps a BT.CPP mirror of the latest snapshot published to Groot2 on ``port`` (and ``port + 1``)."""

    def __init__(self, port: int = DEFAULT_PORT, *, max_heartbeat_delay_ms: int | None = None) -> None:
        import behaviortreepy

        if not behaviortreepy.GROOT2_AVAILABLE:
            raise RuntimeError("behaviortreepy was built without Groot2 support (GROOT2_AVAILABLE is False)")
        self.port = port
        self._heartbeat_ms = max_heartbeat_delay_ms
        self._lock = threading.Lock()
        self._shape: tuple[tuple[str, str, tuple[str, ...]], ...] | None = None
        self._mirror: _Mirror | None = None
        self._statuses: Mapping[str, str] = {}

    def on_snapshot(self, snapshot: Snapshot, _text: str = "") -> None:
        """A snapshot listener: rebuild the mirror if the tree's shape changed, then replay the statuses."""
        with self._lock:
            try:
                shape = _shape(snapshot)
                if shape != self._shape or self._mirror is None:
                    self._rebuild(snapshot)
                    self._shape = shape
                self._replay(snapshot)
            except Exception as err:  # the feed is a view: it must never take the executive down
                # No traceback kept: its frames would hold the mirror, and with it the publisher's port.
                _log.error("Groot2 feed: could not mirror the snapshot: %s: %s", type(err).__name__, err)
                self._mirror = None

    def close(self) -> None:
        """Stop publishing (the ports are released)."""
        with self._lock:
            self._mirror = None
            self._shape = None

    # ------------------------------------------------------------------------------------------------

    def _rebuild(self, snapshot: Snapshot) -> None:
        import behaviortreepy

        self._mirror = None  # the old publisher releases the port before the new one binds it
        rebuilt = tree_from_snapshot(snapshot)
        ids = _pre_order_ids(snapshot)
        by_node = dict(zip(walk(rebuilt), ids, strict=True))
        export = btcpp_export(rebuilt)
        loaded = load_btcpp_tree(export.xml, self._leaf_tick)
        root_uid = int(loaded.tree.root_node().uid())
        publisher = behaviortreepy.Groot2Publisher(loaded.tree, self.port)
        if self._heartbeat_ms is not None:
            publisher.set_max_heartbeat_delay(self._heartbeat_ms)
        sources = tuple(by_node[node] if node is not None else None for node in export.sources)
        self._mirror = _Mirror(loaded, publisher, sources, root_uid)

    def _replay(self, snapshot: Snapshot) -> None:
        mirror = self._mirror
        assert mirror is not None
        self._statuses = _answers(snapshot)
        mirror.loaded.tree.halt_tree()
        root = str(snapshot.get("root") or "")
        if snapshot["behaviours"].get(root, {}).get("status", "INVALID") != "INVALID":
            mirror.loaded.tree.tick_once()  # re-ticks while a node asks to be woken (a retry after a failure)

    def _leaf_tick(self, node: Any) -> Any:
        """A mirror leaf's tick: its py_trees status from the snapshot being replayed."""
        import behaviortreepy

        mirror = self._mirror
        status = "RUNNING"
        if mirror is not None:
            index = int(node.uid()) - mirror.root_uid
            source = mirror.sources[index] if 0 <= index < len(mirror.sources) else None
            status = self._statuses.get(source, "RUNNING") if source is not None else "RUNNING"
        return {
            "SUCCESS": behaviortreepy.NodeStatus.SUCCESS,
            "FAILURE": behaviortreepy.NodeStatus.FAILURE,
        }.get(status, behaviortreepy.NodeStatus.RUNNING)


def _answers(snapshot: Snapshot) -> dict[str, str]:
    """What each replayed node answers: its own status, or for an INVALID one what lets BT.CPP reach py_trees' state.

    An INVALID node with an active later sibling was passed over (a memory composite resumes
    past it): it answers what makes its parent go on, FAILURE under a selector (Fallback),
    SUCCESS under a sequence. Any other INVALID node takes its nearest reached ancestor's status.
    """
    behaviours = snapshot["behaviours"]
    answers: dict[str, str] = {}
    stack = [(str(snapshot.get("root") or next(iter(behaviours))), "RUNNING")]
    while stack:
        node_id, inherited = stack.pop()
        entry = behaviours[node_id]
        status = str(entry.get("status", "INVALID"))
        answers[node_id] = inherited if status == "INVALID" else status
        children = [str(child) for child in entry.get("children", ())]
        passed = _passed_answer(entry)
        for position, child in enumerate(children):
            later_active = any(
                str(behaviours[later].get("status", "INVALID")) != "INVALID" for later in children[position + 1 :]
            )
            own = str(behaviours[child].get("status", "INVALID"))
            stack.append((child, passed if passed and own == "INVALID" and later_active else answers[node_id]))
    return answers


def _passed_answer(entry: Mapping[str, Any]) -> str | None:
    """What a child answers so that this composite passes over it; None if it is not a selector or sequence."""
    data = entry.get("data") or {}
    kind = str(data.get("kind", "") if isinstance(data, Mapping) else "").lower()
    return {"selector": "FAILURE", "sequence": "SUCCESS"}.get(kind)


def _pre_order_ids(snapshot: Snapshot) -> list[str]:
    behaviours = snapshot["behaviours"]
    order: list[str] = []
    stack = [str(snapshot.get("root") or next(iter(behaviours)))]
    while stack:
        node_id = stack.pop()
        order.append(node_id)
        stack.extend(reversed([str(c) for c in behaviours[node_id].get("children", ())]))
    return order


def _shape(snapshot: Snapshot) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """What the mirror is built from: every node's id, name and children (statuses excluded)."""
    behaviours = snapshot["behaviours"]
    return tuple(
        (node_id, str(behaviours[node_id].get("name")), tuple(str(c) for c in behaviours[node_id].get("children", ())))
        for node_id in _pre_order_ids(snapshot)
    )

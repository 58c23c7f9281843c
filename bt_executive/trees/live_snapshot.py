"""LiveSnapshot: a running task's tree snapshot, kept up to date for the cost of what a tick touched.

::

    live = LiveSnapshot(task_tree)          # one per task; the node, the run dir and the viewer share it
    while task_tree.final_reason is None:
        task_tree.tick_once()
        if live.update():                   # did a status, a name or the structure change? (every tick)
            snapshot = live.snapshot()      # the py_trees_js dict (trees.snapshot's format)
            text = live.json()              # the same snapshot as compact JSON, for the topic and the run dir

``tree_snapshot`` walks every node, so watching a 500-node tree cost 26
ticks per tick. A status changes in only two places: in a tick (the tick
names every node it visited: ``TaskTree.last_visited``) and in ``stop()``,
which a composite calls on children it did not tick (a selector invalidating
lower priorities, a sequence restarting, a cancel). So this watches exactly
those: the visited nodes, and the nodes whose ``stop`` ran since the last
look (each node's ``stop`` is wrapped to note it, once, when the node enters
the tree). What a node shows that only a graft can change (id, name,
children, type, structure, call, plan) is built once per graft
(``TaskTree.structure_version``); a snapshot rebuilds the entries of the
nodes visited or changed since the last one, and its JSON re-encodes only
those entries. ``tree_snapshot`` stays the reference: the tests check that
both give the same snapshot after every tick.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import py_trees
from py_trees.common import Status

from bt_executive.trees.snapshot import NodeFacts, Snapshot, current_step, node_entry, walk
from bt_executive.trees.task_context import TaskContext

_CHUNK = 64
"""Nodes per cached run of JSON text: a message joins ~n/64 runs, re-joining only those with a changed node."""


class WatchedTree(Protocol):
    """What LiveSnapshot reads from a task's tree (``TaskTree`` is one)."""

    @property
    def root(self) -> py_trees.behaviour.Behaviour:
        """The tree's root."""
        ...

    @property
    def context(self) -> TaskContext:
        """The task's shared state (plan history, replans, final reason)."""
        ...

    @property
    def last_visited(self) -> Sequence[py_trees.behaviour.Behaviour]:
        """The nodes the last tick visited."""
        ...

    @property
    def structure_version(self) -> int:
        """Grows whenever a graft adds, removes or renames nodes."""
        ...


@dataclass(slots=True)
class _Watched:
    """LiveSnapshot's bookkeeping for one node in the tree."""

    node: py_trees.behaviour.Behaviour
    facts: NodeFacts
    position: int
    status: Status


class LiveSnapshot:
    """The one snapshot of a running task: ``update`` after each tick, ``snapshot``/``json`` on change."""

    def __init__(self, tree: WatchedTree) -> None:
        self._tree = tree
        self._version = -1
        self._watched: dict[py_trees.behaviour.Behaviour, _Watched] = {}
        self._stopped: set[py_trees.behaviour.Behaviour] = set()
        self._pending: set[py_trees.behaviour.Behaviour] = set()
        self._reached: dict[str, None] = {}
        """Ids of the nodes not INVALID (the ``visited_path`` a replay shows), as an ordered set."""
        self._running_steps: set[py_trees.behaviour.Behaviour] = set()
        self._entries: dict[str, dict[str, Any]] = {}
        self._unencoded: set[str] = set()
        self._fragments: dict[str, str] = {}
        """Each entry's ``"id":{...}`` JSON as of the last ``json()``; only rebuilt entries are re-encoded."""
        self._ids: list[str] = []
        """Every node's id in pre-order (a new list per graft)."""
        self._last_ids: list[str] = []
        self._chunks: list[str] = []
        """The joined fragments of each run of ``_CHUNK`` nodes in pre-order, so a message is a join of a few."""
        self._chunked_ids: list[str] | None = None
        self._stale_chunks: set[int] = set()
        self._current: py_trees.behaviour.Behaviour | None = None
        self._changed = True
        self._last: Snapshot | None = None
        self._last_json: str | None = None

    # every tick -------------------------------------------------------------------------------------

    def update(self) -> bool:
        """True the first time and whenever a status, a name or the structure changed since the last call."""
        self._absorb()
        changed, self._changed = self._changed, False
        return changed

    def _absorb(self) -> None:
        """Take in a graft (once per graft) and the status of every node visited or stopped since the last look."""
        if self._tree.structure_version != self._version:
            self._reindex()
        watched, pending = self._watched, self._pending
        stopped = tuple(self._stopped)
        self._stopped.clear()
        for node in (*self._tree.last_visited, *stopped):
            entry = watched.get(node)
            if entry is None:  # visited before a graft removed it
                continue
            pending.add(node)
            status = node.status
            if status is not entry.status:
                self._status_changed(entry, status)

    def _status_changed(self, entry: _Watched, status: Status) -> None:
        entry.status = status
        self._changed = True
        if status is Status.INVALID:
            self._reached.pop(entry.facts.id, None)
        else:
            self._reached[entry.facts.id] = None
        if entry.facts.is_step:
            if status is Status.RUNNING:
                self._running_steps.add(entry.node)
            else:
                self._running_steps.discard(entry.node)

    def _note_stopped(self, node: py_trees.behaviour.Behaviour) -> None:
        self._stopped.add(node)

    # on change --------------------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The tree now, in the py_trees_js format; only nodes visited or changed since the last one are rebuilt."""
        self._absorb()
        current = current_step(sorted(self._running_steps, key=lambda n: self._watched[n].position))
        if current is not self._current:
            self._pending.update(n for n in (current, self._current) if n is not None and n in self._watched)
            self._current = current
        context = self._tree.context
        for node in self._pending:
            watched = self._watched[node]
            self._entries[watched.facts.id] = node_entry(node, watched.facts, context, current=node is current)
            self._unencoded.add(watched.facts.id)
            self._stale_chunks.add(watched.position // _CHUNK)
        self._pending.clear()
        self._last_ids = self._ids
        self._last = {
            "timestamp": time.time(),
            "root": str(self._tree.root.id),
            "current": str(current.id) if current is not None else None,
            "changed": True,
            "visited_path": list(self._reached),
            "behaviours": dict(self._entries),
        }
        self._last_json = None
        return self._last

    def json(self) -> str:
        """The last snapshot as compact JSON, re-encoding only the entries rebuilt since the last one."""
        if self._last is None:
            self.snapshot()
        if self._last_json is None:
            assert self._last is not None
            behaviours: dict[str, dict[str, Any]] = self._last["behaviours"]
            for node_id in self._unencoded:
                if node_id in behaviours:
                    self._fragments[node_id] = _fragment(node_id, behaviours[node_id])
            self._unencoded.clear()
            ids = self._last_ids
            if self._chunked_ids is not ids:  # a graft: every chunk anew
                self._chunked_ids = ids
                self._chunks = [""] * ((len(ids) + _CHUNK - 1) // _CHUNK)
                self._stale_chunks = set(range(len(self._chunks)))
            for chunk in self._stale_chunks:
                self._chunks[chunk] = ",".join(
                    self._fragments.get(node_id) or _fragment(node_id, behaviours[node_id])
                    for node_id in ids[chunk * _CHUNK : (chunk + 1) * _CHUNK]
                )
            self._stale_chunks = set()
            head = {key: value for key, value in self._last.items() if key != "behaviours"}
            encoded_head = json.dumps(head, separators=(",", ":"))
            parts = [encoded_head[:-1], ',"behaviours":{']
            for joined in self._chunks:
                parts += (joined, ",")
            parts[-1] = "}}"  # one join: a large message is copied once
            self._last_json = "".join(parts)
        return self._last_json

    @property
    def last(self) -> Snapshot | None:
        """The last snapshot taken, or None."""
        return self._last

    # once per graft ---------------------------------------------------------------------------------

    def _reindex(self) -> None:
        """Walk the tree once: facts for new or renamed nodes, positions for all, a stop hook on new ones."""
        self._version = self._tree.structure_version
        root = self._tree.root
        plans = self._tree.context.plans
        previous = self._watched
        watched: dict[py_trees.behaviour.Behaviour, _Watched] = {}
        order: list[_Watched] = []
        for position, node in enumerate(walk(root)):
            entry = previous.get(node)
            children = [str(child.id) for child in node.children]
            if entry is None:
                facts = NodeFacts.of(node, plans, is_root=node is root)
                entry = _Watched(node, facts, position, Status.INVALID)
                _note_stops(node, self._note_stopped)
                self._pending.add(node)
                if node.status is not Status.INVALID:
                    self._status_changed(entry, node.status)
            elif (
                entry.facts.name != node.name
                or entry.facts.children != children
                or entry.facts.is_root != (node is root)
            ):
                entry.facts = NodeFacts.of(node, plans, is_root=node is root)
                self._pending.add(node)
            entry.position = position
            watched[node] = entry
            order.append(entry)
        for node, entry in previous.items():
            if node not in watched:
                self._entries.pop(entry.facts.id, None)
                self._fragments.pop(entry.facts.id, None)
                self._reached.pop(entry.facts.id, None)
                self._running_steps.discard(node)
                self._pending.discard(node)
        self._watched = watched
        self._ids = [entry.facts.id for entry in order]
        self._entries = {entry.facts.id: self._entries.get(entry.facts.id, {}) for entry in order}
        self._changed = True


def _fragment(node_id: str, entry: dict[str, Any]) -> str:
    """One ``behaviours`` member as JSON text: ``"id":{...}``."""
    return f'"{node_id}":{json.dumps(entry, separators=(",", ":"))}'


def _note_stops(node: py_trees.behaviour.Behaviour, note: Callable[[py_trees.behaviour.Behaviour], None]) -> None:
    """Wrap ``node.stop`` so that every call (a status change outside a tick) is noted."""
    stop = node.stop

    def noted_stop(new_status: Status = Status.INVALID) -> None:
        stop(new_status)
        note(node)

    vars(node)["stop"] = noted_stop

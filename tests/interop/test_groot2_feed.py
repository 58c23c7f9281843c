"""The Groot2 feed, read by btview (a Groot2 client from PyPI) over Groot2's own ZMQ protocol.

A task tree with a retry and a replan runs with scripted leaves; after every
tick that changed it the feed mirrors the snapshot, and btview fetches the
tree and polls the statuses, as Groot2 does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from bt_executive.executive.groot2_feed import Groot2Feed
from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.export_btcpp import btcpp_export
from bt_executive.trees.inert_tree import tree_from_snapshot
from bt_executive.trees.live_snapshot import LiveSnapshot
from bt_executive.trees.snapshot import Snapshot, walk
from bt_executive.trees.task_tree import TaskTree
from tests.interop.ports import free_port_pair
from tests.trees.scripted_leaves import ScriptedLeafFactory

btview_client = pytest.importorskip("btview.client", reason="btview (requirements.txt) is the Groot2 client")

PICK = SkillCall(skill="tabletop/pick", args={"object": "red_cube"})
PICK_GREEN = SkillCall(skill="tabletop/pick", args={"object": "green_cube"})
PLACE = SkillCall(skill="tabletop/place_on", args={"target": "plate"})


@dataclass
class Seen:
    """One snapshot, and what btview read from the feed right after it."""

    snapshot: Snapshot
    names: list[str]
    """btview's tree, pre-order."""
    statuses: list[str]
    """btview's status of each of those nodes (IDLE, RUNNING, SUCCESS, FAILURE)."""
    sources: list[str | None]
    """The snapshot id each node stands for (None: a wrapper the export added)."""


def pre_order_ids(snapshot: Snapshot) -> list[str]:
    order, stack = [], [str(snapshot["root"])]
    while stack:
        node_id = stack.pop()
        order.append(node_id)
        stack.extend(reversed(snapshot["behaviours"][node_id]["children"]))
    return order


def sources_of(snapshot: Snapshot) -> list[str | None]:
    """The export's nodes in pre-order, as snapshot ids (computed here as the feed does, from the snapshot)."""
    rebuilt = tree_from_snapshot(snapshot)
    ids = dict(zip(walk(rebuilt), pre_order_ids(snapshot), strict=True))
    return [ids[node] if node is not None else None for node in btcpp_export(rebuilt).sources]


def btview_tree(client: Any) -> tuple[list[str], list[str]]:
    """Names and statuses of btview's tree in pre-order."""
    model = client.fetch_tree()
    statuses = client.poll().statuses
    names, status_names = [], []
    stack = list(reversed(model.roots))
    while stack:
        node = stack.pop()
        names.append(node.name)
        state = statuses.get(node.uid)
        status_names.append(state.status.name if state is not None else "IDLE")
        stack.extend(reversed(node.children))
    return names, status_names


@pytest.fixture
def seen(skill_registry: SkillRegistry, clean_blackboard: None) -> Iterator[list[Seen]]:
    """The run: pick misses once (retry), then is not found (replan to the green cube), then all succeeds."""
    leaves = ScriptedLeafFactory(ticks=3)
    leaves.script("tabletop/pick", FailureKind.MISSED_GRASP, FailureKind.NOT_FOUND)
    planner = ScriptedPlanner([Plan(steps=(PICK, PLACE), planner="s"), Plan(steps=(PICK_GREEN, PLACE), planner="s")])
    tree = TaskTree("put the red cube on the plate", planner=planner, registry=skill_registry, leaf_factory=leaves)
    live = LiveSnapshot(tree)
    port = free_port_pair()
    feed = Groot2Feed(port)
    client = btview_client.Groot2Client("127.0.0.1", port, timeout_ms=3000)
    out: list[Seen] = []
    try:
        # Bounded by time, not ticks: the replan runs on the planner's thread, which a busy machine may not
        # schedule within a few hundred ticks (a tick-count bound failed once in CI this way).
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline:
            tree.tick_once()
            time.sleep(0.001)
            if live.update():
                snapshot = json.loads(json.dumps(live.snapshot()))
                feed.on_snapshot(snapshot)
                names, statuses = btview_tree(client)
                out.append(Seen(snapshot, names, statuses, sources_of(snapshot)))
            if tree.final_reason is not None:
                break
        assert tree.final_reason == "done"
        yield out
    finally:
        client.close()
        feed.close()


def py_trees_status(item: Seen, source: str) -> str:
    status = str(item.snapshot["behaviours"][source]["status"])
    return "IDLE" if status == "INVALID" else status


def test_btview_reads_the_executives_tree_names_over_groot2s_protocol(seen: list[Seen]) -> None:
    wrong = [
        (i, name)
        for i, item in enumerate(seen)
        for name, source in zip(item.names, item.sources, strict=True)
        if source is not None and name != item.snapshot["behaviours"][source]["name"]
    ]
    assert (len(seen) > 10, wrong) == (True, [])


def test_btview_follows_the_grafted_replan(seen: list[Seen]) -> None:
    assert any(name.startswith("Plan #1") for name in seen[-1].names)


def test_every_running_py_trees_leaf_shows_running_in_btview(seen: list[Seen]) -> None:
    running = [
        (i, name, status)
        for i, item in enumerate(seen)
        for name, status, source in zip(item.names, item.statuses, item.sources, strict=True)
        if source is not None and not item.snapshot["behaviours"][source]["children"]
        if py_trees_status(item, source) == "RUNNING"
    ]
    assert (len(running) > 5, [entry for entry in running if entry[2] != "RUNNING"]) == (True, [])


def test_no_node_shows_the_opposite_ending(seen: list[Seen]) -> None:
    """Where both have finished a node, they agree (BT.CPP resets what it finished to IDLE, py_trees keeps it)."""
    ended = ("SUCCESS", "FAILURE")
    contradictions = [
        (i, name, status, py_trees_status(item, source))
        for i, item in enumerate(seen)
        for name, status, source in zip(item.names, item.statuses, item.sources, strict=True)
        if source is not None and status in ended and py_trees_status(item, source) in ended
        if status != py_trees_status(item, source)
    ]
    assert contradictions == []


def test_the_root_status_agrees_while_the_task_runs(seen: list[Seen]) -> None:
    pairs = [(item.statuses[0], py_trees_status(item, item.sources[0] or "")) for item in seen]
    running = [i for i, (_, py) in enumerate(pairs) if py == "RUNNING"]
    assert (len(running) > 5, [i for i in running if pairs[i][0] != "RUNNING"]) == (True, [])


def test_most_node_statuses_agree_over_the_run(seen: list[Seen]) -> None:
    compared = [
        status == py_trees_status(item, source)
        for item in seen
        for status, source in zip(item.statuses, item.sources, strict=True)
        if source is not None
    ]
    agreement = sum(compared) / len(compared)
    print(f"Groot2 mirror: {agreement:.1%} of {len(compared)} node statuses equal py_trees' over {len(seen)} snapshots")
    assert agreement >= 0.8

"""What does watching a tree cost: the change check every tick, and a published snapshot, vs a tick?

The executive checks for a change after every tick and publishes a
py_trees_js snapshot (and its JSON, which the run directory records as is)
only on change. For compiled plans of 2 to 200 steps (22 to 2,002 nodes),
in the same run, this times (a) one tick, (b) ``LiveSnapshot.update`` after
it (the check), (c) ``LiveSnapshot.snapshot`` and (d) ``LiveSnapshot.json``
(a snapshot as published), and, as the baseline they replace, (e) the full
walk ``tree_snapshot`` and (f) ``json.dumps`` of it. Each size is measured
twice: with the first step's leaf in flight (``early``) and with every step
done but the last (``late``: the finished steps' nodes all hold SUCCESS, so
the tree has the most nodes to show). Leaves are in-process; only tree and
snapshot costs are measured.

Targets (issue 16), at 502 nodes and beyond: the check <= 3x a tick, a
published snapshot (c + d) <= 1.5 ms, and both flat in the tree's size.

    .venv/bin/python benchmarks/snapshot.py [--repeat 300] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import py_trees
from py_trees.common import Status

from bt_executive.skills.call import SkillCall, SkillResult
from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.testing.synthetic_plans import RunningLeaf, cubes_world, pick_place_plan, running_leaf_factory
from bt_executive.trees.live_snapshot import LiveSnapshot
from bt_executive.trees.recovery import load_recovery_policy
from bt_executive.trees.snapshot import tree_snapshot
from bt_executive.trees.task_tree import TaskTree

SIZES = (2, 10, 50, 200)
TARGET_CHECK_VS_TICK = 3.0
TARGET_PUBLISH_US = 1500.0


class _DoneLeaf(py_trees.behaviour.Behaviour):
    """A skill leaf that succeeds on its first tick (the steps before the one in flight)."""

    def __init__(self, call: SkillCall, name: str) -> None:
        super().__init__(name)
        self.call = call
        self.result: SkillResult | None = None

    def update(self) -> Status:
        """Done at once."""
        self.result = SkillResult.ok()
        return Status.SUCCESS


def _late_leaves(steps: int) -> Callable[..., py_trees.behaviour.Behaviour]:
    """Leaves that succeed at once for every step but the last, which stays RUNNING."""
    last_key = f"plan0_step{steps}"

    def factory(call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        return RunningLeaf(call, name) if key == last_key else _DoneLeaf(call, name)

    return factory


def _median_us(action: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def _tree(steps: int, registry: SkillRegistry, position: str) -> TaskTree:
    plan = pick_place_plan(steps)
    if position == "early":
        world = cubes_world(steps)
        return TaskTree(
            "bench",
            planner=ScriptedPlanner([]),
            registry=registry,
            leaf_factory=running_leaf_factory,
            policy=load_recovery_policy(),
            world=lambda: world,
            plan=plan,
        )
    # No world source: conditions pass, so every step but the last runs and succeeds.
    tree = TaskTree(
        "bench",
        planner=ScriptedPlanner([]),
        registry=registry,
        leaf_factory=_late_leaves(steps),
        policy=load_recovery_policy(),
        plan=plan,
    )
    for _ in range(10 * steps + 10):
        tree.tick_once()
    return tree


def measure(steps: int, position: str, repeat: int, registry: SkillRegistry) -> dict[str, Any]:
    """Median costs for one plan size and position, in µs, and their ratios to a tick."""
    tree = _tree(steps, registry, position)
    tree.tick_once()
    if tree.root.status is not Status.RUNNING:
        raise SystemExit(f"{steps} steps, {position}: the tree is {tree.root.status.value}, not running a leaf")
    live = LiveSnapshot(tree)
    live.update()
    live.json()
    full = tree_snapshot(tree.root)

    def publish() -> None:
        live.snapshot()
        live.json()

    nodes = sum(1 for _ in tree.root.iterate())
    reached = sum(1 for n in tree.root.iterate() if n.status != Status.INVALID)
    row: dict[str, Any] = {
        "steps": steps,
        "position": position,
        "nodes": nodes,
        "reached": reached,
        "tick_us": _median_us(tree.tick_once, repeat),
        # As after every tick: the last tick's visited nodes are read again each time.
        "check_us": _median_us(live.update, repeat),
        "snapshot_us": _median_us(live.snapshot, repeat),
        "publish_us": _median_us(publish, repeat),
        "full_snapshot_us": _median_us(lambda: tree_snapshot(tree.root), max(20, repeat // 10)),
        "full_json_us": _median_us(lambda: json.dumps(full, separators=(",", ":")), max(20, repeat // 10)),
    }
    row["json_us"] = row["publish_us"] - row["snapshot_us"]
    tree.cancel()
    row["check_vs_tick"] = row["check_us"] / row["tick_us"]
    row["full_vs_publish"] = (row["full_snapshot_us"] + row["full_json_us"]) / row["publish_us"]
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures last")
    args = parser.parse_args()
    registry = SkillRegistry.discover(default_skill_dirs())
    rows = [measure(steps, position, args.repeat, registry) for steps in SIZES for position in ("early", "late")]
    print(
        f"{'steps':>5} {'where':>5} {'nodes':>6} {'tick':>8} {'check':>15} {'snapshot':>9} {'json':>8} "
        f"{'published':>10} {'full walk + json':>17} {'gain':>7}"
    )
    for r in rows:
        print(
            f"{r['steps']:>5} {r['position']:>5} {r['nodes']:>6} {r['tick_us']:>5.1f} us "
            f"{r['check_us']:>6.1f} us {r['check_vs_tick']:>4.2f}x {r['snapshot_us']:>6.1f} us {r['json_us']:>5.1f} us "
            f"{r['publish_us']:>7.1f} us {r['full_snapshot_us'] + r['full_json_us']:>11.1f} us "
            f"{r['full_vs_publish']:>6.0f}x"
        )
    largest = [r for r in rows if r["steps"] == SIZES[-1]]
    at_502 = [r for r in rows if r["nodes"] >= 502]
    worst_check = max(r["check_vs_tick"] for r in at_502)
    worst_publish = max(r["publish_us"] for r in at_502)
    verdict = "meets" if worst_check <= TARGET_CHECK_VS_TICK and worst_publish <= TARGET_PUBLISH_US else "MISSES"
    print(
        f"\nfrom 502 nodes up: check <= {worst_check:.2f}x a tick (target {TARGET_CHECK_VS_TICK:g}x), "
        f"published snapshot <= {worst_publish:.0f} us (target {TARGET_PUBLISH_US:g} us): {verdict} the targets"
    )
    if args.json:
        summary = {
            "sizes": rows,
            "largest_nodes": largest[0]["nodes"],
            "largest_check_vs_tick": max(r["check_vs_tick"] for r in largest),
            "largest_publish_us": max(r["publish_us"] for r in largest),
            "target_check_vs_tick": TARGET_CHECK_VS_TICK,
            "target_publish_us": TARGET_PUBLISH_US,
        }
        print(json.dumps(summary))


if __name__ == "__main__":
    main()

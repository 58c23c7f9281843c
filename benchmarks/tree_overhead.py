"""What does the compiled step structure cost per tick, over the same leaves in a bare Sequence?

A compiled plan wraps each leaf in its step's fallback, PPA selector,
conditions and attempts composite (DESIGN.md, "Compiled tree shape"). In the
same run, for plans of 2, 10 and 50 steps, this times (a) ``TaskTree.tick_once``
on the compiled plan and (b) ``tick_once`` on a memory Sequence of the same
kind of leaves, both while the first leaf is RUNNING (the executive's steady
state: one step in flight), and (c) compiling a plan (``compile_plan``,
median of ``--builds``) vs building its bare leaves, with the plan check
(``require_runnable``) and a whole ``TaskTree`` (check + compile) beside
it. Leaves are in-process and always RUNNING, so only tree overhead is
measured; the target is that a tick stays under 1 ms at 50 steps (memory
composites skip finished and future steps, so cost should not grow with the
plan); compiling should cost <= 100 us per step (issue 16).

    .venv/bin/python benchmarks/tree_overhead.py [--ticks 2000] [--builds 30] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import py_trees

from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.testing.synthetic_plans import cubes_world, pick_place_plan, running_leaf_factory
from bt_executive.trees.plan_check import require_runnable
from bt_executive.trees.recovery import RecoveryPolicy, load_recovery_policy
from bt_executive.trees.task_tree import TaskTree

SIZES = (2, 10, 50)
TARGET_TICK_MS = 1.0
TARGET_COMPILE_US_PER_STEP = 100.0


def _per_tick_us(tick: py_trees.behaviour.Behaviour | TaskTree, ticks: int) -> float:
    durations = []
    for _ in range(ticks):
        started = time.perf_counter()
        tick.tick_once()
        durations.append(time.perf_counter() - started)
    return statistics.median(durations) * 1e6


def _build(steps: int, registry: SkillRegistry, policy: RecoveryPolicy) -> TaskTree:
    world = cubes_world(steps)
    return TaskTree(
        "bench",
        planner=ScriptedPlanner([]),
        registry=registry,
        leaf_factory=running_leaf_factory,
        policy=policy,
        world=lambda: world,
        plan=pick_place_plan(steps),
    )


def _median_ms(action: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e3


def measure(steps: int, ticks: int, builds: int, registry: SkillRegistry) -> dict[str, float]:
    """Median tick and build times for one plan size, compiled vs bare."""
    plan, world = pick_place_plan(steps), cubes_world(steps)
    policy = load_recovery_policy()
    tree = _build(steps, registry, policy)
    # The whole TaskTree (plan check + compile), the compile alone, the plan check alone, bare leaves.
    task_tree_ms = _median_ms(lambda: _build(steps, registry, policy).shutdown(), builds)
    compile_ms = _median_ms(lambda: tree.compiler.compile_plan(plan, 0), builds)
    check_ms = _median_ms(lambda: require_runnable(plan, registry, world), builds)
    bare_build_ms = _median_ms(
        lambda: py_trees.composites.Sequence(
            "bare", memory=True, children=[running_leaf_factory(c, name=c.label(), key="") for c in plan.steps]
        ),
        builds,
    )
    bare = py_trees.composites.Sequence(
        "bare", memory=True, children=[running_leaf_factory(c, name=c.label(), key="") for c in plan.steps]
    )
    compiled_us = _per_tick_us(tree, ticks)
    bare_us = _per_tick_us(bare, ticks)
    tree.cancel()
    nodes = sum(1 for _ in tree.root.iterate())
    return {
        "steps": steps,
        "nodes": nodes,
        "compiled_tick_us": round(compiled_us, 1),
        "bare_tick_us": round(bare_us, 1),
        "tick_ratio": round(compiled_us / bare_us, 2),
        "compile_ms": round(compile_ms, 3),
        "bare_build_ms": round(bare_build_ms, 3),
        "compile_us_per_step": round(compile_ms * 1e3 / steps, 1),
        "plan_check_us_per_step": round(check_ms * 1e3 / steps, 1),
        "task_tree_us_per_step": round(task_tree_ms * 1e3 / steps, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ticks", type=int, default=2000)
    parser.add_argument("--builds", type=int, default=30, help="timed compiles per size (median)")
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures last")
    args = parser.parse_args()
    registry = SkillRegistry.discover(default_skill_dirs())
    rows = [measure(steps, args.ticks, args.builds, registry) for steps in SIZES]
    print(
        f"{'steps':>5} {'nodes':>6} {'compiled tick':>14} {'bare tick':>10} {'ratio':>6} {'compile':>9} "
        f"{'per step':>9} {'check/step':>11} {'TaskTree/step':>14}"
    )
    for r in rows:
        print(
            f"{r['steps']:>5} {r['nodes']:>6} {r['compiled_tick_us']:>11.1f} us {r['bare_tick_us']:>7.1f} us "
            f"{r['tick_ratio']:>5.2f}x {r['compile_ms']:>6.2f} ms {r['compile_us_per_step']:>6.0f} us "
            f"{r['plan_check_us_per_step']:>8.0f} us {r['task_tree_us_per_step']:>11.0f} us"
        )
    worst = max(r["compiled_tick_us"] for r in rows) / 1e3
    verdict = "meets" if worst < TARGET_TICK_MS else "MISSES"
    print(f"\nlongest median compiled tick {worst:.3f} ms: {verdict} the {TARGET_TICK_MS:g} ms target")
    worst_compile = max(r["compile_us_per_step"] for r in rows)
    verdict = "meets" if worst_compile <= TARGET_COMPILE_US_PER_STEP else "MISSES"
    print(f"slowest compile {worst_compile:.0f} us per step: {verdict} the {TARGET_COMPILE_US_PER_STEP:g} us target")
    if args.json:
        summary = {
            "sizes": rows,
            "worst_tick_ms": round(worst, 4),
            "target_tick_ms": TARGET_TICK_MS,
            "worst_compile_us_per_step": worst_compile,
            "target_compile_us_per_step": TARGET_COMPILE_US_PER_STEP,
        }
        print(json.dumps(summary))


if __name__ == "__main__":
    main()

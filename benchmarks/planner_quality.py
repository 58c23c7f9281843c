"""How good are the planners on the planner eval, tier by tier: stub, auto (the default) and local.

Every task of ``tests/golden/planner_tasks.yaml`` (grammar, paraphrase,
quantified/multi-step, implicit precondition, must-refuse) is planned from
its scenario of the MuJoCo tabletop's world state (layout seed 0) and scored
by ``bt_executive.llm.planner_eval``: the goal must hold after executing the
plan symbolically; must-refuse tasks pass with no call compiled. Per planner
and tier it prints the success rate, the refusal rate, substituted objects
(must be 0) and mean seconds per plan. ``auto`` here is the shipped profile
(fallback ``local`` for what the grammar cannot parse, started only if
needed); ``auto (no model)`` is its deterministic path alone, as the
``make test`` gate runs it. The local model is slow on two cores, so it
plans ``--local-tasks`` tasks per tier (0: all, -1: skip it).

    .venv/bin/python benchmarks/planner_quality.py [--local-tasks 2] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from bt_executive.executive.planner_factory import make_planner
from bt_executive.llm.auto_planner import AutoPlanner
from bt_executive.llm.plan import Planner
from bt_executive.llm.planner_eval import TIERS, EvalTask, TierSummary, load_eval, run_eval, summarise
from bt_executive.llm.stub_planner import StubPlanner
from bt_executive.resources import default_skill_dirs
from bt_executive.sim.backend import SimBackend
from bt_executive.skills.registry import SkillRegistry

EVAL = Path(__file__).resolve().parents[1] / "tests" / "golden" / "planner_tasks.yaml"


def _sample(tasks: Sequence[EvalTask], per_tier: int) -> list[EvalTask]:
    if per_tier <= 0:
        return list(tasks)
    return [t for tier in TIERS for t in [x for x in tasks if x.tier == tier][:per_tier]]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the eval for each planner and print the table (and the JSON figures with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local-tasks", type=int, default=2, help="tasks per tier for local (0 all, -1 skip)")
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures last")
    args = parser.parse_args(argv)

    registry = SkillRegistry.discover(default_skill_dirs(), use_entry_points=False)
    backend = SimBackend.from_files(seed=0)
    world = backend.world_state()
    backend.close()
    data = load_eval(EVAL)
    planners: list[tuple[str, Planner, list[EvalTask]]] = [
        ("stub", StubPlanner(registry), list(data.tasks)),
        ("auto (no model)", AutoPlanner(registry), list(data.tasks)),
        ("auto", make_planner("auto", registry), list(data.tasks)),
    ]
    if args.local_tasks >= 0:
        planners.append(("local", make_planner("local", registry), _sample(data.tasks, args.local_tasks)))

    figures: dict[str, dict[str, dict[str, float]]] = {}
    print(f"{'planner':16s} {'tier':22s} {'tasks':>5s} {'success':>8s} {'refused':>8s} {'subst':>6s} {'s/plan':>8s}")
    for name, planner, tasks in planners:
        rows: list[TierSummary] = summarise(run_eval(planner, tasks, data.scenarios, world, registry))
        figures[name] = {}
        for row in rows:
            print(
                f"{name:16s} {row.tier:22s} {row.tasks:5d} {row.success:8.0%} {row.refused:8.0%} "
                f"{row.substituted:6d} {row.mean_s:8.3f}"
            )
            figures[name][row.tier] = {
                "tasks": row.tasks,
                "success": round(row.success, 3),
                "refused": round(row.refused, 3),
                "substituted": row.substituted,
                "mean_s": round(row.mean_s, 4),
            }
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How good are the planners on the planner eval, robot by robot, split by split, tier by tier.

Each eval robot of ``tests/golden/robots`` (tabletop, home, inspection, and
the warehouse and lab an outsider wrote: ``bt_executive.llm.eval.eval_robots``)
has its skills, a frozen world and two splits: the tuned tiers (``tasks.yaml``; the tabletop's is
``tests/golden/planner_tasks.yaml``) and the held-out split
(``heldout.yaml``, reported absent until it is written). Every task
(grammar, paraphrase, quantified/multi-step, implicit precondition,
must-refuse) is planned from its scenario and scored by
``bt_executive.llm.eval.planner_eval``: a plan is exact or wrong; a refusal of a
plannable task is counted apart, never as wrong; must-refuse tasks pass
with no plan (and the refusal kind, where the task names one). Per planner
and tier it prints the exact rate, the refusal rate, refusals of plannable
tasks, wrong plans (the figure that must stay 0) and mean seconds per plan.

``stub`` and ``auto (no model)`` (``AutoPlanner`` with no fallback, as the
``make test`` gate runs it) plan for every robot. The shipped ``auto``
profile (falling back to its local model for what the grammar cannot parse)
and ``local`` itself (offering every skill of the robot) are slow on two cores, so they plan only with
``--local-tasks`` (tasks per tier for ``local``, ``auto`` plans them all;
0: all, -1: skip, the default), for every robot. ``auto (model, faithful)`` is ``auto`` on the tasks its grammar
cannot parse, the ones its local model plans (every model plan checked against
the task, ``llm/model/faithfulness.py``): the same scores, no extra requests.
Plan time is its own table: per robot, the warm grammar planner's median and
90th-percentile milliseconds per plan over the tuned split's grammar tier
(each task planned five times), and a blank task's refusal, each beside the
issue's budget (5 ms a plan, 50 ms a blank refusal) as a ratio. With
``--json`` the last line is one JSON object of the figures; its ``headline``
is the held-out exact rate and wrong count of ``auto (no model)`` per robot.

    .venv/bin/python benchmarks/planner_quality.py [--local-tasks 2] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from bt_executive.executive.planner_factory import make_planner
from bt_executive.llm.eval.eval_robots import SPLITS, EvalRobot, load_robot
from bt_executive.llm.eval.planner_eval import TIERS, EvalTask, Scenario, TaskScore, TierSummary, run_eval, summarise
from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.plan import Planner, PlannerError
from bt_executive.llm.profiles import load_llm_config
from bt_executive.skills.world_state import WorldState

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"
ROBOTS = ("tabletop", "home", "inspection", "warehouse", "lab")
"""The last two were written by an outsider from their manifests alone (one tuned split each, no held-out)."""
TUNED = {"tabletop": GOLDEN / "planner_tasks.yaml"}
"""Tuned files kept where they were before robots had folders; the others are the folder's tasks.yaml."""
HEADLINE_PLANNER = "auto (no model)"
MODEL_ROW = "auto (model, faithful)"
"""``auto``'s scores on the tasks only its model plans."""

Figures = dict[str, float | int]
PLAN_BUDGET_MS = 5.0
BLANK_BUDGET_MS = 50.0
REPEATS = 5


def _sample(tasks: Sequence[EvalTask], per_tier: int) -> list[EvalTask]:
    if per_tier <= 0:
        return list(tasks)
    return [t for tier in TIERS for t in [x for x in tasks if x.tier == tier][:per_tier]]


def _planners(robot: EvalRobot, local_tasks: int) -> list[tuple[str, Planner, int]]:
    """The planners for one robot, each with its tasks per tier (0: all)."""
    planners: list[tuple[str, Planner, int]] = [
        ("stub", GrammarPlanner(robot.registry), 0),
        (HEADLINE_PLANNER, AutoPlanner(robot.registry), 0),
    ]
    if local_tasks >= 0:
        planners.append(("auto", make_planner("auto", robot.registry), 0))
        planners.append(("local", _local(robot), local_tasks))
    return planners


def _local(robot: EvalRobot) -> Planner:
    """The shipped ``local`` profile offering every skill of ``robot`` (as shipped, it offers the tabletop's)."""
    config = load_llm_config()
    profile = config.profile("local").model_copy(update={"skills": ()})
    return LLMPlanner(profile, robot.registry, examples=config.examples)


def _model_tasks(robot: EvalRobot, tasks: Sequence[EvalTask], scenarios: dict[str, Scenario]) -> set[str]:
    """The tasks the grammar cannot parse and nothing refuses first: what ``auto`` hands its model."""
    auto = AutoPlanner(robot.registry)
    return {t.task for t in tasks if auto.asks_model(t.task, scenarios[t.scenario].apply(robot.world))}


def _plan_times(robot: EvalRobot) -> Figures:
    """Warm grammar-planner milliseconds per plan on the tuned grammar tier, and for a blank task."""
    tuned = robot.split("tuned")
    if tuned is None:
        return {}
    planner = GrammarPlanner(robot.registry)
    tasks = [(t.task, tuned.scenarios[t.scenario].apply(robot.world)) for t in tuned.tasks if t.tier == "grammar"]

    def timed(task: str, world: WorldState) -> float:
        start = time.perf_counter()
        with contextlib.suppress(PlannerError):
            planner.plan(task, world)
        return (time.perf_counter() - start) * 1000

    for task, world in tasks:  # warm: the first plans build the lexicon's tables and load pint
        timed(task, world)
    plans = sorted(timed(task, world) for task, world in tasks for _ in range(REPEATS))
    blank = [timed("   ", robot.world) for _ in range(50)]
    median = statistics.median(plans)
    return {
        "plans": len(plans),
        "median_ms": round(median, 3),
        "p90_ms": round(plans[int(len(plans) * 0.9)], 3),
        "median_vs_budget": round(median / PLAN_BUDGET_MS, 3),
        "blank_median_ms": round(statistics.median(blank), 4),
        "blank_vs_budget": round(statistics.median(blank) / BLANK_BUDGET_MS, 5),
    }


def _figures(row: TierSummary) -> Figures:
    return {
        "tasks": row.tasks,
        "exact": round(row.success, 3),
        "refused": round(row.refused, 3),
        "refused_plannable": row.refused_plannable,
        "wrong": row.wrong,
        "wrong_kind": row.wrong_kind,
        "substituted": row.substituted,
        "mean_s": round(row.mean_s, 4),
    }


def _total(scores: Sequence[TaskScore]) -> Figures:
    """One row over every tier."""
    n = len(scores)
    return {
        "tasks": n,
        "exact": round(sum(s.success for s in scores) / n, 3) if n else 0.0,
        "refused": round(sum(s.refused for s in scores) / n, 3) if n else 0.0,
        "refused_plannable": sum(s.refused_plannable for s in scores),
        "wrong": sum(s.wrong for s in scores),
        "wrong_kind": sum(s.wrong_kind for s in scores),
        "substituted": sum(len(s.substituted) for s in scores),
        "mean_s": round(sum(s.seconds for s in scores) / n, 4) if n else 0.0,
    }


def _print_row(robot: str, split: str, planner: str, tier: str, f: Figures) -> None:
    print(
        f"{robot:10s} {split:7s} {planner:22s} {tier:22s} {f['tasks']:5d} {f['exact']:6.0%} {f['refused']:8.0%} "
        f"{f['refused_plannable']:9d} {f['wrong']:6d} {f['mean_s']:8.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the eval for each robot, split and planner and print the table (and the JSON figures with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--local-tasks", type=int, default=-1, help="tasks per tier for local (0 all, -1 skip: no model rows)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures last")
    args = parser.parse_args(argv)

    figures: dict[str, dict[str, dict[str, dict[str, Figures]] | str]] = {}
    headline: dict[str, dict[str, float | int | str]] = {}
    header = f"{'robot':10s} {'split':7s} {'planner':22s} {'tier':22s} {'tasks':>5s} {'exact':>6s} {'refused':>8s}"
    print(f"{header} {'ref.plan.':>9s} {'wrong':>6s} {'s/plan':>8s}")
    for name in ROBOTS:
        robot = load_robot(GOLDEN / "robots" / name, tuned=TUNED.get(name))
        figures[name] = {}
        for split in SPLITS:
            data = robot.split(split)
            if data is None:
                figures[name][split] = "absent"
                print(f"{name:10s} {split:7s} (absent)")
                continue
            per_planner: dict[str, dict[str, Figures]] = {}
            for label, planner, per_tier in _planners(robot, args.local_tasks):
                tasks = _sample(data.tasks, per_tier)
                scores = run_eval(planner, tasks, data.scenarios, robot.world, robot.registry)
                rows = [(label, scores)]
                if label == "auto":
                    model_tasks = _model_tasks(robot, tasks, data.scenarios)
                    rows.append((MODEL_ROW, [s for s in scores if s.task in model_tasks]))
                for row_label, row_scores in rows:
                    per_planner[row_label] = {row.tier: _figures(row) for row in summarise(row_scores)}
                    per_planner[row_label]["all"] = _total(row_scores)
                    for tier, f in per_planner[row_label].items():
                        _print_row(name, split, row_label, tier, f)
            figures[name][split] = per_planner
        heldout = figures[name]["heldout"]
        if isinstance(heldout, dict):
            total = heldout[HEADLINE_PLANNER]["all"]
            headline[name] = {"planner": HEADLINE_PLANNER, "exact": total["exact"], "wrong": total["wrong"]}
        else:
            headline[name] = {"heldout": "absent"}
    print()
    times = {name: _plan_times(load_robot(GOLDEN / "robots" / name, tuned=TUNED.get(name))) for name in ROBOTS}
    print(f"{'robot':10s} {'grammar plans':>13s} {'median ms':>10s} {'p90 ms':>8s} {'/5 ms':>6s} {'blank ms':>9s}")
    for name, t in times.items():
        if t:
            print(
                f"{name:10s} {t['plans']:13d} {t['median_ms']:10.2f} {t['p90_ms']:8.2f} "
                f"{t['median_vs_budget']:6.2f} {t['blank_median_ms']:9.4f}"
            )
    print()
    for name, line in headline.items():
        shown = ", ".join(f"{k} {v}" for k, v in line.items())
        print(f"headline {name}: held-out {shown}")
    if args.json:
        print(json.dumps({"robots": figures, "headline": headline, "plan_time": times}, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Skill-call vs rewrite (searched or free): the local model's output modes side by side, on the same tasks, in one run.

``auto`` hands a task its grammar cannot parse to its local model. The model
either writes the plan as skill calls (``local``: structured JSON) or
restates the task in the robot's language for the grammar planner to plan
(``local-rewrite``: ``llm/model/rewrite_planner.py``), which first searches
the task's narrowed language (``llm/model/restatement_search.py``); the third
mode, ``free rewrite``, is that profile with no search (the model restates
every task), so the search is measured on the same tasks. They run here behind
``auto`` on the tasks the grammar cannot parse (and nothing refuses first), for
every eval robot (``tests/golden/robots``), each split, one llama.cpp
server for all of them; every model plan is checked against the task
(faithfulness). Per tier: tasks, exact, refused, wrong (must be 0), mean
seconds per task and generated tokens per task. The held-out split is
reported only as these aggregates, never task by task.

``--alone N`` adds ``local`` and ``local-rewrite`` without the grammar in
front, on the first N tuned tasks per tier of the tabletop (the model on
every task, parseable or not).

    .venv/bin/python benchmarks/rewrite_modes.py [--alone 2] [--max-tasks 12] [--modes "rewrite,free rewrite"]
        [--splits tuned,blind] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bt_executive.llm.eval.eval_robots import SPLITS, EvalRobot, load_robot
from bt_executive.llm.eval.planner_eval import TIERS, EvalTask, Scenario, TaskScore, run_eval
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.model.rewrite_planner import RewritePlanner
from bt_executive.llm.plan import Plan, Planner
from bt_executive.llm.profiles import LLMProfile, load_llm_config
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.world_state import WorldState
from bt_executive.testing.llm_server import local_model_session

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"
ROBOTS = ("tabletop", "home", "inspection")
TUNED = {"tabletop": GOLDEN / "planner_tasks.yaml"}
MODES = {"skill-call": "local", "rewrite": "local-rewrite", "free rewrite": "local-rewrite"}
"""The modes compared: skill calls, the rewrite (the narrowed language searched first), and the rewrite with no
search (the model restates freely, as before the search)."""


class Counted:
    """A model planner that adds up the tokens it generated (its ``last_trace``) for the benchmark."""

    def __init__(self, planner: LLMPlanner | RewritePlanner) -> None:
        self.planner = planner
        self.tokens = 0

    def plan(
        self,
        task: str,
        world_state: WorldState,
        prior_attempts: Sequence[AttemptRecord] = (),
        *,
        context: Sequence[str] = (),
    ) -> Plan:
        """The wrapped planner's plan; its trace's generated tokens counted, plan or not."""
        self.planner.last_trace = None
        try:
            return self.planner.plan(task, world_state, prior_attempts, context=context)
        finally:
            trace = self.planner.last_trace
            self.tokens += sum(r.completion_tokens for r in trace.requests) if trace is not None else 0


def _profile(name: str, api_base: str) -> LLMProfile:
    shipped = load_llm_config().profile(name)
    # One server for both modes; every skill the robot has (the shipped local offers only tabletop/*).
    return shipped.model_copy(update={"api_base": api_base, "local_server": None, "skills": ()})


def _model(mode: str, robot: EvalRobot, api_base: str) -> Counted:
    profile = _profile(MODES[mode], api_base)
    if profile.output_mode == "rewrite":
        return Counted(RewritePlanner(profile, robot.registry, search=mode != "free rewrite"))
    return Counted(LLMPlanner(profile, robot.registry))


def _unparsed(robot: EvalRobot, tasks: Sequence[EvalTask], scenarios: dict[str, Scenario]) -> list[EvalTask]:
    """The tasks ``auto``'s grammar cannot parse and nothing refuses first: what it hands its model."""
    auto = AutoPlanner(robot.registry)
    return [t for t in tasks if auto.asks_model(t.task, scenarios[t.scenario].apply(robot.world))]


def _rows(scores: Sequence[TaskScore], tokens: Sequence[int]) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for tier in [*TIERS, "all"]:
        picked = [(s, t) for s, t in zip(scores, tokens, strict=True) if tier in ("all", s.tier)]
        if not picked:
            continue
        n = len(picked)
        rows[tier] = {
            "tasks": n,
            "exact": sum(s.success for s, _ in picked),
            "refused": sum(s.refused for s, _ in picked),
            "wrong": sum(s.wrong for s, _ in picked),
            "mean_s": round(sum(s.seconds for s, _ in picked) / n, 2),
            "tokens": round(sum(t for _, t in picked) / n, 1),
        }
    return rows


def _score(
    make: Callable[[], tuple[Planner, Counted]],
    tasks: Sequence[EvalTask],
    scenarios: dict[str, Scenario],
    robot: EvalRobot,
) -> dict[str, dict[str, Any]]:
    scores: list[TaskScore] = []
    tokens: list[int] = []
    planner, counted = make()
    for task in tasks:
        before = counted.tokens
        scores += run_eval(planner, [task], scenarios, robot.world, robot.registry)
        tokens.append(counted.tokens - before)
    return _rows(scores, tokens)


def _print(robot: str, split: str, label: str, rows: dict[str, dict[str, Any]]) -> None:
    for tier, f in rows.items():
        print(
            f"{robot:9s} {split:7s} {label:26s} {tier:22s} {f['tasks']:5d} {f['exact']:5d} {f['refused']:7d} "
            f"{f['wrong']:5d} {f['mean_s']:7.2f} {f['tokens']:7.1f}",
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run both modes on the same tasks and print the table (and the JSON figures with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alone", type=int, default=0, help="tabletop tuned tasks per tier for the models alone")
    parser.add_argument("--max-tasks", type=int, default=0, help="at most this many unparsed tasks a split (0: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures last")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of: {', '.join(MODES)}")
    parser.add_argument("--splits", default=",".join(SPLITS), help="comma-separated splits")
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m in MODES]
    figures: dict[str, Any] = {}
    print(f"{'robot':9s} {'split':7s} {'planner':26s} {'tier':22s} tasks exact refused wrong  s/task tok/task")
    with local_model_session() as api_base:
        for name in ROBOTS:
            robot = load_robot(GOLDEN / "robots" / name, tuned=TUNED.get(name))
            for split in SPLITS:
                data = robot.split(split) if split in args.splits.split(",") else None
                if data is None:
                    continue
                tasks = _unparsed(robot, data.tasks, data.scenarios)
                if args.max_tasks > 0:
                    tasks = tasks[: args.max_tasks]
                for mode in modes:

                    def make(mode: str = mode, robot: EvalRobot = robot) -> tuple[Planner, Counted]:
                        model = _model(mode, robot, api_base)
                        return AutoPlanner(robot.registry, lambda: model, fallback_name=MODES[mode]), model

                    label = f"auto+{MODES[mode]} ({mode})"
                    rows = _score(make, tasks, data.scenarios, robot) if tasks else {}
                    figures.setdefault(name, {}).setdefault(split, {})[label] = rows
                    _print(name, split, label, rows)
            if name == "tabletop" and args.alone > 0:
                data = robot.split("tuned")
                assert data is not None
                sample = [t for tier in TIERS for t in [x for x in data.tasks if x.tier == tier][: args.alone]]
                for mode in MODES:

                    def alone(mode: str = mode, robot: EvalRobot = robot) -> tuple[Planner, Counted]:
                        model = _model(mode, robot, api_base)
                        return model, model

                    label = f"{MODES[mode]} alone ({mode})"
                    rows = _score(alone, sample, data.scenarios, robot)
                    figures.setdefault(name, {}).setdefault("tuned", {})[label] = rows
                    _print(name, "tuned", label, rows)
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

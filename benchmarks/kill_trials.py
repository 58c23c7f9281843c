"""Kill trials: the executive SIGKILLed at random points of a task's life, and whether its run records hold.

The sim (``bt-executive sim --realtime``: a skill takes seconds of wall time,
so a task's life is long enough to land kills in) runs throughout; each
trial starts ``bt-executive serve`` on one runs root, sends a tabletop task
through ``ExecuteTask``, and kills the executive (SIGKILL: no handler runs)
after a random delay drawn from 0 to 1.2x a task's measured length, so kills
land in planning, in skills, in the goal check and after the end. The next
trial's executive, on the same runs root, marks the dead one's run ``lost``
at start (``lost_runs``); one more start after the last trial marks the last.

Then every run directory is read as a user would:

- every ``.json`` file parses, and every ``.jsonl`` file parses up to its
  last whole line (a line torn by the kill has no newline after it);
- each run is complete (``outcome.json`` with a final reason) or ``lost``;
  none is left ``running``;
- ``runs list`` (``list_runs``) and the viewer's replay (``/api/run``)
  read every run;
- no run recorded ``done`` whose goal was not checked (``goal_held`` true).

Target (issue 23): every run directory readable, 0 left running, 0 done
unchecked; every task that had begun (sent feedback) before its kill left a
run directory (a kill before the goal reached the executive leaves none).

    .venv/bin/python benchmarks/kill_trials.py --trials 50 [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bt_executive.testing.ros_domain import reserve_domain_id

TARGET_TRIALS = 50
TASKS = (
    "put the red cube on the green plate",
    "put the blue cube in the bowl",
    "stack the red cube on the green cube",
    "open the drawer",
    "close the drawer",
    "go home",
)
"""Tasks with a goal the executive checks, and a drawer and home so the cycle never runs out of work."""
TASK_TIMEOUT_S = 60.0


@dataclass
class RunCheck:
    """One run directory as read back: its problems (none: readable and ended)."""

    run: str
    final_reason: str
    problems: list[str] = field(default_factory=list)


@dataclass
class KillReport:
    """The trials, where each kill landed, and every run directory checked."""

    trials: int
    kill_delays_s: list[float]
    task_length_s: float
    runs: list[RunCheck]
    listed: int
    wall_s: float
    began: int = 0
    """Trials whose task had sent feedback before the kill: each of these must have left a run directory."""

    def figures(self) -> dict[str, Any]:
        """The JSON object."""
        reasons: dict[str, int] = {}
        for run in self.runs:
            reasons[run.final_reason] = reasons.get(run.final_reason, 0) + 1
        return {
            "trials": self.trials,
            "began": self.began,
            "runs": len(self.runs),
            "readable": sum(1 for r in self.runs if not r.problems),
            "listed": self.listed,
            "running": reasons.get("running", 0),
            "lost": reasons.get("lost", 0),
            "done_unchecked": sum(1 for r in self.runs if any(p.startswith("recorded done") for p in r.problems)),
            "final_reasons": reasons,
            "task_length_s": round(self.task_length_s, 2),
            "problems": [f"{r.run}: {p}" for r in self.runs for p in r.problems],
        }


def check_run(path: Path) -> RunCheck:
    """Read one run directory back as ``runs list``, ``runs show`` and the viewer do; name every problem."""
    from bt_executive.executive.run_dir import RunReader
    from bt_executive.executive.viewer.server import ReplaySource, ViewerServer

    problems: list[str] = []
    for file in sorted(path.glob("*.json")):
        try:
            json.loads(file.read_text(encoding="utf-8"))
        except (ValueError, OSError) as err:
            problems.append(f"{file.name}: does not parse ({err})")
    for file in sorted(path.glob("*.jsonl")):
        text = file.read_text(encoding="utf-8")
        whole = text[: text.rfind("\n") + 1]  # a line the kill tore has no newline after it
        for number, line in enumerate(whole.splitlines(), start=1):
            try:
                json.loads(line)
            except ValueError as err:
                problems.append(f"{file.name}:{number}: does not parse ({err})")
    reason = "unreadable"
    try:
        reader = RunReader(path)
        reason = reader.summary().final_reason
        outcome = reader.outcome()
        if outcome is None:
            problems.append("no outcome.json: neither complete nor marked lost")
        elif outcome.final_reason == "done" and outcome.goal_held is not True:
            problems.append(f"recorded done, but its goal was not checked (goal_held {outcome.goal_held})")
        ViewerServer(ReplaySource(path)).run_data()
    except (ValueError, OSError) as err:
        problems.append(f"not readable: {err}")
    return RunCheck(path.name, reason, problems)


def run_kill_trials(trials: int, *, seed: int = 1, echo: TextIO | None = None) -> KillReport:
    """Run ``trials`` killed tasks through one sim and a fresh executive each, then check every run dir."""
    from rclpy.node import Node

    from bt_executive.cli.process_group import ProcessGroup
    from bt_executive.cli.ros_process import RosProcess
    from bt_executive.cli.task_client import TaskClient
    from bt_executive.executive.run_dir import is_run, list_runs

    rng = random.Random(seed)
    namespace = f"/kill_{os.getpid()}"
    env = {"ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    started = time.monotonic()
    delays: list[float] = []
    began = 0
    with tempfile.TemporaryDirectory(prefix="bt_kill_") as tmp, reserve_domain_id() as domain_id:
        env["ROS_DOMAIN_ID"] = str(domain_id)
        os.environ.update(env)
        runs_root = Path(tmp) / "runs"
        serve_args = ["serve", "--namespace", namespace, "--run-dir", str(runs_root), "--planner", "stub"]
        with ProcessGroup(echo=echo, env=env) as sims, RosProcess(threads=2) as process:
            sim = sims.start("sim", ["sim", "--namespace", namespace, "--realtime"], ready=r"^sim ready")
            sims.wait_ready(sim, 120)
            client = TaskClient(process.add(Node("bt_executive_kill_trials", context=process.context)), namespace)
            process.start()

            def executive() -> ProcessGroup:
                group = ProcessGroup(echo=echo, env=env)
                group.wait_ready(group.start("executive", serve_args, ready=r"^executive ready"), 120)
                if not client.wait_for_server(30.0):
                    raise RuntimeError("the executive never answered ExecuteTask")
                return group

            with executive():  # one whole task, not killed: how long a task lives here
                begun = time.monotonic()
                client.run(TASKS[0], timeout_s=TASK_TIMEOUT_S)
                length = time.monotonic() - begun
            for trial in range(trials):
                group = executive()
                task = TASKS[trial % len(TASKS)]
                running = threading.Event()  # feedback came: the task began, so its run directory exists
                sender = threading.Thread(target=_send, args=(client, task, running), daemon=True)
                sender.start()
                delay = rng.uniform(0.0, 1.2 * length)
                time.sleep(delay)
                delays.append(delay)
                for child in group.children:
                    child.process.kill()
                    child.process.wait(10)
                began += running.is_set()
                group.stop(grace_s=1.0)
                sender.join(TASK_TIMEOUT_S)
            with executive():  # marks the last trial's run lost
                pass
        runs = [check_run(path) for path in sorted(runs_root.iterdir()) if is_run(path)]
        listed = len(list_runs(runs_root))
    return KillReport(trials, delays, length, runs, listed, round(time.monotonic() - started, 1), began)


def _send(client: Any, task: str, running: threading.Event) -> None:
    """Send one task; the executive dies under it, so no answer (or an error) is the normal end."""
    try:
        client.run(task, timeout_s=TASK_TIMEOUT_S, on_feedback=lambda _feedback: running.set())
    except Exception:  # the server was killed: any ending of the call is expected
        return


def _print_table(report: KillReport, figures: dict[str, Any]) -> None:
    print(f"kill trials: {report.trials} executives SIGKILLed mid-task in {report.wall_s:.0f} s")
    print(f"  a whole task took {report.task_length_s:.2f} s; kills at 0-{1.2 * report.task_length_s:.2f} s")
    print(f"  {'tasks begun before the kill':28s} {figures['began']:6d}")
    print(f"  {'run directories':28s} {figures['runs']:6d} (a kill before the goal arrived leaves none)")
    print(f"  {'readable':28s} {figures['readable']:6d}")
    print(f"  {'listed by runs list':28s} {figures['listed']:6d}")
    print(f"  {'left running':28s} {figures['running']:6d}")
    print(f"  {'done, goal unchecked':28s} {figures['done_unchecked']:6d}")
    print("  endings: " + ", ".join(f"{k} {v}" for k, v in sorted(figures["final_reasons"].items())))
    for problem in figures["problems"]:
        print(f"  PROBLEM {problem}")
    met = (
        figures["began"] + 1 <= figures["runs"] <= figures["trials"] + 1
        and figures["readable"] == figures["runs"]
        and figures["listed"] == figures["runs"]
        and figures["running"] == 0
        and figures["done_unchecked"] == 0
    )
    print(f"  target (every run readable, 0 running, 0 done unchecked): {'met' if met else 'MISSED'}")


def main() -> None:
    """Run the trials and print the table (and the JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--trials", type=int, default=TARGET_TRIALS, help=f"executives to kill (default {TARGET_TRIALS})"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill delays")
    parser.add_argument("--verbose", action="store_true", help="show the sim's and the executives' output")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object, last line")
    args = parser.parse_args()
    if args.trials < 1:
        parser.error(f"--trials: {args.trials} is not a count (1 or more)")
    report = run_kill_trials(args.trials, seed=args.seed, echo=sys.stderr if args.verbose else None)
    figures = report.figures()
    _print_table(report, figures)
    if args.json:
        print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()

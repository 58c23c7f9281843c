"""Soak: many tasks through one executive, and whether anything grows per task.

The sim (``bt-executive sim``, lockstep, with ``--faults``: missed grasps by
default) and the executive (``bt-executive serve``) run as separate
processes in a ROS domain of their own; this process sends N tasks one after
another through ``ExecuteTask`` (``TaskClient``):

- a cycle of ordinary tabletop tasks (pick, place, stack, drawer, home);
  missed grasps make some of them retry or replan;
- every ``--preempt-every``-th task is preempted mid-skill by the next one
  (sent as a new goal while the first one's skill runs);
- every ``--refuse-every``-th task is refused before anything moves
  (``pick up the table``);
- after every ``--cycle-every``-th task the executive is deactivated and
  activated again through its lifecycle services, as a lifecycle manager
  pausing the robot would (nothing may grow per cycle either).

After each task it samples the executive's RSS, threads and open fds
(``/proc``), and reads the node's own record of the task on
``~/bt_executive/diagnostics`` (``executive/diagnostics.py``): waitables
(action clients and servers), DDS endpoints and the tick timer's periods.
Start figures are medians over the first tenth of the tasks, end figures over
the last tenth; growth per task is their difference over the tasks between
the two tenths' middles, so start-up and warm-up do not count as growth.
``--tracemalloc`` runs the executive with ``PYTHONTRACEMALLOC=1`` and prints
the Python heap and the lines that grew most (ours or rclpy's).

``--load N`` runs N CPU-bound processes beside the soak for its whole length
(``bt_executive.testing.cpu_load``; stopped at the end): the busy robot
computer where timing bugs show. A task with no result within
``--task-timeout`` is hung; the soak names it: its task and the plan step,
skill and tree status of the last feedback the executive sent, the
executive's last log lines (goal requests sent again, results asked for
again), and where each of its threads stands (``serve`` dumps them with
faulthandler on SIGUSR1). The soak then cancels it and goes on.

Targets (issues 14, 21, 23): every task ended, 0 hung, every lifecycle cycle
succeeded, RSS growth <= 20 kB per task, waitables flat, tick p99 in the
last tenth <= 1.2x the first; the same with ``--load 2`` (the tick ratio
aside: the hogs, not growth, set the tick there).

    .venv/bin/python benchmarks/soak.py --tasks 500 [--cycle-every 50] [--load 2] [--faults FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bt_executive.runtime.paths import config_dir
from bt_executive.testing.ros_domain import reserve_domain_id

ORDINARY_TASKS = (
    "put the red cube on the green plate",
    "put the blue cube in the bowl",
    "pick up the green cube",
    "go home",
    "stack the red cube on the green cube",
    "open the drawer",
    "close the drawer",
    "put the blue cube on the plate",
    "put the green cube in the bowl",
    "put the red cube in the bowl",
)
REFUSED_TASK = "pick up the table"
PREEMPTED_TASK = "open the drawer, then close it"
"""Preempted mid-skill: a skill runs whatever the drawer's state (it is opened, or closed), and the
drawer is never carried off or buried, as the cubes of a long run are."""
TASK_TIMEOUT_S = 180.0
JSON_KEYS = (
    "tasks",
    "ended",
    "hung",
    "lifecycle_cycles",
    "lifecycle_failed",
    "rss_start_mb",
    "rss_end_mb",
    "rss_growth_kb_per_task",
    "waitables_start",
    "waitables_end",
    "tick_p99_first_ms",
    "tick_p99_last_ms",
    "tick_p99_all_ms",
    "watch_cameras",
    "load",
    "callback_errors",
    "hung_tasks",
)
TARGET_GROWTH_KB = 20.0
TARGET_TICK_RATIO = 1.2


@dataclass
class TaskSample:
    """One task as the soak saw it: how it ended and what the executive held afterwards."""

    index: int
    task: str
    kind: str  # ordinary | refused | preempted
    final_reason: str
    hung: bool
    rss_kb: int
    threads: int
    fds: int
    record: dict[str, Any] = field(default_factory=dict)
    """The executive's diagnostics record for this task (empty if none arrived)."""
    detail: str = ""
    """The result's detail (why a task was refused or failed)."""
    hang: dict[str, Any] | None = None
    """A hung task's forensics (``HangProbe.report``): last feedback, log tail, thread stacks."""


@dataclass
class SoakReport:
    """Every task's sample, and the figures the issue asks for."""

    samples: list[TaskSample]
    wall_s: float
    cycles: list[bool] = field(default_factory=list)
    """Each deactivate/activate cycle: whether both transitions succeeded."""
    load: int = 0
    """CPU-bound processes that ran beside the soak."""
    callback_errors: list[str] = field(default_factory=list)
    """Each callback of the executive that raised (its exception line), from its log (``ros_process``)."""
    watch_cameras: bool = False
    """Whether the soak subscribed to the sim's cameras (``--watch-cameras``)."""

    def _tenth(self, last: bool) -> list[TaskSample]:
        size = max(1, len(self.samples) // 10)
        return self.samples[-size:] if last else self.samples[:size]

    def _median(self, values: list[float]) -> float:
        return float(statistics.median(values)) if values else 0.0

    def start_end(self, read: Callable[[TaskSample], float | None]) -> tuple[float, float]:
        """Median of ``read`` over the first tenth and over the last tenth."""
        first = [v for v in map(read, self._tenth(False)) if v is not None]
        last = [v for v in map(read, self._tenth(True)) if v is not None]
        return self._median(first), self._median(last)

    def tick_p99(self, last: bool) -> float:
        """p99 of the tick timer's periods over every task of the first (or last) tenth, in ms."""
        periods = sorted(p for s in self._tenth(last) for p in s.record.get("tick_periods_ms", []))
        if not periods:
            return 0.0
        return float(periods[min(len(periods) - 1, int(0.99 * len(periods)))])

    def tick_p99_all(self) -> float:
        """p99 of the tick timer's periods over the whole run, in ms: what one run says of the tick."""
        periods = sorted(p for s in self.samples for p in s.record.get("tick_periods_ms", []))
        return float(periods[min(len(periods) - 1, int(0.99 * len(periods)))]) if periods else 0.0

    def tick_tenths(self) -> list[tuple[int, float, float]]:
        """(periods, median ms, p99 ms) of the tick timer in each tenth of the run: a trend, or outliers."""
        tenth = max(1, len(self.samples) // 10)
        rows = []
        for start in range(0, tenth * 10, tenth):
            periods = sorted(
                p for s in self.samples[start : start + tenth] for p in s.record.get("tick_periods_ms", [])
            )
            if periods:
                p99 = periods[min(len(periods) - 1, int(0.99 * len(periods)))]
                rows.append((len(periods), float(statistics.median(periods)), float(p99)))
        return rows

    def figures(self) -> dict[str, Any]:
        """The JSON object: exactly ``JSON_KEYS``."""
        rss_start, rss_end = self.start_end(lambda s: s.rss_kb)
        span = max(1, len(self.samples) - max(1, len(self.samples) // 10))  # middles of the two tenths apart
        waitables_start, waitables_end = self.start_end(lambda s: s.record.get("waitables"))
        return {
            "tasks": len(self.samples),
            "ended": sum(1 for s in self.samples if not s.hung),
            "hung": sum(1 for s in self.samples if s.hung),
            "lifecycle_cycles": len(self.cycles),
            "lifecycle_failed": sum(1 for ok in self.cycles if not ok),
            "rss_start_mb": round(rss_start / 1024.0, 1),
            "rss_end_mb": round(rss_end / 1024.0, 1),
            "rss_growth_kb_per_task": round((rss_end - rss_start) / span, 2),
            "waitables_start": int(waitables_start),
            "waitables_end": int(waitables_end),
            "tick_p99_first_ms": round(self.tick_p99(False), 2),
            "tick_p99_last_ms": round(self.tick_p99(True), 2),
            "tick_p99_all_ms": round(self.tick_p99_all(), 2),
            "load": self.load,
            "watch_cameras": self.watch_cameras,
            "callback_errors": self.callback_errors,
            "hung_tasks": [s.hang for s in self.samples if s.hang is not None],
        }


def _watch_cameras(node: Any, namespace: str) -> None:
    """Subscribe to the sim's camera topics and drop what comes (serialized: nothing is decoded)."""
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import Image

    from bt_executive.sim.observation import CAMERAS

    for camera in CAMERAS:
        topic = f"{namespace}/camera/{camera}/image_raw"
        node.create_subscription(Image, topic, lambda _message: None, qos_profile_sensor_data, raw=True)


def _proc_counts(pid: int) -> tuple[int, int, int]:
    """RSS (kB), threads and open fds of process ``pid``."""
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/task")), len(os.listdir(f"/proc/{pid}/fd"))


def task_plan(tasks: int, preempt_every: int, refuse_every: int) -> list[tuple[str, str]]:
    """The (task, kind) sequence: ordinary tasks in a cycle, a refusal or a preempted one every so often."""
    plan: list[tuple[str, str]] = []
    ordinary = 0
    for index in range(1, tasks + 1):
        if refuse_every and index % refuse_every == 0:
            plan.append((REFUSED_TASK, "refused"))
        elif preempt_every and index % preempt_every == 0 and index < tasks:
            plan.append((PREEMPTED_TASK, "preempted"))
        else:
            plan.append((ORDINARY_TASKS[ordinary % len(ORDINARY_TASKS)], "ordinary"))
            ordinary += 1
    return plan


class _Records:
    """The executive's diagnostics records, as they arrive."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.items: list[dict[str, Any]] = []

    def add(self, message: Any) -> None:
        record = json.loads(message.data)
        with self._lock:
            self.items.append(record)

    def wait_for(self, count: int, timeout_s: float = 5.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.items) >= count:
                    return list(self.items)
            time.sleep(0.01)
        with self._lock:
            return list(self.items)


def run_soak(
    tasks: int,
    *,
    faults: Path | None = None,
    preempt_every: int = 7,
    refuse_every: int = 11,
    cycle_every: int = 0,
    tracemalloc: bool = False,
    echo: TextIO | None = None,
    progress: Callable[[TaskSample], None] | None = None,
    task_timeout_s: float = TASK_TIMEOUT_S,
    load: int = 0,
    params: Path | None = None,
    watch_cameras: bool = False,
) -> SoakReport:
    """Start sim and executive, run ``tasks`` tasks through them, and sample the executive after each.

    ``cycle_every``: after every that many tasks, deactivate and activate the executive (0: never).
    ``load``: CPU-bound processes beside the whole run. ``params``: the executive's parameters file
    (e.g. one with ``record_frames: false``, to measure what camera frames cost). ``watch_cameras``: this
    process subscribes to the sim's cameras, as a viewer or a perception node on the robot would; the sim
    renders only while someone subscribes, so a run with frames off and this on costs the machine the same
    rendering as one with frames on, and the two differ only by the executive's own frame work.
    """
    from rclpy.node import Node
    from std_msgs.msg import String

    from bt_executive.cli.process_group import ProcessGroup
    from bt_executive.cli.ros_process import RosProcess
    from bt_executive.cli.task_client import TaskClient
    from bt_executive.executive.diagnostics import diagnostics_qos
    from bt_executive.testing.cpu_load import cpu_hogs
    from bt_executive.testing.lifecycle_client import LifecycleClient

    namespace = f"/soak_{os.getpid()}"
    env = {"ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    samples: list[TaskSample] = []
    cycles: list[bool] = []
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="bt_soak_") as tmp,
        reserve_domain_id() as domain_id,
        cpu_hogs(load),
    ):
        env["ROS_DOMAIN_ID"] = str(domain_id)
        os.environ.update(env)
        serve_env = dict(env, PYTHONTRACEMALLOC="1") if tracemalloc else env
        # Two groups because their environments differ; leaving the block stops the executive, then the sim.
        with ProcessGroup(echo=echo, env=env) as sims, ProcessGroup(echo=echo, env=serve_env) as executives:
            sim_args = ["sim", "--namespace", namespace]
            sim_args += ["--faults", str(faults)] if faults is not None else []
            sim = sims.start("sim", sim_args, ready=r"^sim ready")
            executive = executives.start(
                "executive",
                # --no-warm: the default auto planner's local model, warmed in the background, would load
                # (~150 MB) during the first tasks, which is start-up, not growth; every soak task parses.
                ["serve", "--namespace", namespace, "--run-dir", f"{tmp}/runs", "--no-warm"]
                + (["--params", str(params)] if params is not None else []),
                ready=r"^executive ready",
            )
            sims.wait_ready(sim, 120)
            executives.wait_ready(executive, 120)
            pid = executive.process.pid
            probe = HangProbe(executive)
            records = _Records()
            with RosProcess(threads=4) as process:
                node = process.add(Node("bt_executive_soak", context=process.context))
                node.create_subscription(
                    String, f"{namespace}/bt_executive/diagnostics", records.add, diagnostics_qos()
                )
                first, second = TaskClient(node, namespace), TaskClient(node, namespace)
                lifecycle = LifecycleClient(node, f"{namespace}/bt_executive")
                if watch_cameras:
                    _watch_cameras(node, namespace)
                process.start()
                if not first.wait_for_server(30.0) or not second.wait_for_server(30.0):
                    raise RuntimeError("the executive never answered ExecuteTask")
                plan = task_plan(tasks, preempt_every, refuse_every)
                while len(samples) < len(plan):
                    task, kind = plan[len(samples)]
                    if kind == "preempted":
                        following = plan[len(samples) + 1]
                        ended = _preempted_pair(first, second, task, following[0], task_timeout_s, probe)
                        kinds = [kind, following[1]]
                    else:
                        ended = [_one_task(first, task, task_timeout_s, probe)]
                        kinds = [kind]
                    all_records = records.wait_for(len(samples) + len(ended))
                    rss, threads, fds = _proc_counts(pid)
                    for (name, reason, hung, detail, hang), what in zip(ended, kinds, strict=True):
                        position = len(samples)
                        record = all_records[position] if position < len(all_records) else {}
                        sample = TaskSample(position, name, what, reason, hung, rss, threads, fds, record, detail)
                        sample.hang = None if hang is None else {"index": position + 1, **hang}
                        samples.append(sample)
                        if progress is not None:
                            progress(sample)
                    if cycle_every and len(samples) // cycle_every > len(cycles) and len(samples) < len(plan):
                        cycles.append(lifecycle.change("deactivate") and lifecycle.change("activate"))
            errors = callback_errors(executive.lines)
    return SoakReport(samples, round(time.monotonic() - started, 1), cycles, load, errors, watch_cameras)


CALLBACK_RAISED = "spin: a callback raised"


def callback_errors(lines: list[str]) -> list[str]:
    """The exception line ("KeyError: 3") of each traceback the executive logged for a callback that raised."""
    found = []
    for number, line in enumerate(lines):
        if CALLBACK_RAISED not in line:
            continue
        for later in lines[number + 1 : number + 200]:
            text = later.split("] ", 1)[-1] if later.startswith("[") else later  # ProcessGroup's prefix
            if text and not text[0].isspace() and not text.startswith("Traceback"):
                found.append(text.strip())
                break
    return found


Ended = tuple[str, str, bool, str, dict[str, Any] | None]
"""(task, final reason, hung, detail, hang forensics)."""


class HangProbe:
    """What a hung task leaves to look at: its last feedback, the executive's log tail and thread stacks."""

    LOG_LINES = 15
    STACK_WAIT_S = 3.0

    def __init__(self, executive: Any) -> None:
        self._executive = executive

    def report(self, task: str, last_feedback: Any | None) -> dict[str, Any]:
        """Ask the executive for its thread stacks (SIGUSR1: faulthandler) and gather what the soak saw."""
        lines: list[str] = self._executive.lines
        before = len(lines)
        stacks: list[str] = []
        if self._executive.process.poll() is None:
            self._executive.process.send_signal(signal.SIGUSR1)
            deadline = time.monotonic() + self.STACK_WAIT_S
            while time.monotonic() < deadline:  # the dump ends with the main thread's stack and a blank line
                time.sleep(0.1)
                stacks = [line for line in lines[before:] if _is_stack_line(line)]
                if stacks and len(lines) > before + len(stacks):
                    break
        feedback = (
            {}
            if last_feedback is None
            else {
                "plan_index": last_feedback.plan_index,
                "step": last_feedback.step,
                "skill": last_feedback.skill,
                "tree_status": last_feedback.tree_status,
            }
        )
        return {
            "task": task,
            "last_feedback": feedback,
            "log_tail": [line for line in lines[:before] if not _is_stack_line(line)][-self.LOG_LINES :],
            "threads": stacks,
        }


def _is_stack_line(line: str) -> bool:
    """A line of faulthandler's dump (``Thread 0x... (most recent call first):`` and its ``File`` lines)."""
    text = line.strip()
    return text.startswith(("Thread 0x", "Current thread 0x", 'File "')) or text == "<no Python frame>"


def _one_task(client: Any, task: str, timeout_s: float, probe: HangProbe | None = None) -> Ended:
    """Run one task to its end; a hung one is probed, then cancelled."""
    last: list[Any] = []
    try:
        result = client.run(task, timeout_s=timeout_s, on_feedback=last.append)
    except TimeoutError:
        hang = probe.report(task, last[-1] if last else None) if probe is not None else {"task": task}
        client.cancel()
        return task, "hung", True, "", hang
    return task, result.final_reason, False, result.detail, None


def _preempted_pair(
    first: Any, second: Any, task: str, next_task: str, timeout_s: float, probe: HangProbe | None = None
) -> list[Ended]:
    """Start ``task``; once a skill of it runs, send ``next_task`` as a new goal (which preempts it)."""
    skill_running = threading.Event()
    outcome: list[Ended] = []
    last: list[Any] = []

    def on_feedback(feedback: Any) -> None:
        last.append(feedback)
        if feedback.skill and feedback.tree_status == "RUNNING":
            skill_running.set()

    def run_first() -> None:
        try:
            result = first.run(task, on_feedback=on_feedback, timeout_s=timeout_s)
            outcome.append((task, result.final_reason, False, result.detail, None))
        except TimeoutError:
            hang = probe.report(task, last[-1] if last else None) if probe is not None else {"task": task}
            first.cancel()
            outcome.append((task, "hung", True, "", hang))

    worker = threading.Thread(target=run_first, name="soak-preempted", daemon=True)
    worker.start()
    deadline = time.monotonic() + timeout_s
    while not skill_running.wait(0.01) and worker.is_alive() and time.monotonic() < deadline:
        pass  # a task that ends before any skill runs (refused, nothing to do) is not preempted
    time.sleep(0.05)  # inside the skill: a pick takes ~0.2 s in the lockstep sim
    second_result = _one_task(second, next_task, timeout_s, probe)
    worker.join(timeout_s)
    if not outcome:
        outcome.append((task, "hung", True, "", {"task": task, "note": "its client thread never returned"}))
    return [outcome[0], second_result]


def _print_table(report: SoakReport, figures: dict[str, Any]) -> None:
    """The readable summary: figures, targets, how tasks ended."""
    threads = report.start_end(lambda s: s.threads)
    fds = report.start_end(lambda s: s.fds)
    endpoints = report.start_end(lambda s: s.record.get("endpoints"))
    traced = report.start_end(lambda s: s.record.get("traced_kb"))
    reasons: dict[str, int] = {}
    for sample in report.samples:
        key = f"{sample.kind}: {sample.final_reason}"
        reasons[key] = reasons.get(key, 0) + 1
    growth = figures["rss_growth_kb_per_task"]
    ratio = figures["tick_p99_last_ms"] / figures["tick_p99_first_ms"] if figures["tick_p99_first_ms"] else 0.0
    print(
        f"\nsoak: {figures['tasks']} tasks in {report.wall_s:.0f} s, {figures['ended']} ended, {figures['hung']} hung, "
        f"{figures['lifecycle_cycles']} deactivate/activate cycles ({figures['lifecycle_failed']} failed), "
        f"{figures['load']} CPU hogs beside it"
    )
    print(f"  {'':28s} {'first tenth':>12s} {'last tenth':>12s}")
    print(f"  {'executive RSS (MB)':28s} {figures['rss_start_mb']:12.1f} {figures['rss_end_mb']:12.1f}")
    print(f"  {'waitables':28s} {figures['waitables_start']:12d} {figures['waitables_end']:12d}")
    print(f"  {'DDS endpoints (node)':28s} {endpoints[0]:12.0f} {endpoints[1]:12.0f}")
    print(f"  {'threads':28s} {threads[0]:12.0f} {threads[1]:12.0f}")
    print(f"  {'open fds':28s} {fds[0]:12.0f} {fds[1]:12.0f}")
    print(f"  {'tick period p99 (ms)':28s} {figures['tick_p99_first_ms']:12.2f} {figures['tick_p99_last_ms']:12.2f}")
    print(f"  tick period p99 over the whole run: {figures['tick_p99_all_ms']:.2f} ms")
    tenths = report.tick_tenths()
    print(
        "  tick periods by tenth (count / median / p99 ms): " + ", ".join(f"{n}/{m:.0f}/{p:.0f}" for n, m, p in tenths)
    )
    if traced[1]:
        print(f"  {'Python heap, traced (kB)':28s} {traced[0]:12.0f} {traced[1]:12.0f}")
        last = report.samples[-1].record.get("top_growth", [])
        print("  grew most since the first task:\n    " + "\n    ".join(last))
    print(f"  RSS growth per task: {growth:.1f} kB (target <= {TARGET_GROWTH_KB:g})")
    under_load = figures["load"] > 0  # the hogs, not growth, set the tick there: no ratio target
    print(
        f"  tick p99 last/first: {ratio:.2f}x "
        + ("(no target under --load)" if under_load else f"(target <= {TARGET_TICK_RATIO:g}x)")
    )
    print("  endings: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    met = (
        figures["hung"] == 0
        and figures["ended"] == figures["tasks"]
        and figures["lifecycle_failed"] == 0
        and growth <= TARGET_GROWTH_KB
        and figures["waitables_end"] <= figures["waitables_start"]
        and (under_load or ratio <= TARGET_TICK_RATIO)
        and not figures["callback_errors"]
    )
    print(f"  executive callbacks that raised: {len(figures['callback_errors'])} (target 0)")
    for error in figures["callback_errors"]:
        print(f"    {error}")
    print(f"  targets: {'met' if met else 'MISSED'}")
    for hang in figures["hung_tasks"]:
        feedback = hang.get("last_feedback") or {}
        print(
            f"\n  HUNG task {hang.get('index')}: {hang['task']!r}; last feedback: plan {feedback.get('plan_index')}, "
            f"step {feedback.get('step')}, skill {feedback.get('skill')!r}, tree {feedback.get('tree_status')}"
        )
        print("    executive log, last lines:\n      " + "\n      ".join(hang.get("log_tail", [])))
        print("    executive threads:\n      " + "\n      ".join(hang.get("threads", [])))


def main() -> None:
    """Run the soak and print the table (and the JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=100, help="how many tasks to send")
    parser.add_argument(
        "--faults",
        type=Path,
        default=config_dir() / "faults" / "missed_grasp.yaml",
        help="the sim's fault file (default: config/faults/missed_grasp.yaml)",
    )
    parser.add_argument("--preempt-every", type=int, default=7, help="every Nth task is preempted mid-skill (0: none)")
    parser.add_argument("--refuse-every", type=int, default=11, help="every Nth task is refused (0: none)")
    parser.add_argument(
        "--cycle-every", type=int, default=50, help="deactivate and activate the executive every N tasks (0: never)"
    )
    parser.add_argument("--load", type=int, default=0, help="CPU-bound processes beside the soak (default 0)")
    parser.add_argument("--params", type=Path, default=None, help="the executive's parameters file (serve --params)")
    parser.add_argument(
        "--task-timeout",
        type=float,
        default=TASK_TIMEOUT_S,
        help=f"a task is hung after this (default {TASK_TIMEOUT_S:g} s)",
    )
    parser.add_argument(
        "--watch-cameras",
        action="store_true",
        help="subscribe to the sim's cameras from the soak (the sim renders only for subscribers)",
    )
    parser.add_argument("--tracemalloc", action="store_true", help="trace the executive's Python allocations")
    parser.add_argument("--verbose", action="store_true", help="show the sim's and the executive's output")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object, last line")
    args = parser.parse_args()
    if args.load < 0:
        parser.error(f"--load: {args.load} is not a count (0 or more)")
    if args.tasks < 10:
        parser.error("--tasks: at least 10 (the figures compare the first and the last tenth)")

    def progress(sample: TaskSample) -> None:
        waitables = sample.record.get("waitables", "?")
        print(
            f"  {sample.index + 1:4d} {sample.task[:32]:32s} {sample.final_reason:24s} "
            f"rss {sample.rss_kb / 1024:6.1f} MB "
            f"threads {sample.threads:3d} fds {sample.fds:4d} waitables {waitables}"
            + (f"  ({sample.detail[:100]})" if sample.detail and sample.final_reason != "done" else ""),
            flush=True,
        )

    report = run_soak(
        args.tasks,
        faults=args.faults,
        preempt_every=args.preempt_every,
        refuse_every=args.refuse_every,
        cycle_every=args.cycle_every,
        tracemalloc=args.tracemalloc,
        echo=sys.stderr if args.verbose else None,
        progress=progress,
        task_timeout_s=args.task_timeout,
        load=args.load,
        params=args.params,
        watch_cameras=args.watch_cameras,
    )
    figures = report.figures()
    _print_table(report, figures)
    if args.json:
        print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()

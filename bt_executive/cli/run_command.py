"""``bt-executive run "task"``: send a task to a running executive and stream its progress.

Exits 0 when the task succeeds and 1 when it ends otherwise; Ctrl-C cancels
the task (the executive cancels its goals) and waits for its result.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # rclpy's action client is imported only when a task is sent
    from bt_executive.cli.task_client import TaskFeedback, TaskResult


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``run``."""
    run = commands.add_parser("run", help="send a task to a running executive and follow it")
    run.add_argument("task", help='the task, e.g. "put the red cube on the green plate"')
    run.add_argument("--namespace", default="", metavar="NS", help="the executive's ROS namespace")
    run.add_argument("--planner", default="", metavar="PROFILE", help="planner profile (default: the executive's)")
    run.add_argument("--timeout", type=float, default=600.0, metavar="S", help="give up after this many seconds")
    run.add_argument("--server-wait", type=float, default=15.0, metavar="S", help="how long to wait for the executive")
    run.set_defaults(func=run_task)


class ProgressPrinter:
    """Prints a line whenever the executive's feedback changes: plan, step, skill, tree status."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out

    def __call__(self, feedback: TaskFeedback) -> None:
        """One progress line."""
        where = f"plan #{feedback.plan_index} step {feedback.step}" if feedback.skill else "planning"
        self.out.write(f"  {where:<18} {feedback.skill or '-':<24} {feedback.tree_status}\n")
        self.out.flush()


def print_result(result: TaskResult, out: TextIO = sys.stdout) -> None:
    """The final line(s): the reason, and each failed attempt's kind and reason."""
    for attempt in result.attempts:
        if not attempt.result.success:
            res = attempt.result
            kind = res.failure_kind.value if res.failure_kind else "?"
            where = f"plan #{attempt.plan_index} step {attempt.step} {attempt.call.label()}"
            out.write(f"  failed: {where}: {kind} {res.reason}\n")
    if result.goal:
        verdict = {True: "holds", False: "DOES NOT HOLD", None: "not checked"}[result.goal_held]
        out.write(f"  goal: {', '.join(result.goal)}: {verdict}\n")
    verdict = "succeeded" if result.success else "ended"
    out.write(f"task {verdict}: {result.final_reason} (error_code {result.error_code}) in {result.wall_s:.1f} s\n")
    if result.detail and not result.success:
        what = "refused" if result.final_reason == "planner_refused" else "why"
        out.write(f"  {what}: {result.detail}\n")
    out.flush()


def run_task(args: argparse.Namespace) -> int:
    """Send the task and follow it to its end."""
    from rclpy.node import Node

    from bt_executive.cli.ros_process import RosProcess
    from bt_executive.cli.task_client import TaskClient

    with RosProcess(threads=2) as process:
        node = process.add(Node("bt_executive_run", context=process.context))
        client = TaskClient(node, args.namespace)
        process.handle_signals(client.cancel)
        process.start()
        if not client.wait_for_server(args.server_wait):
            sys.stderr.write(
                f"error: no executive answers at {client.action_name} (is `bt-executive serve` running?)\n"
            )
            return 2
        print(f"task: {args.task}", flush=True)
        result = client.run(args.task, args.planner, ProgressPrinter(), timeout_s=args.timeout)
        print_result(result)
    return 0 if result.success else 1

"""``bt-executive demo ["task"]``: the whole mission in one command.

Starts the MuJoCo robot (``bt-executive sim``) and the executive
(``bt-executive serve``) as separate ROS 2 processes in a namespace of their
own, sends the task (default: put the red cube on the green plate) through
ExecuteTask, shows its progress, checks the result against the sim's own
world state, and ends with a summary: final reason, steps, retries, replans,
wall time, the run directory and the command that replays it in the viewer.
``--faults FILE`` injects failures to show recovery; ``--planner local``
plans with the real local model.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_TASK = "put the red cube on the green plate"
DEFAULT_CHECK = "on(red_cube, plate)"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``demo``."""
    demo = commands.add_parser("demo", help="run sim + executive + planner on one task, end to end")
    demo.add_argument("task", nargs="?", default=DEFAULT_TASK, help=f'the task (default: "{DEFAULT_TASK}")')
    demo.add_argument(
        "--faults",
        type=Path,
        default=None,
        metavar="FILE",
        help="fault file for the sim, e.g. config/faults/missed_grasp.yaml",
    )
    demo.add_argument(
        "--planner", default="stub", metavar="PROFILE", help="planner profile: stub (default), local, ..."
    )
    demo.add_argument("--seed", type=int, default=None, help="sim layout seed")
    demo.add_argument(
        "--check",
        default=None,
        metavar="PREDICATE",
        help=f"predicate the sim must satisfy at the end (default task: {DEFAULT_CHECK})",
    )
    demo.add_argument("--namespace", default=None, metavar="NS", help="ROS namespace (default: /demo_<pid>)")
    demo.add_argument("--run-dir", default=None, metavar="DIR", help="where the run directory goes")
    demo.add_argument("--timeout", type=float, default=300.0, metavar="S", help="give up after this many seconds")
    demo.add_argument("--verbose", action="store_true", help="show the sim's and the executive's output")
    demo.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    """Start the processes, run the task, check it, summarise, stop everything."""
    from rclpy.node import Node

    from bt_executive.cli.process_group import ChildFailed, ProcessGroup
    from bt_executive.cli.ros_process import RosProcess
    from bt_executive.cli.run_command import ProgressPrinter
    from bt_executive.cli.task_client import TaskClient
    from bt_executive.executive.run_dir import default_runs_root

    namespace = args.namespace or f"/demo_{os.getpid()}"
    runs_root = Path(args.run_dir) if args.run_dir else default_runs_root()
    check = args.check if args.check is not None else (DEFAULT_CHECK if args.task == DEFAULT_TASK else "")
    started = time.monotonic()
    faults = f", faults {args.faults}" if args.faults else ""
    print(f"bt_executive demo: {args.task!r} (planner {args.planner}{faults})")
    group = ProcessGroup(echo=sys.stderr if args.verbose else None)
    try:
        sim_args = ["sim", "--namespace", namespace]
        sim_args += ["--faults", str(args.faults)] if args.faults else []
        sim_args += ["--seed", str(args.seed)] if args.seed is not None else []
        sim = group.start("sim", sim_args, ready=r"^sim ready")
        executive = group.start(
            "executive",
            ["serve", "--namespace", namespace, "--planner", args.planner, "--run-dir", str(runs_root)],
            ready=r"^executive ready",
        )
        print(f"  {group.wait_ready(sim, 120)}")
        print(f"  {group.wait_ready(executive, 120)}")
        with RosProcess(threads=4) as process:
            node = process.add(Node("bt_executive_demo", context=process.context))
            client = TaskClient(node, namespace)
            process.start()
            if not client.wait_for_server(30.0):
                raise ChildFailed(f"the executive never answered at {client.action_name}")
            result = client.run(args.task, args.planner, ProgressPrinter(), timeout_s=args.timeout)
            world = _sim_world(node, namespace)
    except (ChildFailed, TimeoutError) as err:
        print(f"demo failed: {err}", file=sys.stderr)
        for child in group.children:
            tail = "\n".join(child.lines[-15:])
            print(f"--- last lines of {child.name} ---\n{tail}", file=sys.stderr)
        group.stop()
        return 1
    codes = group.stop()
    return _summarise(result, world, check, runs_root, time.monotonic() - started, codes)


def _sim_world(node: Any, namespace: str) -> Any:
    """The sim's own world state, through its service (not the executive's belief)."""
    from bt_executive.skills.world_state_msg import from_msg
    from bt_executive_interfaces.srv import GetWorldState

    client = node.create_client(GetWorldState, f"{namespace}/get_world_state")
    if not client.wait_for_service(timeout_sec=10.0):
        return None
    future = client.call_async(GetWorldState.Request())
    deadline = time.monotonic() + 10.0
    while not future.done() and time.monotonic() < deadline:
        time.sleep(0.01)
    return from_msg(future.result().state) if future.done() else None


def _summarise(result: Any, world: Any, check: str, runs_root: Path, wall_s: float, codes: dict[str, int]) -> int:
    from bt_executive.cli.run_command import print_result
    from bt_executive.executive.run_dir import RunReader
    from bt_executive.skills.conditions import holds
    from bt_executive.skills.predicates import parse_predicate

    print_result(result)
    run = _latest_run(runs_root)
    outcome = RunReader(run).outcome() if run else None
    checked = None
    if check and world is not None:
        checked = holds(parse_predicate(check), world)
    steps = sum(1 for a in result.attempts if a.result.success)
    print("\nsummary")
    print(f"  final_reason  {result.final_reason}")
    print(f"  steps         {steps} succeeded, {len(result.attempts)} attempts")
    if outcome is not None:
        print(f"  retries       {outcome.retries}")
        print(f"  replans       {outcome.replans}")
    print(f"  wall time     {wall_s:.1f} s (task {result.wall_s:.1f} s)")
    if check:
        verdict = "unknown (no world state)" if checked is None else ("holds" if checked else "DOES NOT HOLD")
        print(f"  sim check     {check}: {verdict}")
    if run is not None:
        print(f"  run dir       {run}")
        print(f"  viewer        bt-executive view --run {run}")
    unclean = {n: c for n, c in codes.items() if c != 0}
    if unclean:
        print(f"  processes     exited uncleanly: {unclean}")
    ok = result.success and checked is not False and not unclean
    return 0 if ok else 1


def _latest_run(root: Path) -> Path | None:
    from bt_executive.executive.run_dir import resolve_run

    try:
        return resolve_run("latest", root)
    except FileNotFoundError:
        return None

"""``bt-executive demo ["task"]``: the whole mission in one command.

Starts the MuJoCo robot (``bt-executive sim``) and the executive
(``bt-executive serve``) as separate ROS 2 processes in a namespace of their
own, sends the task (default: put the red cube on the green plate) through
ExecuteTask, shows its progress, and ends with a summary: final reason (a
refusal with its reason), the task's goal and whether the executive's own
check found it holding in the world state, steps, retries, replans, wall
time, the run directory and the command that replays it in the viewer.
``--check PREDICATE`` adds a check on the sim's own world state.
``--faults FILE`` injects failures to show recovery; ``--planner local``
plans with the real local model.

``--vla`` runs the arm as a VLA-driven robot: a third process serves the
oracle policy over openpi's websocket protocol (``bt-executive
policy-server``), the executive runs with the ``tabletop_vla_arm`` profile
(no scripted pick/place: "put X on Y" routes to ``tabletop/vla_manipulate``)
and reaches the policy at that server, and the skill drives the sim only
through its camera, joint-state and joint-trajectory topics. The summary
adds the control loop's figures (rate, observation age, policy latency),
the sim's own record of the commands it received, and the task's goal read
from the sim's own world state beside the executive's check (the skill never
saw that state: it drove the arm through topics only).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEFAULT_TASK = "put the red cube on the green plate"
DEFAULT_CHECK = "on(red_cube, plate)"
VLA_TASK = "put the blue cube in the bowl"
VLA_CHECK = "in(blue_cube, bowl)"
VLA_SEED = 1
"""A layout where the blue cube and the bowl are both in the oracle's top-down reach."""
VLA_PROFILE = "tabletop_vla_arm.yaml"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``demo``."""
    demo = commands.add_parser("demo", help="run sim + executive + planner on one task, end to end")
    demo.add_argument(
        "task", nargs="?", default=None, help=f'the task (default: "{DEFAULT_TASK}"; with --vla "{VLA_TASK}")'
    )
    demo.add_argument(
        "--vla",
        action="store_true",
        help="drive the arm with a VLA skill: sim topics + oracle policy server (websocket) + executive",
    )
    demo.add_argument(
        "--faults",
        type=Path,
        default=None,
        metavar="FILE",
        help="fault file for the sim, e.g. config/faults/missed_grasp.yaml",
    )
    demo.add_argument(
        "--planner", default="auto", metavar="PROFILE", help="planner profile: auto (default), stub, local, ..."
    )
    demo.add_argument("--seed", type=int, default=None, help="sim layout seed")
    demo.add_argument(
        "--check",
        default=None,
        metavar="PREDICATE",
        help=f"predicate the sim's world state must satisfy at the end (default task, no goal: {DEFAULT_CHECK})",
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
    from bt_executive.runtime.paths import config_dir, default_runs_root

    namespace = args.namespace or f"/demo_{os.getpid()}"
    runs_root = Path(args.run_dir) if args.run_dir else default_runs_root()
    default_task, default_check = (VLA_TASK, VLA_CHECK) if args.vla else (DEFAULT_TASK, DEFAULT_CHECK)
    task = args.task if args.task is not None else default_task
    check = args.check if args.check is not None else (default_check if task == default_task else "")
    seed = args.seed if args.seed is not None else (VLA_SEED if args.vla else None)
    started = time.monotonic()
    faults = f", faults {args.faults}" if args.faults else ""
    vla = ", VLA over ROS topics + websocket policy" if args.vla else ""
    print(f"bt_executive demo: {task!r} (planner {args.planner}{faults}{vla})")
    group = ProcessGroup(echo=sys.stderr if args.verbose else None)
    record = tempfile.NamedTemporaryFile(prefix="bt_vla_commands_", suffix=".jsonl", delete=False)  # noqa: SIM115
    record.close()
    try:
        sim_args = ["sim", "--namespace", namespace]
        sim_args += ["--faults", str(args.faults)] if args.faults else []
        sim_args += ["--seed", str(seed)] if seed is not None else []
        sim_args += ["--record", record.name] if args.vla else []
        sim = group.start("sim", sim_args, ready=r"^sim ready")
        serve_args = ["serve", "--namespace", namespace, "--planner", args.planner, "--run-dir", str(runs_root)]
        serve_args += ["--no-warm"]  # one task: a model warmed for later tasks would only compete with it for the CPU
        if args.vla:
            policy = group.start("policy", ["policy-server", "--policy", "oracle", "--port", "0"], ready=r"ready: ws")
            ready = group.wait_ready(policy, 60)
            print(f"  {ready}")
            endpoint = ready.split("ready: ", 1)[1].split()[0]
            capabilities = config_dir() / "robots" / VLA_PROFILE
            serve_args += ["--capabilities", str(capabilities), "--vla-endpoint", endpoint]
        executive = group.start("executive", serve_args, ready=r"^executive ready")
        print(f"  {group.wait_ready(sim, 120)}")
        print(f"  {group.wait_ready(executive, 120)}")
        with RosProcess(threads=4) as process:
            node = process.add(Node("bt_executive_demo", context=process.context))
            client = TaskClient(node, namespace)
            process.start()
            if not client.wait_for_server(30.0):
                raise ChildFailed(f"the executive never answered at {client.action_name}")
            result = client.run(task, args.planner, ProgressPrinter(), timeout_s=args.timeout)
            world = _sim_world(node, namespace)
    except (ChildFailed, TimeoutError) as err:
        print(f"demo failed: {err}", file=sys.stderr)
        for child in group.children:
            tail = "\n".join(child.lines[-15:])
            print(f"--- last lines of {child.name} ---\n{tail}", file=sys.stderr)
        group.stop()
        return 1
    codes = group.stop()
    for child in group.children:
        if codes.get(child.name, 0) != 0:  # a hung shutdown printed its threads' stacks (ros_process.STUCK_DUMP_S)
            tail = "\n".join(child.lines[-80:])
            print(f"--- last lines of {child.name} (exit {codes[child.name]}) ---\n{tail}", file=sys.stderr)
    # --vla always reads the goal back from the sim too: the executive's check must agree with the robot's.
    given = args.check is not None or args.vla
    code = _summarise(result, world, check, given, runs_root, time.monotonic() - started, codes)
    if args.vla:
        _summarise_vla(result, Path(record.name))
    Path(record.name).unlink(missing_ok=True)
    return code


def _summarise_vla(result: Any, record: Path) -> None:
    """The control loop's figures (from the skill's evidence) and the sim's record of what it received."""
    import json

    vla = [a for a in result.attempts if a.call.skill.endswith("vla_manipulate")]
    print("  control loop")
    for attempt in vla:
        evidence = attempt.result.evidence
        age = evidence.get("observation_age_ms") or {}
        latency = evidence.get("latency_ms") or {}
        print(
            f"    {attempt.call.label()}: {attempt.result.reason}, {evidence.get('steps')} actions, "
            f"{evidence.get('queries')} policy queries over {evidence.get('transport')}, "
            f"rate {evidence.get('control_rate_hz')} Hz, observation age median {age.get('median')} ms "
            f"p99 {age.get('p99')} ms, policy latency median {latency.get('median')} ms"
        )
    lines = [json.loads(line) for line in record.read_text().splitlines() if line.strip()] if record.exists() else []
    accepted = [r for r in lines if r["accepted"]]
    holds = sum(1 for r in lines if r["hold"])
    span = accepted[-1]["sim_time"] - accepted[0]["sim_time"] if len(accepted) > 1 else 0.0
    print(
        f"    sim record: {len(lines)} joint trajectories received, {len(accepted)} executed "
        f"({holds} to where the arm already was), "
        f"{span:.1f} s of sim time driven over ROS"
    )


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


def _summarise(
    result: Any, world: Any, check: str, check_given: bool, runs_root: Path, wall_s: float, codes: dict[str, int]
) -> int:
    from bt_executive.cli.run_command import print_result
    from bt_executive.executive.run_dir import RunReader
    from bt_executive.skills.conditions import holds
    from bt_executive.skills.predicates import parse_predicate

    print_result(result)
    run = _latest_run(runs_root)
    outcome = RunReader(run).outcome() if run else None
    # The executive's own goal check decides; the sim's world state is consulted only for an explicit
    # --check, or for the default task when the planner stated no goal to check.
    sim_check = check if (check and (not result.goal or check_given)) else ""
    checked = None
    if sim_check and world is not None:
        checked = holds(parse_predicate(sim_check), world)
    steps = sum(1 for a in result.attempts if a.result.success)
    print("\nsummary")
    print(f"  final_reason  {result.final_reason} (error_code {result.error_code})")
    print(f"  steps         {steps} succeeded, {len(result.attempts)} attempts")
    if outcome is not None:
        print(f"  retries       {outcome.retries}")
        print(f"  replans       {outcome.replans}")
    print(f"  wall time     {wall_s:.1f} s (task {result.wall_s:.1f} s)")
    if result.goal:
        held = {True: "holds", False: "DOES NOT HOLD", None: "not checked"}[result.goal_held]
        print(f"  goal check    {', '.join(result.goal)}: {held} (the executive's check of the world state)")
    if sim_check:
        verdict = "unknown (no world state)" if checked is None else ("holds" if checked else "DOES NOT HOLD")
        print(f"  sim check     {sim_check}: {verdict}")
    if run is not None:
        print(f"  run dir       {run}")
        print(f"  viewer        bt-executive view --run {run}")
    unclean = {n: c for n, c in codes.items() if c != 0}
    if unclean:
        print(f"  processes     exited uncleanly: {unclean}")
    ok = result.success and result.goal_held is not False and checked is not False and not unclean
    return 0 if ok else 1


def _latest_run(root: Path) -> Path | None:
    from bt_executive.executive.run_dir import resolve_run

    try:
        return resolve_run("latest", root)
    except FileNotFoundError:
        return None

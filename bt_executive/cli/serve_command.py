"""``bt-executive serve``: the executive node alone, for a robot whose skill servers run elsewhere.

Prints one ``executive ready`` line when its ExecuteTask server is up; on
Ctrl-C or SIGTERM it cancels the running task (and with it every goal in
flight), then exits 0. The node is a lifecycle node (``executive/node.py``):
``serve`` configures and activates it before its executor spins;
``--no-autostart`` leaves it unconfigured, for a lifecycle manager to drive
through ``~/change_state`` (the ready line then says so). Each planner profile's planner is built once and kept
for the process's lifetime (``executive/planner_cache.py``), so a local model
starts once; when the default profile plans with a local model (``local``, or
``auto`` falling back to it), that model is started and its prompt prefix
loaded on a thread after the ready line (``--no-warm``: when a task first
needs it). ``kill -USR1 PID`` prints where every thread of the process stands
(faulthandler, to stderr) and the executive goes on: how a task that seems to
hang on a robot is looked at without a debugger (the soak does this).
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import signal
import sys
import time
from pathlib import Path


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve``."""
    serve = commands.add_parser("serve", help="run the executive node: ExecuteTask server, ticked tree, ~/tree")
    add_node_arguments(serve)
    serve.add_argument(
        "--no-autostart",
        action="store_true",
        help="leave the lifecycle node unconfigured: a lifecycle manager configures and activates it",
    )
    serve.add_argument(
        "--no-warm",
        action="store_true",
        help="start the default profile's local model when a task first needs it, not after the ready line",
    )
    serve.set_defaults(func=run_serve)


def add_node_arguments(parser: argparse.ArgumentParser) -> None:
    """The node's flags (shared with ``demo``): a parameters file, and overrides of its values."""
    parser.add_argument(
        "--params", type=Path, default=None, metavar="FILE", help="parameters file (config/executive.yaml)"
    )
    parser.add_argument("--namespace", default="", metavar="NS", help="ROS namespace of the executive and its robot")
    parser.add_argument(
        "--planner", default=None, metavar="PROFILE", help="planner profile: auto (default), stub, local, ..."
    )
    parser.add_argument("--tick-rate", type=float, default=None, metavar="HZ", help="tree tick rate")
    parser.add_argument("--max-replans", type=int, default=None, metavar="N", help="replans per task")
    parser.add_argument("--run-dir", default=None, metavar="DIR", help="where run directories are written")
    parser.add_argument(
        "--capabilities", default=None, metavar="FILE", help="robot capability profile (config/robots/*.yaml)"
    )
    parser.add_argument(
        "--vla-endpoint", default=None, metavar="URL", help="policy server (ws://host:port) for every VLA skill"
    )
    parser.add_argument(
        "--groot2-port",
        type=int,
        default=None,
        metavar="PORT",
        help="publish the tree to Groot2 (or btview) on PORT and PORT+1 (BT.CPP's Groot2Publisher); 0: off",
    )


def run_serve(args: argparse.Namespace) -> int:
    """Serve tasks until interrupted."""
    from bt_executive.cli.ros_process import RosProcess
    from bt_executive.executive.node import ExecutiveNode
    from bt_executive.executive.params import load_params
    from bt_executive.executive.planner_cache import PlannerCache
    from bt_executive.executive.planner_factory import make_planner, uses_local_model
    from bt_executive.skills.capabilities import RobotCapabilities

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # every thread's stack on demand, the process goes on
    params = load_params(args.params).with_overrides(
        planner=args.planner or None,  # empty (a launch file's default): the parameters file's
        tick_rate_hz=args.tick_rate,
        max_replans=args.max_replans,
        run_dir=args.run_dir,
        capabilities=args.capabilities,
        vla_endpoint=args.vla_endpoint,
        groot2_port=args.groot2_port,
    )
    llm_config = Path(params.llm_config) if params.llm_config else None
    robot = RobotCapabilities.from_yaml(params.capabilities_path())
    # A vision profile sees the newest front-camera frame from the node's camera topic (read when it plans:
    # the node and its camera cache exist by then, and a reconfigured node has a new cache).
    planners = PlannerCache(
        lambda profile, registry: make_planner(
            profile, registry, llm_config, robot, lambda: executive.front_camera.frame()
        )
    )
    from bt_executive.runtime.tuning import freeze_startup_objects, use_control_switch_interval

    use_control_switch_interval()  # the tick timer must wake on time beside the executor's other threads
    with RosProcess() as process:
        try:
            executive = ExecutiveNode(
                process.context,
                params,
                planners,
                namespace=args.namespace,
                autostart=not args.no_autostart,
                release_planners=planners.release,
            )
        except RuntimeError as err:
            sys.stderr.write(f"error: {err}\n")
            return 1
        process.add(executive.node)
        process.handle_signals(executive.shutdown)
        process.start()
        frozen = freeze_startup_objects()  # full collections then skip what start-up loaded (runtime.tuning)
        logging.getLogger("bt_executive.serve").info("%d start-up objects frozen out of full collections", frozen)
        base = executive.node.get_fully_qualified_name()
        if executive.configured:
            print(
                f"executive ready: tasks at {base}/execute_task, tree at {base}/tree, planner {params.planner}, "
                f"{len(executive.registry)} skills, runs in {executive.runs_root}",
                flush=True,
            )
        else:
            print(
                f"executive ready (unconfigured): lifecycle at {base}/change_state; "
                "configure and activate it to take tasks",
                flush=True,
            )
        if executive.configured and not args.no_warm and uses_local_model(params.planner, llm_config):
            planners.warm_in_background(params.planner, executive.registry, executive.world.latest)
        closed = False
        try:
            while not process.stop_requested.wait(0.2):
                time.sleep(0)
            time.sleep(0.2)  # let the cancel requests of a halted task reach their servers
        finally:
            closed = planners.close()  # stops the local model servers the planners started, bounded
    if not closed:
        # A local model server still reading a prompt would hold interpreter exit past any supervisor's
        # grace: the node is down and the run dirs written, so leave now, flushed, with a clean status.
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0

"""``bt-executive sim``: the embedded MuJoCo robot as a ROS 2 process.

Starts a ``SimBackend`` for a scene (and optional fault file) and serves its
skills as ``RunSkill`` action servers under ``--namespace``, with world state
on ``world_state`` / ``get_world_state``. It prints one ``ready`` line when
every server is up (scripts and tests wait for it) and exits 0 on Ctrl-C or
SIGTERM after cancelling any running skill.
"""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path
from types import FrameType


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``sim``."""
    sim = commands.add_parser("sim", help="run the MuJoCo tabletop robot as ROS 2 skill action servers")
    sim.add_argument("--scene", type=Path, default=None, help="scene YAML (default: config/scenes/tabletop.yaml)")
    sim.add_argument("--seed", type=int, default=None, help="layout seed (default: the scene's)")
    sim.add_argument("--faults", type=Path, default=None, metavar="FILE", help="fault-injection YAML")
    sim.add_argument("--realtime", action="store_true", help="pace the sim to wall time (default: lockstep)")
    sim.add_argument("--namespace", default="", metavar="NS", help="ROS namespace for the servers and topics")
    sim.set_defaults(func=run_sim)


def run_sim(args: argparse.Namespace) -> int:
    """Serve the sim until interrupted."""
    import rclpy
    from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor

    from bt_executive.sim.backend import SimBackend
    from bt_executive.sim.skill_servers import SimSkillServers
    from bt_executive.skills.action_skill import with_short_lease

    # Our participant's short lease is what lets clients see these servers die within ~2 s.
    os.environ.update(with_short_lease())

    backend = SimBackend.from_files(
        args.scene, seed=args.seed, faults=args.faults, clock="realtime" if args.realtime else "lockstep"
    )
    context = rclpy.Context()
    rclpy.init(context=context, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    node = rclpy.create_node("bt_executive_sim", namespace=args.namespace or None, context=context)
    servers = SimSkillServers(node, backend)
    executor = MultiThreadedExecutor(num_threads=4, context=context)
    executor.add_node(node)

    def stop(signum: int, _frame: FrameType | None) -> None:
        node.get_logger().info(f"signal {signum}: shutting down")
        context.try_shutdown()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    namespace = node.get_namespace().rstrip("/")
    print(
        f"sim ready: scene {backend.scene.name} seed {backend.seed}, {len(servers.skill_names())} skills at "
        f"{namespace}/skills/{{{','.join(servers.skill_names())}}}, world state on {namespace}/world_state",
        flush=True,
    )
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        servers.destroy()
        executor.shutdown(timeout_sec=2.0)
        node.destroy_node()
        context.try_shutdown()
        backend.close()
    return 0

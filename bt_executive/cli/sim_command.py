"""``bt-executive sim``: the embedded MuJoCo robot as a ROS 2 process.

Starts a ``SimBackend`` for a scene (and optional fault file) and serves its
skills as ``RunSkill`` action servers under ``--namespace``, with world state
on ``world_state`` / ``get_world_state``, and is a ROS 2 arm as well
(``sim.robot_topics``): camera images and joint states out, joint
trajectories in. A goal whose client dies is stopped with the arm held
(the dead-man's rule, ``sim.goal_owners``). It prints one ``ready`` line when
every server is up (scripts and tests wait for it) and exits 0 on Ctrl-C or
SIGTERM after cancelling any running skill.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``sim``."""
    sim = commands.add_parser("sim", help="run the MuJoCo tabletop robot as ROS 2 skill action servers")
    sim.add_argument("--scene", type=Path, default=None, help="scene YAML (default: config/scenes/tabletop.yaml)")
    sim.add_argument("--seed", type=int, default=None, help="layout seed (default: the scene's)")
    sim.add_argument("--faults", type=Path, default=None, metavar="FILE", help="fault-injection YAML")
    sim.add_argument("--realtime", action="store_true", help="pace the sim to wall time (default: lockstep)")
    sim.add_argument("--namespace", default="", metavar="NS", help="ROS namespace for the servers and topics")
    sim.add_argument(
        "--record", type=Path, default=None, metavar="FILE", help="append every joint command received as JSON lines"
    )
    sim.add_argument(
        "--goal-record",
        type=Path,
        default=None,
        metavar="FILE",
        help="append every skill goal's ending (kind, reason, where the arm was left) as JSON lines",
    )
    sim.set_defaults(func=run_sim)


def run_sim(args: argparse.Namespace) -> int:
    """Serve the sim until interrupted."""
    from rclpy.node import Node

    from bt_executive.cli.ros_process import RosProcess
    from bt_executive.sim.backend import SimBackend
    from bt_executive.sim.robot_topics import COMMAND_TOPIC, SimRobotTopics
    from bt_executive.sim.skill_servers import SimSkillServers

    backend = SimBackend.from_files(
        args.scene, seed=args.seed, faults=args.faults, clock="realtime" if args.realtime else "lockstep"
    )
    try:
        # RosProcess loads the short-lease profile: it lets clients see these servers die within ~2 s.
        with RosProcess(threads=4) as process:
            node = process.add(Node("bt_executive_sim", namespace=args.namespace or None, context=process.context))
            servers = SimSkillServers(
                node, backend, idle_ticks=False, goal_record=args.goal_record
            )  # the robot topics tick a realtime sim
            topics = SimRobotTopics(node, backend, on_frames=servers.publish_world_state, record_path=args.record)
            process.handle_signals()
            process.start()
            namespace = node.get_namespace().rstrip("/")
            print(
                f"sim ready: scene {backend.scene.name} seed {backend.seed}, {len(servers.skill_names())} skills at "
                f"{namespace}/skills/{{{','.join(servers.skill_names())}}}, world state on {namespace}/world_state, "
                f"cameras on {namespace}/camera/{{front,wrist}}/image_raw, "
                f"joint commands on {namespace}/{COMMAND_TOPIC}",
                flush=True,
            )
            while not process.stop_requested.wait(0.2):
                pass
            process.stop_spinning()
            topics.destroy()
            servers.destroy()
    finally:
        backend.close()
    return 0

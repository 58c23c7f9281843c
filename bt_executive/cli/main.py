"""``bt-executive``: the one command-line entry point.

Each subcommand lives in its own module and registers itself here; this
module only builds the parser and turns known errors into clean exit codes
(no tracebacks for a bad manifest or a missing file).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from bt_executive import __version__
from bt_executive.cli import (
    demo_command,
    export_command,
    launch_command,
    llm_server_command,
    plan_command,
    policy_server_command,
    run_command,
    runs_command,
    serve_command,
    sim_command,
    skills_command,
    view_command,
)
from bt_executive.skills.errors import ManifestError


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (also used by the docs and the tests)."""
    parser = argparse.ArgumentParser(
        prog="bt-executive",
        description="Behaviour-tree robot executive: plan a task, compile it to a tree, run it on ROS 2 skills.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    skills_command.add_parser(commands)
    sim_command.add_parser(commands)
    policy_server_command.add_parser(commands)
    llm_server_command.add_parser(commands)
    plan_command.add_parser(commands)
    serve_command.add_parser(commands)
    run_command.add_parser(commands)
    launch_command.add_parser(commands)
    demo_command.add_parser(commands)
    runs_command.add_parser(commands)
    view_command.add_parser(commands)
    export_command.add_parser(commands)
    return parser


def without_ros_args(argv: Sequence[str]) -> list[str]:
    """The command line without ROS's own arguments, ``--ros-args ...`` up to ``--`` or the end.

    ``ros2 launch`` and ``ros2 run`` append them (``--ros-args -r __node:=bt_executive -r __ns:=/robot1``)
    to every node's command line; the executive takes its name and namespace from its own flags.
    """
    kept: list[str] = []
    inside = False
    for arg in argv:
        if arg == "--ros-args":
            inside = True
        elif inside and arg == "--":
            inside = False
        elif not inside:
            kept.append(arg)
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    # Every ROS process this project starts stays on this machine unless told otherwise.
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    args = build_parser().parse_args(without_ros_args(sys.argv[1:] if argv is None else argv))
    try:
        status: int = args.func(args)
    except ManifestError as error:
        return skills_command.handle_errors(error)
    except FileNotFoundError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    except BrokenPipeError:  # `bt-executive skills list | head`
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())

"""``bt-executive launch config/robot.yaml``: start a robot's processes where ``ros2 launch`` is absent.

The launch file is data: a namespace and a list of processes, each a
``bt-executive`` subcommand (nothing else can be started from it) with the
regex of the line it prints when ready. Processes start in order, each once
the one before is ready; if one exits, the rest are stopped. Ctrl-C stops
them newest first with SIGINT (the executive cancels its running goals),
and the launcher exits 0 when they all did.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

SUBCOMMANDS = frozenset({"sim", "serve", "policy-server", "llm-server", "view"})
"""What a launch file may start: long-running bt-executive subcommands only."""


class LaunchProcess(BaseModel):
    """One process: a name, its bt-executive arguments, and its ready line."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_\-]{0,31}$")
    args: tuple[str, ...] = Field(min_length=1)
    ready: str | None = None

    @field_validator("args")
    @classmethod
    def _known_subcommand(cls, args: tuple[str, ...]) -> tuple[str, ...]:
        if args[0] not in SUBCOMMANDS:
            raise ValueError(
                f"{args[0]!r} is not a long-running subcommand; use one of {', '.join(sorted(SUBCOMMANDS))}"
            )
        return args

    @field_validator("ready")
    @classmethod
    def _regex(cls, ready: str | None) -> str | None:
        if ready is not None:
            try:
                re.compile(ready)
            except re.error as err:
                raise ValueError(f"not a regular expression: {err}") from None
        return ready


class LaunchFile(BaseModel):
    """A robot-side launch: the namespace every process gets, and the processes in start order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    namespace: str = Field(default="", pattern=r"^(/?[A-Za-z_][A-Za-z0-9_]*)*$")
    processes: tuple[LaunchProcess, ...] = Field(min_length=1)

    def argv(self, process: LaunchProcess) -> list[str]:
        """The process's arguments, with ``--namespace`` added for the ROS subcommands."""
        args = list(process.args)
        if self.namespace and args[0] in ("sim", "serve") and "--namespace" not in args:
            args += ["--namespace", self.namespace]
        return args


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``launch``."""
    launch = commands.add_parser("launch", help="start a robot's processes from a launch YAML (config/robot.yaml)")
    launch.add_argument("file", type=Path, help="launch YAML")
    launch.add_argument("--ready-timeout", type=float, default=120.0, metavar="S", help="per-process start limit")
    launch.set_defaults(func=run_launch)


def run_launch(args: argparse.Namespace) -> int:
    """Start every process, wait for Ctrl-C (or a process to die), stop them all."""
    import signal

    from bt_executive.cli.process_group import ChildFailed, ProcessGroup
    from bt_executive.skills.loader import load_model

    spec = load_model(args.file, LaunchFile)
    stop = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    group = ProcessGroup(echo=sys.stdout)
    status = 0
    try:
        for process in spec.processes:
            child = group.start(process.name, spec.argv(process), process.ready)
            group.wait_ready(child, args.ready_timeout)
        print(f"launch ready: {', '.join(p.name for p in spec.processes)} (Ctrl-C stops them)", flush=True)
        while not stop:
            dead = group.failed()
            if dead is not None:
                print(f"launch: {dead.name} exited with {dead.process.returncode}; stopping the rest", flush=True)
                status = 1
                break
            time.sleep(0.1)
    except ChildFailed as err:
        print(f"launch: {err}", file=sys.stderr, flush=True)
        status = 1
    codes = group.stop()
    bad = {name: code for name, code in codes.items() if code not in (0, None)}
    if bad and status == 0:
        print(f"launch: processes exited uncleanly: {bad}", file=sys.stderr, flush=True)
        status = 1
    return status

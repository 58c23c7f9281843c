"""ProcessGroup: the few processes of a robot-side launch, started, watched and stopped together.

``ros2 launch`` is not installable here (not on PyPI), so ``bt-executive
launch`` and ``bt-executive demo`` start their processes with this: each
child is a ``bt-executive`` subcommand, its output lines are prefixed with
its name, ``wait_ready`` blocks until a child prints its ready line, and
``stop`` stops them one at a time, newest first: SIGINT (children cancel
running goals and exit 0), then SIGTERM, then SIGKILL, each after a grace
period.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self, TextIO


class ChildFailed(RuntimeError):
    """A child exited before it was ready, or did not get ready in time."""


@dataclass
class Child:
    """One process of the group and what it printed."""

    name: str
    argv: list[str]
    process: subprocess.Popen[str]
    ready_pattern: re.Pattern[str] | None
    ready: threading.Event = field(default_factory=threading.Event)
    lines: list[str] = field(default_factory=list)
    ready_line: str = ""


class ProcessGroup:
    """Starts ``bt-executive`` subcommands as children; stops them all, in reverse order."""

    def __init__(self, *, echo: TextIO | None = sys.stderr, env: dict[str, str] | None = None) -> None:
        self.children: list[Child] = []
        self._echo = echo
        self._env = {**os.environ, **(env or {})}
        self._echo_lock = threading.Lock()

    def start(self, name: str, args: Sequence[str], ready: str | None = None) -> Child:
        """Start ``bt-executive ARGS`` as child ``name``; ``ready`` is a regex of its ready line."""
        argv = [sys.executable, "-m", "bt_executive.cli.main", *args]
        process = subprocess.Popen(  # noqa: S603 - our own CLI, by module path, with list arguments
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=self._env,
            start_new_session=True,  # a terminal's Ctrl-C reaches the group leader only; we forward it
        )
        child = Child(name, argv, process, re.compile(ready) if ready else None)
        if child.ready_pattern is None:
            child.ready.set()
        threading.Thread(target=self._pump, args=(child,), name=f"pump-{name}", daemon=True).start()
        self.children.append(child)
        return child

    def _pump(self, child: Child) -> None:
        assert child.process.stdout is not None
        for raw in child.process.stdout:
            line = raw.rstrip("\n")
            child.lines.append(line)
            if child.ready_pattern is not None and not child.ready.is_set() and child.ready_pattern.search(line):
                child.ready_line = line
                child.ready.set()
            if self._echo is not None:
                with self._echo_lock:
                    self._echo.write(f"[{child.name}] {line}\n")
                    self._echo.flush()

    def wait_ready(self, child: Child, timeout_s: float = 60.0) -> str:
        """Block until ``child`` printed its ready line; ChildFailed if it died or took too long."""
        deadline = time.monotonic() + timeout_s
        while not child.ready.wait(0.05):
            if child.process.poll() is not None:
                tail = "\n".join(child.lines[-20:])
                raise ChildFailed(f"{child.name} exited with {child.process.returncode} before it was ready:\n{tail}")
            if time.monotonic() > deadline:
                raise ChildFailed(f"{child.name} was not ready within {timeout_s:g} s")
        return child.ready_line

    def failed(self) -> Child | None:
        """The first child that has exited, if any (a launch stops when one of its processes dies)."""
        return next((c for c in self.children if c.process.poll() is not None), None)

    def stop(self, grace_s: float = 5.0) -> dict[str, int]:
        """Stop each child in turn, newest first: SIGINT, then SIGTERM, then SIGKILL, each after ``grace_s``;
        their exit codes by name.

        In turn, not all at once: the executive (started after the robot it drives) cancels its goals and
        destroys its action clients while the servers they talk to are still up. Stopped together, the
        executive was seen (under test load, twice in a day) stuck in rclpy's ``ActionClient.destroy`` while
        the sim went away, until SIGKILL."""
        for child in reversed(self.children):
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
                if child.process.poll() is not None:
                    break
                child.process.send_signal(sig)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.process.wait(timeout=grace_s)
        return {c.name: c.process.returncode for c in self.children}

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

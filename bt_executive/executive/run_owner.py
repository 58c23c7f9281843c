"""Who writes a run directory, and whether that process is gone: what lets a restart mark lost runs.

A run directory with no ``outcome.json`` is either still running or lost (its
executive was killed, or the machine went down). The difference is whether
its owner process lives. A pid alone is not enough (pids are reused), so the
owner is recorded as host name, boot id, pid and the process's start time in
clock ticks since boot (``/proc/<pid>/stat`` field 22): the same triple on a
live process is the same process. A run from another host is never judged.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Self

from pydantic import BaseModel, ConfigDict, Field

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


class RunOwner(BaseModel):
    """The process that writes a run directory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hostname: str
    pid: int = Field(gt=0)
    start_ticks: int | None = Field(default=None, description="process start, clock ticks since boot (Linux)")
    boot_id: str | None = Field(default=None, description="the kernel's boot id (Linux)")

    @classmethod
    def current(cls) -> Self:
        """This process."""
        pid = os.getpid()
        return cls(hostname=socket.gethostname(), pid=pid, start_ticks=process_start_ticks(pid), boot_id=boot_id())

    def describe(self) -> str:
        """``pid 4711 on robot1``, for details and logs."""
        return f"pid {self.pid} on {self.hostname}"

    def is_gone(self) -> bool:
        """Whether this owner has certainly ended (False when unsure, e.g. another host)."""
        if self.hostname != socket.gethostname():
            return False
        if self.boot_id is not None and boot_id() not in (None, self.boot_id):
            return True  # the machine rebooted since
        start = process_start_ticks(self.pid)
        if start is None:
            return not _pid_exists(self.pid)
        return self.start_ticks is not None and start != self.start_ticks  # the pid now names another process


def process_start_ticks(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot; None if it does not exist (or no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return None
    # Field 2 (the command name) may hold spaces and parentheses: count fields after the last ')'.
    fields = stat.rsplit(")", 1)[-1].split()
    return int(fields[19]) if len(fields) > 19 else None


def boot_id() -> str | None:
    """This boot's id, or None where the kernel does not say."""
    try:
        return _BOOT_ID.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

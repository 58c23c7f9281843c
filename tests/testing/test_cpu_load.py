"""The CPU hogs of ``make test-under-load`` and ``soak --load``: they run, they load a core, they stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bt_executive.testing.cpu_load import cpu_hogs, main


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_hogs_burn_cpu_while_the_block_runs_and_are_gone_after_it() -> None:
    with cpu_hogs(2) as hogs:
        pids = [hog.pid for hog in hogs]
        deadline = time.monotonic() + 30.0
        while time.monotonic() < deadline and min(_cpu_seconds(pid) for pid in pids) < 0.2:
            time.sleep(0.05)
        assert min(_cpu_seconds(pid) for pid in pids) >= 0.2
    assert [hog.poll() for hog in hogs] == [-signal.SIGKILL, -signal.SIGKILL]


def test_a_hog_ends_by_itself_when_its_parent_is_killed() -> None:
    script = (
        "from bt_executive.testing.cpu_load import cpu_hogs\n"
        "import time\n"
        "with cpu_hogs(1) as hogs:\n"
        "    print(hogs[0].pid, flush=True)\n"
        "    time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    hog_pid = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline and os.path.exists(f"/proc/{hog_pid}") and not _zombie(hog_pid):
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{hog_pid}") or _zombie(hog_pid)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_the_command_runs_beside_the_hogs_and_its_status_is_returned() -> None:
    assert main(["--hogs", "1", "--", sys.executable, "-c", "raise SystemExit(3)"]) == 3


def test_a_missing_command_and_a_negative_count_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--hogs", "1"])
    assert "command: give the command" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--hogs", "-1", "--", "true"])
    assert "--hogs: -1 is not a count" in capsys.readouterr().err

"""Lost runs: a run whose writer process died without an outcome is marked ``lost``; a live writer's is not.

The writers are real child processes that create a run directory and then
wait; the test kills one with SIGKILL, as an executive dies under the OOM
killer or a ``kill -9``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bt_executive.cli.main import main
from bt_executive.executive.lost_runs import mark_lost_runs
from bt_executive.executive.run_dir import RunReader, RunWriter
from bt_executive.executive.run_owner import RunOwner, process_start_ticks
from bt_executive.trees.task_tree import TaskOutcome

WRITER = """
import sys, time
from pathlib import Path
from bt_executive.executive.run_dir import RunWriter
from bt_executive.trees.task_context import TaskEvent
writer = RunWriter.create(Path(sys.argv[1]), sys.argv[2], "stub")
writer.event(TaskEvent(kind="planning", t=0.25))
print(writer.path, flush=True)
time.sleep(120)
"""


@pytest.fixture
def writers() -> Iterator[list[subprocess.Popen[str]]]:
    """Child processes that each start a run and wait; killed after the test."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        process.kill()
        process.wait(timeout=10)


def start_run(writers: list[subprocess.Popen[str]], root: Path, task: str) -> tuple[subprocess.Popen[str], Path]:
    """A child process writing one run under ``root``: the process and the run's path."""
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root), task], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    writers.append(process)
    assert process.stdout is not None
    return process, Path(process.stdout.readline().strip())


def test_a_killed_writers_run_is_marked_lost_and_a_live_writers_run_is_not(
    tmp_path: Path, writers: list[subprocess.Popen[str]]
) -> None:
    killed, dead_run = start_run(writers, tmp_path, "put the red cube on the plate")
    _alive, live_run = start_run(writers, tmp_path, "open the drawer")
    killed.kill()
    killed.wait(timeout=10)
    marked = mark_lost_runs(tmp_path)
    outcome = RunReader(dead_run).outcome()
    assert (marked, RunReader(live_run).outcome(), outcome is not None and outcome.final_reason) == (
        [dead_run],
        None,
        "lost",
    )


def test_a_lost_outcome_names_the_dead_owner_and_keeps_the_runs_time(
    tmp_path: Path, writers: list[subprocess.Popen[str]]
) -> None:
    killed, run = start_run(writers, tmp_path, "put the red cube on the plate")
    killed.kill()
    killed.wait(timeout=10)
    mark_lost_runs(tmp_path)
    outcome = RunReader(run).outcome()
    assert outcome is not None
    assert (
        f"pid {killed.pid} " in outcome.detail,
        "without writing an outcome" in outcome.detail,
        outcome.duration_s,
    ) == (
        True,
        True,
        0.25,
    )


def test_runs_list_shows_a_lost_run_as_lost(
    tmp_path: Path, writers: list[subprocess.Popen[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    killed, _run = start_run(writers, tmp_path, "put the red cube on the plate")
    killed.kill()
    killed.wait(timeout=10)
    mark_lost_runs(tmp_path)
    assert main(["runs", "list", "--root", str(tmp_path), "--json"]) == 0
    assert [row["final_reason"] for row in json.loads(capsys.readouterr().out)] == ["lost"]


def test_a_finished_run_is_never_marked(tmp_path: Path) -> None:
    with RunWriter.create(tmp_path, "home", "stub") as writer:
        writer.outcome(TaskOutcome(task="home", success=True, final_reason="done"))
    outcome = RunReader(writer.path).outcome()
    assert (mark_lost_runs(tmp_path), outcome is not None and outcome.final_reason) == ([], "done")


def test_an_owner_whose_pid_now_names_another_process_is_gone() -> None:
    me = RunOwner.current()
    reused = me.model_copy(update={"start_ticks": (me.start_ticks or 0) + 1})
    assert (me.is_gone(), reused.is_gone(), process_start_ticks(os.getpid()) == me.start_ticks) == (False, True, True)


def test_an_owner_on_another_host_is_never_judged_gone() -> None:
    elsewhere = RunOwner(hostname="not-" + RunOwner.current().hostname, pid=2**22 + 1)
    assert elsewhere.is_gone() is False

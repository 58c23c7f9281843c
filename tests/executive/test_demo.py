"""``bt-executive demo`` and ``bt-executive launch``, as a user runs them: separate processes, real sim.

The demo's summary reports the executive's own goal check (the task ends done
only when its goal holds in the world state); ``--check`` adds one on the sim's
world state.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bt_executive.runtime.paths import config_dir
from bt_executive.trees.task_tree import TaskOutcome

pytestmark = pytest.mark.ros

FAULTS = config_dir() / "faults"


def demo(tmp_path: Path, *args: str, timeout_s: float = 240) -> tuple[int, str, TaskOutcome | None]:
    """Run the demo; its exit code, its output, and the outcome.json of its run."""
    runs = tmp_path / "runs"
    done = subprocess.run(
        [sys.executable, "-m", "bt_executive.cli.main", "demo", "--run-dir", str(runs), *args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    outcomes = sorted(runs.glob("*/outcome.json")) if runs.is_dir() else []
    outcome = TaskOutcome.model_validate_json(outcomes[-1].read_text()) if outcomes else None
    return done.returncode, done.stdout + done.stderr, outcome


def test_the_default_demo_puts_the_red_cube_on_the_plate(tmp_path: Path) -> None:
    code, output, outcome = demo(tmp_path)
    assert outcome is not None, output
    # The executive's goal check when the planner states the goal, else the sim's world state.
    assert (code, outcome.final_reason, "on(red_cube, plate): holds" in output) == (0, "done", True), output


def test_with_a_missed_grasp_the_demo_succeeds_after_a_retry(tmp_path: Path) -> None:
    code, output, outcome = demo(tmp_path, "--faults", str(FAULTS / "first_grasp_misses.yaml"))
    assert outcome is not None, output
    assert (code, outcome.final_reason, outcome.retries >= 1) == (0, "done", True), output


def test_with_the_object_removed_the_demo_replans_and_ends_with_the_planners_verdict(tmp_path: Path) -> None:
    code, output, outcome = demo(tmp_path, "--faults", str(FAULTS / "object_removed.yaml"))
    assert outcome is not None, output
    kinds = [a.result.failure_kind for a in outcome.attempts if not a.result.success]
    assert (code, outcome.final_reason, outcome.replans >= 1, bool(kinds)) == (1, "planner_error", True, True), output


def test_launch_starts_the_robot_takes_a_task_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    namespace = f"/launch_{os.getpid()}"
    launch_file = tmp_path / "robot.yaml"
    launch_file.write_text(
        f"namespace: {namespace}\n"
        "processes:\n"
        "  - {name: sim, args: [sim], ready: '^sim ready'}\n"
        f"  - {{name: executive, args: [serve, --run-dir, {tmp_path / 'runs'}], ready: '^executive ready'}}\n"
    )
    cli = [sys.executable, "-m", "bt_executive.cli.main"]
    launch = subprocess.Popen(
        [*cli, "launch", str(launch_file)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert launch.stdout is not None
        deadline = time.monotonic() + 120
        for line in launch.stdout:
            if line.startswith("launch ready"):
                break
            assert time.monotonic() < deadline, "launch never got ready"
        # Keep reading what launch echoes: an unread pipe fills, and then launch, its children's echo and
        # their logging block on it, and the stop below times out on a process that only waits to write.
        output: list[str] = []
        drain = threading.Thread(target=lambda: output.extend(launch.stdout or ()), daemon=True)
        drain.start()
        run = subprocess.run(
            [*cli, "run", "pick up the blue cube", "--namespace", namespace],
            capture_output=True,
            text=True,
            timeout=120,
        )
        launch.send_signal(signal.SIGINT)
        launch.wait(timeout=30)
        drain.join(timeout=10)
    finally:
        if launch.poll() is None:
            launch.kill()
    assert (run.returncode, launch.returncode) == (0, 0), run.stdout + run.stderr + "".join(output[-40:])


def test_picking_up_the_table_is_refused_before_anything_moves(tmp_path: Path) -> None:
    code, output, outcome = demo(tmp_path, "pick up the table")
    assert outcome is not None, output
    assert (code, outcome.final_reason, outcome.attempts, "not_afforded" in output) == (
        1,
        "planner_refused",
        (),
        True,
    ), output


def test_a_demo_run_keeps_frames_at_the_start_each_step_the_missed_grasp_and_the_end(tmp_path: Path) -> None:
    from bt_executive.executive.run_dir import RunReader, list_runs
    from bt_executive.executive.run_frames import MAX_RUN_FRAME_BYTES

    code, output, _ = demo(tmp_path, "--faults", str(FAULTS / "first_grasp_misses.yaml"))
    [run] = list_runs(tmp_path / "runs")
    reader = RunReader(run.path)
    frames = reader.frames()
    seen = {(f.record.camera, moment, f.step) for f in frames.frames for moment in f.record.moments}
    ends = [e for e in reader.events() if e.kind == "step_end"]
    missed = next(e for e in ends if e.data["result"]["failure_kind"] == "missed_grasp")  # type: ignore[index, call-overload]
    # The worker groups a step's moments that wait for the same image, so which frame event tells the missed
    # grasp depends on timing: any frame of that step showing its end (no later than it) and its retry will do.
    step_frames = [f for f in frames.frames if (f.plan, f.step) == (missed.plan, missed.step)]
    on_disk = sum(p.stat().st_size for p in (run.path / "frames").iterdir())
    assert code == 0, output
    for camera in ("front", "wrist"):
        assert {(camera, "task", None), (camera, "goal_check", None), (camera, "final", None)} <= seen
        assert {(camera, kind, e.step) for e in ends for kind in ("step_start", "step_end")} <= seen
    assert any("step_end" in f.record.moments and f.t <= missed.t for f in step_frames), step_frames
    assert any("retry" in f.record.moments for f in step_frames), step_frames
    assert (on_disk, frames.dropped) == (frames.total_bytes, 0)
    assert 0 < on_disk <= MAX_RUN_FRAME_BYTES

"""Crash safety across processes: ``bt-executive serve`` and ``sim`` as children, killed or stopped mid-task.

- the executive SIGKILLed mid-task: the next executive on the same runs root marks that run ``lost``;
- the executive sent SIGTERM mid-task: it ends the task ``preempted`` and writes ``outcome.json`` first;
- the sim SIGKILLed mid-task: the task ends through the recovery policy with ``server_unavailable``, and
  once a sim is back the same executive serves the next task to ``done``.

The sim runs ``--realtime`` so a skill takes seconds of wall time and "mid-task" is a state one can wait for.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bt_executive.cli.process_group import Child, ProcessGroup
from bt_executive.cli.task_client import TaskClient, TaskResult
from bt_executive.executive.run_dir import RunReader, list_runs
from bt_executive.testing import RosHarness

pytestmark = [pytest.mark.ros, pytest.mark.sim, pytest.mark.slow]

TASK = "put the red cube on the plate"


class Robot:
    """A sim and executives as child processes on this test's domain and namespace, and a task client."""

    def __init__(self, harness: RosHarness, domain: int, runs: Path) -> None:
        from bt_executive_interfaces.action import RunSkill

        self.harness = harness
        self.ns = harness.namespace
        self.runs = runs
        self.group = ProcessGroup(echo=None, env={**os.environ, "ROS_DOMAIN_ID": str(domain)})
        node = harness.node("crash_client")
        self.pick_progress: list[float] = []
        node.create_subscription(
            RunSkill.Impl.FeedbackMessage,
            f"{self.ns}/skills/pick/_action/feedback",
            lambda m: self.pick_progress.append(m.feedback.progress),
            10,
        )
        self.tasks = TaskClient(node, self.ns)
        self.results: list[TaskResult | BaseException] = []

    def sim(self) -> Child:
        child = self.group.start("sim", ["sim", "--namespace", self.ns, "--realtime"], ready=r"^sim ready")
        self.group.wait_ready(child, 60)
        return child

    def serve(self) -> Child:
        argv = ["serve", "--namespace", self.ns, "--planner", "stub", "--run-dir", str(self.runs)]
        child = self.group.start("serve", argv, ready=r"^executive ready")
        self.group.wait_ready(child, 60)
        if not self.harness.spinning:
            self.harness.start()
        assert self.tasks.wait_for_server(15.0)
        return child

    def send(self, task: str = TASK, timeout_s: float = 40.0) -> threading.Thread:
        """Run a task on a thread; its result (or error) lands in ``results``."""

        def run() -> None:
            try:
                self.results.append(self.tasks.run(task, timeout_s=timeout_s))
            except Exception as err:
                self.results.append(err)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def wait_mid_pick(self) -> None:
        self.pick_progress.clear()
        self.harness.wait_until(lambda: any(p >= 0.2 for p in self.pick_progress), 20.0, "the pick to be under way")


@pytest.fixture
def robot(ros_harness: RosHarness, ros_domain_id: int, tmp_path: Path) -> Any:
    rig = Robot(ros_harness, ros_domain_id, tmp_path / "runs")
    with rig.group:
        yield rig


def test_a_run_whose_executive_was_killed_mid_task_is_marked_lost_by_the_next_executive(robot: Robot) -> None:
    robot.sim()
    first = robot.serve()
    robot.send(timeout_s=10.0)
    robot.wait_mid_pick()
    first.process.kill()
    first.process.wait(timeout=10)
    before = [run.final_reason for run in list_runs(robot.runs)]
    robot.serve()
    after = list_runs(robot.runs)
    outcome = RunReader(after[0].path).outcome()
    assert (before, [run.final_reason for run in after]) == (["running"], ["lost"])
    assert outcome is not None
    assert f"pid {first.process.pid} " in outcome.detail


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_mid_task_ends_the_task_preempted_and_writes_its_outcome_before_exiting(
    robot: Robot, signum: signal.Signals
) -> None:
    robot.sim()
    serve = robot.serve()
    robot.send(timeout_s=20.0)
    robot.wait_mid_pick()
    serve.process.send_signal(signum)
    code = serve.process.wait(timeout=15)
    runs = list_runs(robot.runs)
    outcome = RunReader(runs[0].path).outcome() if runs else None
    assert (code, len(runs), outcome is not None and outcome.final_reason) == (0, 1, "preempted")


def test_a_sim_killed_mid_task_ends_it_server_unavailable_and_the_next_task_is_served_once_it_is_back(
    robot: Robot,
) -> None:
    sim = robot.sim()
    robot.serve()
    first = robot.send(timeout_s=40.0)
    robot.wait_mid_pick()
    sim.process.kill()
    sim.process.wait(timeout=10)
    first.join(timeout=40.0)
    restarted = time.monotonic()
    robot.sim()
    second = robot.send(timeout_s=60.0)
    second.join(timeout=60.0)
    served_after = time.monotonic() - restarted
    task_s = next((r.wall_s for r in robot.results[1:] if isinstance(r, TaskResult)), float("nan"))
    print(f"crash-safety: sim ready to next task done {served_after:.1f} s, the task itself {task_s:.1f} s")
    reasons = [r.final_reason if isinstance(r, TaskResult) else repr(r) for r in robot.results]
    with contextlib.suppress(IndexError):
        failed = robot.results[0]
        if isinstance(failed, TaskResult):
            kinds = {a.result.failure_kind for a in failed.attempts if a.result.failure_kind is not None}
            assert "server_unavailable" in kinds, failed.attempts
    assert reasons == ["aborted:server_unavailable", "done"]


def test_a_task_that_outlasts_its_bound_is_named_with_its_step_the_executive_log_and_its_thread_stacks(
    robot: Robot,
) -> None:
    # The soak's hang forensics (benchmarks/soak.py HangProbe) on a real executive: a realtime pick takes
    # seconds, so a 2 s bound makes the task "hung" while its pick runs.
    from benchmarks.soak import HangProbe, _one_task

    robot.sim()
    serve = robot.serve()
    task, reason, hung, _, hang = _one_task(robot.tasks, TASK, 2.0, HangProbe(serve))
    assert (task, reason, hung) == (TASK, "hung", True)
    assert hang is not None
    assert hang["last_feedback"]["skill"] == "tabletop/pick", hang["last_feedback"]
    assert any(line.lstrip().startswith(("Thread 0x", "Current thread 0x")) for line in hang["threads"]), hang
    assert any("bt_executive" in line or "rclpy" in line for line in hang["threads"]), hang["threads"]
    assert hang["log_tail"], hang
    assert serve.process.poll() is None  # the dump does not stop the executive

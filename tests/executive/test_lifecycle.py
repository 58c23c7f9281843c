"""The executive as a managed (lifecycle) node: what each transition makes, stops and releases.

In process (the fake skill server records every goal and cancel):

- deactivated, it ends goals ``inactive`` (error code 102) and starts nothing;
- deactivated mid-task, the task ends ``preempted`` and its skill goal is cancelled;
  activated again, it serves the next task;
- configure reads the ROS parameters: a bad one fails the transition, leaving it unconfigured;
- a configure that raises half-way releases what it had made (the error path ends unconfigured).

Across processes, as a lifecycle manager drives it (``serve --no-autostart`` and the
realtime sim as children; this process calls ``~/change_state`` and reads the graph):
configure -> activate -> a task -> deactivate mid-task (the run ends ``preempted``; the
sim's record says the arm holds) -> activate -> a task ends ``done`` -> deactivate ->
cleanup -> configure -> shutdown, with the node's endpoints checked after every step.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bt_executive.cli.task_client import TaskClient, TaskResult
from bt_executive.executive.node import ExecutiveNode, robot_registry
from bt_executive.executive.params import ExecutiveParams
from bt_executive.executive.run_dir import RunReader, list_runs
from bt_executive.llm.plan import Plan
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.manifest import SkillKind
from bt_executive.testing import Outcome, RosHarness
from bt_executive.testing.lifecycle_client import Graph, LifecycleClient, beyond_base, wait_for_graph
from bt_executive.testing.scripted_planner import ScriptedPlanner
from tests.executive.conftest import HOME, PICK, PLACE, Rig, start

pytestmark = pytest.mark.ros


# in process -----------------------------------------------------------------------------------------


def test_an_inactive_executive_ends_goals_inactive_and_starts_nothing(make_rig: Any, tmp_path: Path) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK,)))
    rig.server.serve("skills/pick")
    client = rig.client()
    start(rig, client)
    assert rig.executive.deactivate()
    result = client.run("pick up the red cube", timeout_s=30)
    runs = list((tmp_path / "runs").iterdir()) if (tmp_path / "runs").is_dir() else []
    assert (result.final_reason, result.error_code, "inactive" in result.detail, runs, rig.server.goals()) == (
        "inactive",
        102,
        True,
        [],
        [],
    )


def test_deactivating_mid_task_preempts_it_and_cancels_its_goal_and_activating_serves_again(
    make_rig: Any, tmp_path: Path
) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK, PLACE)), Plan(steps=(HOME,)))
    rig.server.serve("skills/pick", Outcome(hang=True))
    rig.server.serve("skills/home", Outcome(delay_s=0.1))
    client = rig.client()
    start(rig, client)
    results: dict[str, TaskResult] = {}
    runner = threading.Thread(target=lambda: results.update(first=client.run("first task", timeout_s=30)))
    runner.start()
    rig.server.wait_for(lambda events: any(e.event == "goal" for e in events), timeout_s=15)
    deactivated = rig.executive.deactivate()
    runner.join(timeout=30)
    rig.server.wait_for(lambda events: any(e.event == "canceled" for e in events), timeout_s=5)
    activated = rig.executive.activate()
    second = client.run("go home", timeout_s=30)
    first_run = min(list_runs(tmp_path / "runs"), key=lambda run: run.path.name)
    outcome = RunReader(first_run.path).outcome()
    assert (deactivated, activated) == (True, True)
    assert (results["first"].final_reason, results["first"].error_code, second.final_reason) == (
        "preempted",
        301,
        "done",
    )
    picks = rig.server.goals("skills/pick")
    assert [c.goal_id for c in rig.server.cancels("skills/pick")] == [g.goal_id for g in picks]
    assert outcome is not None
    assert (outcome.final_reason, outcome.detail) == ("preempted", "the executive was deactivated")


def test_configure_reads_the_ros_parameters_and_a_bad_one_fails_it(ros_harness: RosHarness, tmp_path: Path) -> None:
    from rclpy.parameter import Parameter

    params = ExecutiveParams(world_state_wait_s=0.0, run_dir=str(tmp_path / "runs"))
    executive = ExecutiveNode(
        ros_harness.context,
        params,
        lambda _profile, _registry: ScriptedPlanner([]),
        namespace=ros_harness.namespace,
        autostart=False,
    )
    ros_harness.adopt(executive.node)
    executive.node.set_parameters([Parameter("tick_rate_hz", value=-5.0)])
    refused = (executive.configure(), executive.configured)
    executive.node.set_parameters([Parameter("tick_rate_hz", value=50.0)])
    taken = (executive.configure(), executive.configured, executive.params.tick_rate_hz)
    assert (refused, taken) == ((False, False), (True, True, 50.0))


def test_a_configure_that_fails_half_way_releases_what_it_made_and_a_good_one_follows(
    ros_harness: RosHarness, tmp_path: Path
) -> None:
    from rclpy.parameter import Parameter

    params = ExecutiveParams(world_state_wait_s=0.0, run_dir=str(tmp_path / "runs"))
    executive = ExecutiveNode(
        ros_harness.context,
        params,
        lambda _profile, _registry: ScriptedPlanner([]),
        namespace=ros_harness.namespace,
        autostart=False,
    )
    node = ros_harness.adopt(executive.node)

    def counts() -> tuple[int, ...]:
        kinds = (node.guards, node.timers, node.subscriptions, node.publishers, node.services, node.waitables)
        return tuple(len(list(kind)) for kind in kinds)

    before = counts()
    # Valid as a parameter, refused by rclpy when the subscription is made: after the tick's guard condition.
    executive.node.set_parameters([Parameter("world_state_topic", value="no spaces allowed")])
    failed = (executive.configure(), executive.configured, counts())
    executive.node.set_parameters([Parameter("world_state_topic", value="world_state")])
    assert (failed, executive.configure()) == ((False, False, before), True)


# across processes, as a lifecycle manager drives it ---------------------------------------------------

TASK = "put the red cube on the plate"
CANCELED = 5  # action_msgs/GoalStatus.STATUS_CANCELED
HOLD_TOLERANCE_RAD = 1e-3
HOLD_SETTLE = 5
"""World states (10 Hz, so 0.5 s of sim time) after the cancel in which the hold may still settle, as the
dead-man test allows (``tests/sim/test_dead_man.py``: SETTLE_S): on a loaded machine the first state after
the cancel can catch the arm's last millimetre of braking."""
HOLD_SAMPLES = 5
"""World states (10 Hz) after the settling over which the arm's joints must stay put."""


def configured_endpoints(namespace: str) -> Graph:
    """What configure makes, named: the ExecuteTask server, the topics, one action client per skill, the cameras."""
    fqn = f"{namespace}/bt_executive"
    params = ExecutiveParams()
    registry, _excluded = robot_registry(params)
    cameras = RobotCapabilities.from_yaml(params.capabilities_path()).cameras  # the run record's frames
    actions = [f"{namespace}/{m.ros.action_name}" for m in registry if m.kind is SkillKind.ROS_ACTION and m.ros]
    action_services = ("send_goal", "cancel_goal", "get_result")
    action_topics = ("feedback", "status")
    return {
        "publishers": frozenset(
            [f"{fqn}/{t}" for t in ("tree", "markers", "diagnostics", "snapshots")]
            + [f"{fqn}/execute_task/_action/{t}" for t in action_topics]
        ),
        "subscriptions": frozenset(
            [f"{namespace}/world_state"]
            + [f"{a}/_action/{t}" for a in actions for t in action_topics]
            + [f"{namespace}/{params.camera_topic.format(camera=c)}" for c in cameras]
        ),
        "services": frozenset(
            [f"{fqn}/execute_task/_action/{s}" for s in action_services]
            + [f"{fqn}/snapshot_streams/{s}" for s in ("open", "close", "reconfigure")]
        ),
        "clients": frozenset(f"{a}/_action/{s}" for a in actions for s in action_services),
    }


NOTHING: Graph = {kind: frozenset() for kind in ("publishers", "subscriptions", "services", "clients")}


class ManagedRobot:
    """The realtime sim and ``serve --no-autostart`` as children; this process is their lifecycle manager."""

    def __init__(self, harness: RosHarness, domain: int, runs: Path) -> None:
        from action_msgs.msg import GoalStatusArray
        from rclpy.qos import qos_profile_action_status_default

        from bt_executive.cli.process_group import ProcessGroup
        from bt_executive_interfaces.action import RunSkill
        from bt_executive_interfaces.msg import WorldState

        self.harness = harness
        self.ns = harness.namespace
        self.fqn = f"{self.ns}/bt_executive"
        self.runs = runs
        self.group = ProcessGroup(echo=None, env={**os.environ, "ROS_DOMAIN_ID": str(domain)})
        self.node = harness.node("lifecycle_manager")
        self.lifecycle = LifecycleClient(self.node, self.fqn)
        self.tasks = TaskClient(self.node, self.ns)
        self.pick_progress: list[float] = []
        self.pick_status: list[Any] = []
        self.joints: list[tuple[float, ...]] = []
        self.node.create_subscription(
            RunSkill.Impl.FeedbackMessage,
            f"{self.ns}/skills/pick/_action/feedback",
            lambda m: self.pick_progress.append(m.feedback.progress),
            10,
        )
        self.node.create_subscription(
            GoalStatusArray,
            f"{self.ns}/skills/pick/_action/status",
            lambda m: self.pick_status.extend(m.status_list),
            qos_profile_action_status_default,
        )
        self.node.create_subscription(
            WorldState, f"{self.ns}/world_state", lambda m: self.joints.append(tuple(m.joint_positions)), 10
        )
        self.pick_result: Any = self.node.create_client(
            RunSkill.Impl.GetResultService, f"{self.ns}/skills/pick/_action/get_result"
        )

    def start(self) -> None:
        sim = self.group.start("sim", ["sim", "--namespace", self.ns, "--realtime"], ready=r"^sim ready")
        self.group.wait_ready(sim, 60)
        argv = ["serve", "--no-autostart", "--namespace", self.ns, "--planner", "stub", "--run-dir", str(self.runs)]
        serve = self.group.start("serve", argv, ready=r"^executive ready")
        self.group.wait_ready(serve, 60)
        self.harness.start()
        assert self.lifecycle.wait_for_services(15.0)

    def change(self, transition: str) -> tuple[bool, str]:
        """Ask for a transition; whether it succeeded and the state the node then reports."""
        return self.lifecycle.change(transition), self.lifecycle.state()

    def made(self, expected: Graph) -> Graph | None:
        """What configure made, as this process sees the graph, once it is ``expected`` (or the last seen)."""
        graph = wait_for_graph(self.node, self.fqn, lambda g: beyond_base(g, self.fqn) == expected)
        return beyond_base(graph, self.fqn) if graph is not None else None

    def send(self, task: str, results: list[TaskResult]) -> threading.Thread:
        thread = threading.Thread(target=lambda: results.append(self.tasks.run(task, timeout_s=60.0)), daemon=True)
        thread.start()
        return thread

    def cancelled_pick(self) -> Any:
        """The sim's own result of the pick goal it cancelled (asked of its action server by goal id)."""
        from bt_executive_interfaces.action import RunSkill

        self.harness.wait_until(
            lambda: any(s.status == CANCELED for s in self.pick_status), 15.0, "the sim to cancel the pick"
        )
        status = next(s for s in self.pick_status if s.status == CANCELED)
        request = RunSkill.Impl.GetResultService.Request()
        request.goal_id = status.goal_info.goal_id
        future = self.pick_result.call_async(request)
        self.harness.wait_until(future.done, 10.0, "the sim's result of the cancelled pick")
        return future.result().result

    def joints_after(self, count: int, skip: int = 0) -> list[tuple[float, ...]]:
        """The arm's joint positions in ``count`` world states the sim publishes, after the next ``skip``."""
        seen = len(self.joints) + skip
        self.harness.wait_until(lambda: len(self.joints) >= seen + count, 15.0, "world states from the sim")
        return self.joints[seen : seen + count]


@pytest.fixture
def managed(ros_harness: RosHarness, ros_domain_id: int, tmp_path: Path) -> Any:
    robot = ManagedRobot(ros_harness, ros_domain_id, tmp_path / "runs")
    with robot.group:
        yield robot


@pytest.mark.sim
@pytest.mark.slow
def test_a_lifecycle_manager_drives_the_executive_through_a_preempted_and_a_done_task(
    managed: ManagedRobot,
) -> None:
    robot = managed
    robot.start()
    full = configured_endpoints(robot.ns)
    steps: dict[str, Any] = {"unconfigured": (robot.lifecycle.state(), robot.made(NOTHING))}
    steps["configure"] = (*robot.change("configure"), robot.made(full))
    steps["activate"] = (*robot.change("activate"), robot.made(full))
    assert steps == {
        "unconfigured": ("unconfigured", NOTHING),
        "configure": (True, "inactive", full),
        "activate": (True, "active", full),
    }

    first: list[TaskResult] = []
    runner = robot.send(TASK, first)
    robot.harness.wait_until(lambda: any(p >= 0.2 for p in robot.pick_progress), 30.0, "the pick to be under way")
    deactivated = (*robot.change("deactivate"), robot.made(full))
    runner.join(timeout=30.0)
    sim_result = robot.cancelled_pick()
    joints = robot.joints_after(HOLD_SAMPLES, skip=HOLD_SETTLE)
    moved = max(abs(a - b) for later in joints[1:] for a, b in zip(joints[0], later, strict=True))
    refused = robot.tasks.run("go home", timeout_s=30.0)
    [run] = list_runs(robot.runs)
    outcome = RunReader(run.path).outcome()
    assert deactivated == (True, "inactive", full)
    assert [(r.final_reason, r.error_code) for r in first] == [("preempted", 301)]
    assert outcome is not None
    assert (outcome.final_reason, outcome.detail) == ("preempted", "the executive was deactivated")
    assert (sim_result.failure_kind, "holding position" in sim_result.detail) == ("preempted", True)
    assert moved < HOLD_TOLERANCE_RAD, f"the arm moved {moved:.4f} rad after the cancel"
    assert (refused.final_reason, refused.error_code, len(list_runs(robot.runs))) == ("inactive", 102, 1)

    reactivated = (*robot.change("activate"), robot.made(full))
    started = time.monotonic()
    second = robot.tasks.run(TASK, timeout_s=90.0)
    print(f"lifecycle: the task after reactivation took {time.monotonic() - started:.1f} s")
    after_task = robot.made(full)
    idle = (*robot.change("deactivate"), robot.made(full))
    cleaned = (*robot.change("cleanup"), robot.made(NOTHING))
    reconfigured = (*robot.change("configure"), robot.made(full))
    shut = (*robot.change("shutdown"), robot.made(NOTHING))
    assert reactivated == (True, "active", full)
    assert (second.final_reason, second.error_code, after_task) == ("done", 0, full)
    assert idle == (True, "inactive", full)
    assert cleaned == (True, "unconfigured", NOTHING)
    assert reconfigured == (True, "inactive", full)
    assert shut == (True, "finalized", NOTHING)

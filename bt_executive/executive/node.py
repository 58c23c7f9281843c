"""The bt_executive node: takes tasks, owns and ticks their trees, and shows them.

::

    ExecuteTask goal ──► planner (worker thread) ──► TaskTree ──► skill leaves ──► robot's action servers
         ▲  feedback: plan, step, skill, status          │ tick timer (tick_rate_hz)
         └──────────── result: success, final_reason ◄───┘──► ~/tree snapshots, run directory

Threading: a MultiThreadedExecutor spins the node. The tick timer has a
callback group of its own (one tick at a time), shared with a guard
condition that leaves and the world-state subscription trigger when what a
tick waits for arrives, so the tree ticks at once then rather than a period
later (at 20 Hz a leaf's round trip was ~100 ms for a ~6 ms goal); the ExecuteTask server and
the world-state subscription share a reentrant group; action-client leaves
use the node's default group. A goal's execute callback only waits on an
event and publishes feedback, so no callback ever waits on another, and the
tree itself never blocks (planners run on a worker, leaves poll futures).

VLA skills run too: their leaves drive the robot over its camera,
joint-state and joint-trajectory topics (``RosRobot``, one per manifest
``vla.robot`` block, made when first needed) and reach their policy in
process or at a policy server (``vla_endpoint`` overrides every manifest's).
A ``vision`` planner profile sees the newest frame of ``front_camera_topic``
(``front_camera``, subscribed on first use).

One task at a time: a new goal preempts the running task (its tree is
halted, its goals cancelled, it ends ``preempted``); a cancel request does
the same to its own task.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rclpy.action.server import ActionServer, CancelResponse, GoalResponse, ServerGoalHandle
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.context import Context
from rclpy.node import Node
from std_msgs.msg import String

from bt_executive.executive.diagnostics import TaskDiagnostics
from bt_executive.executive.frame_cache import FrameCache
from bt_executive.executive.interop import Interop
from bt_executive.executive.lost_runs import mark_lost_runs
from bt_executive.executive.params import ExecutiveParams
from bt_executive.executive.run_dir import RunWriter, run_listener
from bt_executive.executive.run_recorder import RunRecorder
from bt_executive.executive.runs_root import default_runs_root
from bt_executive.executive.task_intake import INVALID_GOAL, check_goal
from bt_executive.executive.tree_topic import TREE_TOPIC, tree_qos
from bt_executive.executive.world_cache import WorldStateCache
from bt_executive.llm.plan import Planner
from bt_executive.resources import default_skill_dirs
from bt_executive.skills.action_skill import open_action_clients
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.ros_robot import RosRobot
from bt_executive.skills.vla_skill import VlaOptions
from bt_executive.trees.leaf_factory import SkillLeafFactory
from bt_executive.trees.recovery import load_recovery_policy
from bt_executive.trees.snapshot import Snapshot
from bt_executive.trees.task_context import TaskEvent
from bt_executive.trees.task_tree import TaskTree

PlannerFactory = Callable[[str, SkillRegistry], Planner]
"""Makes the planner for a profile name (``stub``, ``local``, ...) over the robot's registry."""

SnapshotListener = Callable[[Snapshot, str], None]
"""Gets each snapshot the node publishes: other streams (py_trees_ros, Groot2) read this one snapshot."""

FEEDBACK_PERIOD_S = 0.1

_log = logging.getLogger("bt_executive.executive")
"""Python logging, not the rclpy logger: one rclpy log call costs ~0.2 s here, too much for a tick."""


@dataclass
class _ActiveTask:
    """One task the node runs: its tree, its goal, its run directory."""

    tree: TaskTree
    goal: ServerGoalHandle[Any, Any, Any]
    recorder: RunRecorder
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def run_dir(self) -> Path:
        """Where this task is recorded."""
        return self.recorder.writer.path


class ExecutiveNode:
    """The executive: a ROS 2 node named ``bt_executive`` with an ExecuteTask server and a ticked tree."""

    def __init__(
        self,
        context: Context,
        params: ExecutiveParams,
        planner_factory: PlannerFactory,
        *,
        namespace: str = "",
    ) -> None:
        from bt_executive_interfaces.action import ExecuteTask

        self.params = params
        self.node = Node("bt_executive", namespace=namespace or None, context=context)
        self._declare_parameters(params)
        self._planner_factory = planner_factory
        self._execute_task = ExecuteTask
        self.registry, self.excluded = self._load_registry(params)
        self.policy = load_recovery_policy(Path(params.recovery) if params.recovery else None)
        self.policy.check_against(self.registry, params.recovery or "config/recovery.yaml")
        self.runs_root = Path(params.run_dir) if params.run_dir else default_runs_root()
        self.lost_runs = mark_lost_runs(self.runs_root)  # runs of an executive that died mid-task end `lost`

        self._task_group = ReentrantCallbackGroup()
        # Ticks come from the timer and, in between, whenever something a tick waits for arrives (a goal
        # response, a result, a world state): a leaf sees its answer in ~1 ms, not a tick period later.
        tick_group = MutuallyExclusiveCallbackGroup()
        self._tick_now = self.node.create_guard_condition(self._tick, callback_group=tick_group)
        self.world = WorldStateCache(
            self.node,
            params.world_state_topic,
            self._task_group,
            on_arrival=self._tick_now.trigger,
            max_objects=params.world_state_max_objects,
        )
        self.front_camera = FrameCache(self.node, params.front_camera_topic)
        # One RosRobot per VLA robot binding, made when a VLA leaf first needs it: until then the
        # cameras cost nothing (the sim renders only for subscribers).
        self._robots: dict[str, RosRobot] = {}
        self.leaf_factory = SkillLeafFactory(
            self.registry,
            node=self.node,
            world=self.world.latest,
            robots=self.robot_for,
            vla_options=VlaOptions(realtime=True),  # RosRobot.act publishes and returns: the loop keeps the rate
            vla_endpoint=params.vla_endpoint or None,
            wake=self._tick_now.trigger,
        )
        # One action client per skill action, all made now: the wait set and the DDS endpoints have
        # their final size before the first task, and no task makes (or leaves behind) a client.
        open_action_clients(self.node, self.registry)
        # Transient-local: a viewer started mid-task gets the current tree at once.
        self._tree_pub = self.node.create_publisher(String, TREE_TOPIC, tree_qos())
        self._server = ActionServer(
            self.node,
            ExecuteTask,
            "~/execute_task",
            execute_callback=self._execute,
            goal_callback=lambda _goal: GoalResponse.ACCEPT,
            cancel_callback=lambda _handle: CancelResponse.ACCEPT,
            callback_group=self._task_group,
        )
        self._lock = threading.Lock()
        self._active: _ActiveTask | None = None
        self.snapshot_listeners: list[SnapshotListener] = []
        """Called on the tick thread with every snapshot ``~/tree`` gets (dict and JSON text; read, don't keep)."""
        self.diagnostics = TaskDiagnostics(self.node)
        # py_trees_ros snapshot streams (~/snapshot_streams/*, ~/snapshots) and the Groot2 feed read the snapshots.
        self.interop = Interop.attach(
            self.node,
            params,
            self.snapshot_listeners,
            visited=lambda: self._active.tree.last_visited if self._active else (),
        )
        self._timer = self.node.create_timer(1.0 / params.tick_rate_hz, self._timer_tick, callback_group=tick_group)

    # setup ------------------------------------------------------------------------------------------

    def _declare_parameters(self, params: ExecutiveParams) -> None:
        """Expose the effective configuration as ROS parameters (``ros2 param dump`` shows what runs)."""
        values = params.model_dump()
        values["skill_paths"] = list(params.skill_paths) or [""]  # ROS infers an array's type from its items
        self.node.declare_parameters("", list(values.items()))

    def _load_registry(self, params: ExecutiveParams) -> tuple[SkillRegistry, dict[str, str]]:
        """The skills this robot can run (VLA skills too: they reach the robot over its topics)."""
        everything = SkillRegistry.discover([*default_skill_dirs(), *params.extra_skill_dirs()])
        robot = RobotCapabilities.from_yaml(params.capabilities_path())
        usable, excluded = everything.available_for(robot)
        return usable.without(excluded), excluded

    def robot_for(self, manifest: SkillManifest) -> RosRobot:
        """The robot interface over ``manifest``'s ``vla.robot`` topics (shared by skills with the same ones)."""
        if manifest.vla is None:
            raise ValueError(f"{manifest.id} is not a vla skill")
        key = manifest.vla.robot.model_dump_json()
        if key not in self._robots:
            self._robots[key] = RosRobot(self.node, manifest.vla.robot, self.world.latest)
        return self._robots[key]

    # the tick ---------------------------------------------------------------------------------------

    def _tick(self) -> None:
        """Tick the running task's tree; publish its snapshot when it changed; close it when it ended."""
        with self._lock:
            active = self._active
            if active is None or active.done.is_set():
                return
            tick_started = time.monotonic()
            try:
                active.tree.tick_once()
            except Exception as err:  # a bug in one task's tree ends that task, not the executive
                _log.exception("task %r: a tick raised", active.tree.context.task)
                active.tree.fail(f"a tick raised {type(err).__name__}: {err}")
            if active.recorder.after_tick() is not None:
                self._publish(active.recorder)
            if active.tree.final_reason is not None:
                self._close(active)
            self.interop.post_tick(tick_started)

    def _timer_tick(self) -> None:
        self.diagnostics.timer_ticked()
        self._tick()

    def _publish(self, recorder: RunRecorder) -> None:
        """Send the snapshot the recorder just took (the text it recorded), and hand it to the listeners."""
        snapshot, text = recorder.last_snapshot, recorder.live.json()
        if snapshot is None:
            return
        self._tree_pub.publish(String(data=text))
        for listener in self.snapshot_listeners:
            listener(snapshot, text)

    def _close(self, active: _ActiveTask) -> None:
        """The task ended: last snapshot, plans and outcome to the run directory, wake its goal."""
        active.recorder.finish()
        self._publish(active.recorder)
        outcome = active.tree.outcome()
        active.tree.release()  # leaves' goals, blackboard clients and keys: nothing outlives the task
        active.done.set()
        if self._active is active:
            self._active = None
        self.diagnostics.task_ended(outcome.task, outcome.final_reason)
        _log.info(
            "task %r ended: %s (%.1f s, run %s)",
            outcome.task,
            outcome.final_reason,
            outcome.duration_s,
            active.run_dir,
        )

    # ExecuteTask ------------------------------------------------------------------------------------

    def _execute(self, goal: ServerGoalHandle[Any, Any, Any]) -> Any:
        """Run one task to its end, publishing feedback; preempt whatever ran before."""
        request = goal.request
        refusal = check_goal(request.task, request.planner_profile)
        if refusal is not None:  # refused before anything starts: the running task goes on
            goal.abort()
            return self._result(False, INVALID_GOAL, detail=str(refusal))
        profile = request.planner_profile or self.params.planner
        try:
            planner = self._planner_factory(profile, self.registry)
        except Exception as err:  # an unknown profile or a missing key: the goal ends, the node stays
            goal.abort()
            return self._result(False, "planner_error", detail=f"planner profile {profile!r}: {err}")
        self._wait_for_world()
        active = self._start(request.task, planner, profile, goal)
        last: tuple[int, int, str, str] | None = None
        while not active.done.wait(FEEDBACK_PERIOD_S):
            if goal.is_cancel_requested:
                self._cancel(active, "cancelled by the client")
            last = self._feedback(active, last)
        outcome = active.tree.outcome()
        if goal.is_cancel_requested:
            goal.canceled()
        elif outcome.success:
            goal.succeed()
        else:
            goal.abort()
        result = self._result(outcome.success, outcome.final_reason, outcome.attempts, outcome.detail)
        result.goal = list(outcome.goal)
        result.goal_held = -1 if outcome.goal_held is None else int(outcome.goal_held)
        return result

    def _start(self, task: str, planner: Planner, profile: str, goal: ServerGoalHandle[Any, Any, Any]) -> _ActiveTask:
        writer = RunWriter.create(self.runs_root, task, profile)
        tree = TaskTree(
            task,
            planner=planner,
            registry=self.registry,
            leaf_factory=self.leaf_factory,
            policy=self.policy,
            world=self.world.latest,
            world_arrival=self.world.arrival,
            max_replans=None if self.params.max_replans < 0 else self.params.max_replans,
            listeners=[run_listener(writer), self._log_event],
            wake=self._tick_now.trigger,
        )
        active = _ActiveTask(tree=tree, goal=goal, recorder=RunRecorder(writer, tree))
        with self._lock:
            previous = self._active
            if previous is not None and not previous.done.is_set():
                self._cancel_locked(previous, "preempted by a new task")
            self._active = active
            self.diagnostics.task_started()
        self._tick_now.trigger()  # the first tick now, not a period from now
        _log.info(f"task {task!r} started (planner {profile}, run {writer.path})")
        return active

    def _cancel(self, active: _ActiveTask, detail: str) -> None:
        with self._lock:
            if not active.done.is_set():
                self._cancel_locked(active, detail)

    def _cancel_locked(self, active: _ActiveTask, detail: str) -> None:
        active.tree.cancel(detail)
        self._close(active)

    def _wait_for_world(self) -> None:
        deadline = time.monotonic() + self.params.world_state_wait_s
        while self.world.latest() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.world.latest() is None:
            _log.warning(f"no world state on {self.params.world_state_topic!r} yet: planning with an empty world")

    def _feedback(self, active: _ActiveTask, last: tuple[int, int, str, str] | None) -> tuple[int, int, str, str]:
        """Publish plan index, step and skill of the latest step start, and the tree status, when they change."""
        events = active.tree.context.events
        start = next((e for e in reversed(events) if e.kind == "step_start"), None)
        current = (
            start.plan if start is not None and start.plan is not None else 0,
            start.step if start is not None and start.step is not None else 0,
            str(start.data.get("skill", "")) if start is not None else "",
            active.tree.status.name,
        )
        if current != last:
            feedback = self._execute_task.Feedback()
            feedback.plan_index, feedback.step, feedback.skill, feedback.tree_status = current
            active.goal.publish_feedback(feedback)
        return current

    def _result(
        self, success: bool, final_reason: str, attempts: Sequence[AttemptRecord] = (), detail: str = ""
    ) -> Any:
        result = self._execute_task.Result()
        result.success = success
        result.final_reason = final_reason
        result.attempts_json = json.dumps([a.model_dump(mode="json", exclude_none=True) for a in attempts])
        result.detail = detail
        result.goal_held = -1
        if detail and not success:
            _log.info(f"final_reason {final_reason}: {detail}")
        return result

    def _log_event(self, event: TaskEvent) -> None:
        if event.kind in ("plan", "retry", "recovery", "plan_refused", "planner_refused", "goal_check", "final"):
            _log.info(f"{event.kind}: {json.dumps(event.data, separators=(',', ':'))[:300]}")

    # shutdown ---------------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Cancel a running task (its goals with it) and stop ticking."""
        with self._lock:
            if self._active is not None and not self._active.done.is_set():
                self._cancel_locked(self._active, "the executive shut down")
        self._timer.cancel()
        self.interop.shutdown()

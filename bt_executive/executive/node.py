"""The bt_executive node: takes tasks, owns and ticks their trees, and shows them.

::

    ExecuteTask goal ──► planner (worker thread) ──► TaskTree ──► skill leaves ──► robot's action servers
         ▲  feedback: plan, step, skill, status          │ tick timer (tick_rate_hz)
         └──── result: success, final_reason, error_code ◄┘──► ~/tree snapshots, ~/markers, run directory

A managed (lifecycle) node, as Nav2's ``bt_navigator`` is, with the standard
services (``~/change_state``, ``~/get_state``, ``~/get_available_transitions``...)::

    unconfigured ──configure──► inactive ──activate──► active
         ▲                        │  ▲                   │
         └────────cleanup─────────┘  └────deactivate─────┘

- configure: read the ROS parameters, load the skills, the recovery policy
  and the default profile's planner, open the skills' action clients, the
  world-state cache, the ExecuteTask server and the topics (``~/tree``,
  ``~/markers``, ``~/diagnostics``, snapshot streams);
- activate: take ExecuteTask goals and start the tick;
- deactivate: preempt the running task (its goals are cancelled, so the arm
  holds; the run ends ``preempted``), stop the tick; a goal sent while not
  active ends at once, ``inactive`` (error code 102), its detail naming the
  state (ROS 2 cannot say why a goal was rejected, so it is accepted and
  answered, as the intake's refusals are);
- cleanup: release all that configure made: nothing of it stays in the graph;
- shutdown: as deactivate, then cleanup; an error in a transition releases
  everything too and leaves the node unconfigured.

``serve`` configures and activates the node itself (``autostart``) before its
executor spins; ``--no-autostart`` leaves it unconfigured for a lifecycle manager.

Threading: a MultiThreadedExecutor spins the node. The tick timer has a
callback group of its own (one tick at a time), shared with a guard
condition that leaves and the world-state subscription trigger when what a
tick waits for arrives, so the tree ticks at once then rather than a period
later (at 20 Hz a leaf's round trip was ~100 ms for a ~6 ms goal); the ExecuteTask server and
the world-state subscription share a reentrant group; action-client leaves
and the lifecycle services use the node's default group. A goal's execute
callback only waits on an event and publishes feedback, so no callback ever
waits on another, and the tree itself never blocks (planners run on a worker,
leaves poll futures). A transition waits only for goals' execute callbacks to
return, which run in the reentrant group.

VLA skills run too: their leaves drive the robot over its camera,
joint-state and joint-trajectory topics (``RosRobot``, one per manifest
``vla.robot`` block, made when first needed) and reach their policy in
process or at a policy server (``vla_endpoint`` overrides every manifest's).
A ``vision`` planner profile sees the newest frame of ``front_camera_topic``
(``front_camera``, subscribed on first use). The run directory keeps the
robot profile's cameras' frames at a task's moments (``frame_recorder.py``).

One task at a time: a new goal preempts the running task (its tree is
halted, its goals cancelled, it ends ``preempted``); a cancel request does
the same to its own task.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rclpy.action.server import ActionServer, CancelResponse, GoalResponse, ServerGoalHandle
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.context import Context
from rclpy.exceptions import InvalidHandle
from rclpy.guard_condition import GuardCondition
from rclpy.lifecycle import LifecycleNode, LifecyclePublisher, LifecycleState, TransitionCallbackReturn
from rclpy.timer import Timer
from std_msgs.msg import String

from bt_executive.executive.diagnostics import TaskDiagnostics
from bt_executive.executive.error_codes import error_code
from bt_executive.executive.frame_cache import FrameCache
from bt_executive.executive.frame_recorder import FrameRecorder
from bt_executive.executive.interop import Interop
from bt_executive.executive.lost_runs import mark_lost_runs
from bt_executive.executive.markers import WorldMarkers
from bt_executive.executive.params import ExecutiveParams
from bt_executive.executive.run_dir import RunWriter, run_listener
from bt_executive.executive.run_recorder import RunRecorder
from bt_executive.executive.task_intake import INACTIVE, INVALID_GOAL, check_goal
from bt_executive.executive.tree_topic import TREE_TOPIC, tree_qos
from bt_executive.executive.world_cache import WorldStateCache
from bt_executive.llm.plan import Planner
from bt_executive.runtime.paths import default_runs_root
from bt_executive.skills.action_client_pool import destroy_clients
from bt_executive.skills.action_skill import open_action_clients
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.ros_robot import RosRobot
from bt_executive.skills.vla_skill import VlaOptions
from bt_executive.trees.leaf_factory import SkillLeafFactory
from bt_executive.trees.recovery import RecoveryPolicy, load_recovery_policy
from bt_executive.trees.snapshot import Snapshot
from bt_executive.trees.task_context import TaskEvent
from bt_executive.trees.task_tree import TaskTree

PlannerFactory = Callable[[str, SkillRegistry], Planner]
"""Makes the planner for a profile name (``stub``, ``local``, ...) over the robot's registry."""

SnapshotListener = Callable[[Snapshot, str], None]
"""Gets each snapshot the node publishes: other streams (py_trees_ros, Groot2) read this one snapshot."""

FEEDBACK_PERIOD_S = 0.1
GOALS_DRAIN_S = 10.0
"""How long a transition waits for goals' execute callbacks to return (a preempted task's returns in ~0.1 s)."""

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


@dataclass
class _Configured:
    """Everything configure makes and cleanup releases: while unconfigured none of it exists."""

    params: ExecutiveParams
    registry: SkillRegistry
    excluded: dict[str, str]
    policy: RecoveryPolicy
    runs_root: Path
    lost_runs: list[Path]
    tick_now: GuardCondition
    world: WorldStateCache
    front_camera: FrameCache
    frames: FrameRecorder
    leaf_factory: SkillLeafFactory
    tree_pub: LifecyclePublisher[String]
    markers: WorldMarkers
    server: ActionServer[Any, Any, Any]
    diagnostics: TaskDiagnostics
    interop: Interop
    timer: Timer
    robots: dict[str, RosRobot]
    release: contextlib.ExitStack
    """Releases all of the above that the ROS graph or the process holds, last made first."""


class NotConfigured(RuntimeError):
    """What only a configured executive has was asked for while it is unconfigured."""


class _ManagedNode(LifecycleNode):
    """rclpy's lifecycle node, whose transitions are the executive's (logged, never raised into rclpy)."""

    def __init__(self, executive: ExecutiveNode, context: Context, namespace: str) -> None:
        super().__init__("bt_executive", namespace=namespace or None, context=context)
        self._executive = executive

    def _run(self, what: str, step: Callable[[], bool]) -> TransitionCallbackReturn:
        """SUCCESS or FAILURE as ``step`` says; ERROR (then ``on_error``) if it raised."""
        try:
            return TransitionCallbackReturn.SUCCESS if step() else TransitionCallbackReturn.FAILURE
        except Exception:  # rclpy would swallow it without a word: say what went wrong
            _log.exception("lifecycle %s failed", what)
            return TransitionCallbackReturn.ERROR

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Make everything (``ExecutiveNode._configure``)."""
        return self._run("configure", self._executive._configure)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Publishers first (the first tick's snapshot must go out), then take goals and tick."""
        enabled = super().on_activate(state)
        if enabled != TransitionCallbackReturn.SUCCESS:
            return enabled
        return self._run("activate", self._executive._activate)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Preempt and stop first (the task's last snapshot must go out), then silence the publishers."""
        stopped = self._run("deactivate", self._executive._deactivate)
        return stopped if stopped != TransitionCallbackReturn.SUCCESS else super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything (``ExecutiveNode._cleanup``)."""
        return self._run("cleanup", self._executive._cleanup)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop as deactivate does, then release as cleanup does."""
        return self._run("shutdown", self._executive._shut_down)

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        """A transition raised: release everything and go back to unconfigured (FAILURE would finalize)."""
        return self._run("error processing", self._executive._cleanup)


class ExecutiveNode:
    """The executive: a lifecycle node named ``bt_executive`` with an ExecuteTask server and a ticked tree."""

    def __init__(
        self,
        context: Context,
        params: ExecutiveParams,
        planner_factory: PlannerFactory,
        *,
        namespace: str = "",
        autostart: bool = True,
        release_planners: Callable[[SkillRegistry], None] | None = None,
    ) -> None:
        """``autostart``: configure and activate now (before an executor spins the node), as ``serve`` does.

        ``release_planners`` is told at cleanup that the registry it built planners over is gone (a
        ``PlannerCache`` closes them), so a reconfigured executive does not keep the old ones.
        """
        from bt_executive_interfaces.action import ExecuteTask

        self.params = params
        """The configuration: as given until configure reads it back from the ROS parameters."""
        self._planner_factory = planner_factory
        self._release_planners = release_planners
        self._execute_task = ExecuteTask
        self.node = _ManagedNode(self, context, namespace)
        self._declare_parameters(params)
        self._lock = threading.Lock()
        self._active: _ActiveTask | None = None
        self._accepting = False
        """Active: goals start tasks. Otherwise they end ``inactive`` at once."""
        self._executing = 0
        self._goals_done = threading.Condition()
        self._parts: _Configured | None = None
        self.snapshot_listeners: list[SnapshotListener] = []
        """Called on the tick thread with every snapshot ``~/tree`` gets (dict and JSON text; read, don't keep)."""
        if autostart and not (self.configure() and self.activate()):
            raise RuntimeError("the executive could not configure and activate itself (see the log)")

    # lifecycle, from this process ---------------------------------------------------------------------

    def configure(self) -> bool:
        """The configure transition, as a lifecycle manager would ask for it; whether it succeeded."""
        return self.node.trigger_configure() == TransitionCallbackReturn.SUCCESS

    def activate(self) -> bool:
        """The activate transition; whether it succeeded."""
        return self.node.trigger_activate() == TransitionCallbackReturn.SUCCESS

    def deactivate(self) -> bool:
        """The deactivate transition (the running task ends ``preempted``); whether it succeeded."""
        return self.node.trigger_deactivate() == TransitionCallbackReturn.SUCCESS

    def cleanup(self) -> bool:
        """The cleanup transition; whether it succeeded."""
        return self.node.trigger_cleanup() == TransitionCallbackReturn.SUCCESS

    @property
    def configured(self) -> bool:
        """Whether configure made the node's skills, clients, server and topics (inactive or active)."""
        return self._parts is not None

    @property
    def accepting(self) -> bool:
        """Whether goals start tasks (the node is active)."""
        return self._accepting

    # what configure made ------------------------------------------------------------------------------

    def _configured(self) -> _Configured:
        parts = self._parts
        if parts is None:
            raise NotConfigured("the executive is unconfigured: configure it (lifecycle) first")
        return parts

    @property
    def registry(self) -> SkillRegistry:
        """The skills this robot can run."""
        return self._configured().registry

    @property
    def excluded(self) -> dict[str, str]:
        """Skills left out for this robot, with why."""
        return self._configured().excluded

    @property
    def runs_root(self) -> Path:
        """Where run directories are written."""
        return self._configured().runs_root

    @property
    def lost_runs(self) -> list[Path]:
        """Runs of a dead executive that configure marked ``lost``."""
        return self._configured().lost_runs

    @property
    def world(self) -> WorldStateCache:
        """The latest world state from the robot's topic."""
        return self._configured().world

    @property
    def front_camera(self) -> FrameCache:
        """The newest front-camera frame (for vision planner profiles)."""
        return self._configured().front_camera

    @property
    def interop(self) -> Interop:
        """The snapshot streams and the Groot2 feed."""
        return self._configured().interop

    @property
    def markers(self) -> WorldMarkers:
        """The RViz markers of the world state (``~/markers``)."""
        return self._configured().markers

    # transitions --------------------------------------------------------------------------------------

    def _declare_parameters(self, params: ExecutiveParams) -> None:
        """Expose the configuration as ROS parameters (``ros2 param dump`` shows it; set them, then configure)."""
        values = params.model_dump()
        values["skill_paths"] = list(params.skill_paths) or [""]  # ROS infers an array's type from its items
        self.node.declare_parameters("", list(values.items()))

    def _read_parameters(self) -> ExecutiveParams:
        """The ROS parameters as they are now, validated (a manager may have set some before configure)."""
        values = {name: self.node.get_parameter(name).value for name in ExecutiveParams.model_fields}
        values["skill_paths"] = tuple(p for p in values["skill_paths"] if p)
        return ExecutiveParams.model_validate(values)

    def _configure(self) -> bool:
        """Read the parameters and make everything a task needs; on a bad parameter, nothing (FAILURE).

        Each thing made registers how it is released, in one stack: cleanup releases them in reverse,
        and a configure that raises half-way releases what it had made before the error path runs.
        """
        try:
            params = self._read_parameters()
        except ValidationError as err:
            _log.error("configure: bad parameters: %s", err)
            return False
        node = self.node
        registry, excluded = robot_registry(params)
        policy = load_recovery_policy(Path(params.recovery) if params.recovery else None)
        policy.check_against(registry, params.recovery or "config/recovery.yaml")
        runs_root = Path(params.run_dir) if params.run_dir else default_runs_root()
        with contextlib.ExitStack() as made:
            # Ticks come from the timer and, in between, whenever something a tick waits for arrives (a goal
            # response, a result, a world state): a leaf sees its answer in ~1 ms, not a tick period later.
            task_group = ReentrantCallbackGroup()
            tick_group = MutuallyExclusiveCallbackGroup()
            tick_now = node.create_guard_condition(self._tick, callback_group=tick_group)
            made.callback(node.destroy_guard_condition, tick_now)
            world = WorldStateCache(
                node,
                params.world_state_topic,
                task_group,
                on_arrival=self._world_arrived,
                max_objects=params.world_state_max_objects,
            )
            made.callback(world.destroy)
            front_camera = FrameCache(node, params.front_camera_topic)
            made.callback(front_camera.destroy)
            frames = FrameRecorder.for_robot(node, params, front_camera)
            made.callback(frames.close)
            # One action client per skill action, all made now: the wait set and the DDS endpoints have
            # their final size before the first task, and no task makes (or leaves behind) a client.
            made.callback(destroy_clients, node)
            open_action_clients(node, registry)
            # Transient-local: a viewer started mid-task gets the current tree at once.
            tree_pub = node.create_lifecycle_publisher(String, TREE_TOPIC, tree_qos())
            made.callback(node.destroy_lifecycle_publisher, tree_pub)
            markers = WorldMarkers(node, params.markers_frame_id)
            made.callback(markers.destroy)
            server = ActionServer(
                node,
                self._execute_task,
                "~/execute_task",
                execute_callback=self._execute,
                goal_callback=lambda _goal: GoalResponse.ACCEPT,
                cancel_callback=lambda _handle: CancelResponse.ACCEPT,
                callback_group=task_group,
            )
            made.callback(server.destroy)
            diagnostics = TaskDiagnostics(node)
            made.callback(diagnostics.destroy)
            # py_trees_ros snapshot streams (~/snapshot_streams/*, ~/snapshots) and the Groot2 feed read the snapshots.
            interop = Interop.attach(
                node,
                params,
                self.snapshot_listeners,
                visited=lambda: self._active.tree.last_visited if self._active else (),
            )
            made.callback(interop.detach, self.snapshot_listeners)
            timer = node.create_timer(1.0 / params.tick_rate_hz, self._timer_tick, tick_group, autostart=False)
            made.callback(node.destroy_timer, timer)
            robots: dict[str, RosRobot] = {}  # made when a VLA leaf first needs one (robot_for)
            made.callback(_destroy_robots, robots)
            if self._release_planners is not None:
                made.callback(self._release_planners, registry)
            leaf_factory = SkillLeafFactory(
                registry,
                node=node,
                world=world.latest,
                robots=self.robot_for,
                vla_options=VlaOptions(realtime=True),  # RosRobot.act publishes and returns: the loop keeps the rate
                vla_endpoint=params.vla_endpoint or None,
                wake=self._wake,
            )
            self._parts = _Configured(
                params=params,
                registry=registry,
                excluded=excluded,
                policy=policy,
                runs_root=runs_root,
                lost_runs=mark_lost_runs(runs_root),  # runs of an executive that died mid-task end `lost`
                tick_now=tick_now,
                world=world,
                front_camera=front_camera,
                frames=frames,
                leaf_factory=leaf_factory,
                tree_pub=tree_pub,
                markers=markers,
                server=server,
                diagnostics=diagnostics,
                interop=interop,
                timer=timer,
                robots=robots,
                release=made.pop_all(),
            )
        self.params = params
        self._load_planner(params.planner, registry)
        _log.info("configured: %d skills, planner %s, runs in %s", len(registry), params.planner, runs_root)
        return True

    def _load_planner(self, profile: str, registry: SkillRegistry) -> None:
        """Build the default profile's planner now, as Nav2 loads its plugins at configure.

        A profile that cannot be built is logged, not fatal: each task then ends ``planner_error``
        with the reason, as it did before the node had a lifecycle.
        """
        try:
            self._planner_factory(profile, registry)
        except Exception as err:
            _log.warning("configure: planner profile %r: %s (tasks on it will end planner_error)", profile, err)

    def _activate(self) -> bool:
        """Take goals and tick."""
        parts = self._configured()
        with self._lock:
            self._accepting = True
        parts.timer.reset()
        parts.markers.refresh(parts.world.latest())  # a display started while inactive gets the world now
        _log.info("active: taking tasks")
        return True

    def _deactivate(self) -> bool:
        """Refuse new goals, preempt the running task (its goals cancelled: the arm holds), stop ticking."""
        parts = self._configured()
        self._stop("the executive was deactivated")
        parts.timer.cancel()
        self._wait_for_goals()
        _log.info("inactive: new tasks end %s", INACTIVE)
        return True

    def _cleanup(self) -> bool:
        """Release everything configure made (nothing of it stays in the graph); also the error path."""
        self._stop("the executive was cleaned up")
        self._wait_for_goals()
        parts, self._parts = self._parts, None
        if parts is not None:
            parts.release.close()  # in reverse order of making
            _log.info("cleaned up: unconfigured")
        return True

    def _shut_down(self) -> bool:
        """The shutdown transition: stop, then release."""
        return self._cleanup()

    def _stop(self, why: str) -> None:
        """Take no more goals and preempt the running task (its goals are cancelled)."""
        with self._lock:
            self._accepting = False
            if self._active is not None and not self._active.done.is_set():
                self._cancel_locked(self._active, why)

    def _wait_for_goals(self) -> None:
        """Until every goal's execute callback has returned (bounded): its result is on its way."""
        with self._goals_done:
            if not self._goals_done.wait_for(lambda: self._executing == 0, GOALS_DRAIN_S):
                _log.warning("%d goal(s) still executing after %.0f s", self._executing, GOALS_DRAIN_S)

    def robot_for(self, manifest: SkillManifest) -> RosRobot:
        """The robot interface over ``manifest``'s ``vla.robot`` topics (shared by skills with the same ones)."""
        if manifest.vla is None:
            raise ValueError(f"{manifest.id} is not a vla skill")
        parts = self._configured()
        key = manifest.vla.robot.model_dump_json()
        if key not in parts.robots:
            parts.robots[key] = RosRobot(self.node, manifest.vla.robot, parts.world.latest)
        return parts.robots[key]

    # the tick ---------------------------------------------------------------------------------------

    def _wake(self) -> None:
        """Tick at once (a leaf's answer, a plan or a world state arrived); nothing once cleaned up."""
        parts = self._parts
        if parts is not None:
            with contextlib.suppress(InvalidHandle):  # released between the read and the trigger
                parts.tick_now.trigger()

    def _world_arrived(self) -> None:
        parts = self._parts
        if parts is not None and self._accepting:
            parts.markers.refresh(parts.world.latest())
        self._wake()

    def _tick(self) -> None:
        """Tick the running task's tree; publish its snapshot when it changed; close it when it ended."""
        parts = self._parts
        if parts is None:
            return
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
                self._publish(parts, active.recorder)
            parts.markers.focus(active.tree.context.running_call(), parts.world.latest())
            if active.tree.final_reason is not None:
                self._close(active)
            parts.interop.post_tick(tick_started)

    def _timer_tick(self) -> None:
        parts = self._parts
        if parts is not None:
            parts.diagnostics.timer_ticked()
        self._tick()

    def _publish(self, parts: _Configured, recorder: RunRecorder) -> None:
        """Send the snapshot the recorder just took (the text it recorded), and hand it to the listeners."""
        snapshot, text = recorder.last_snapshot, recorder.live.json()
        if snapshot is None:
            return
        parts.tree_pub.publish(String(data=text))
        for listener in self.snapshot_listeners:
            listener(snapshot, text)

    def _close(self, active: _ActiveTask) -> None:
        """The task ended: last snapshot, plans and outcome to the run directory, wake its goal."""
        parts = self._parts
        active.recorder.finish()
        if parts is not None:
            self._publish(parts, active.recorder)
            parts.markers.focus(None, parts.world.latest())
        outcome = active.tree.outcome()
        active.tree.release()  # leaves' goals, blackboard clients and keys: nothing outlives the task
        active.done.set()
        if self._active is active:
            self._active = None
        if parts is not None:
            parts.diagnostics.task_ended(outcome.task, outcome.final_reason)
        _log.info(
            "task %r ended: %s (%.1f s, run %s)",
            outcome.task,
            outcome.final_reason,
            outcome.duration_s,
            active.run_dir,
        )

    # ExecuteTask ------------------------------------------------------------------------------------

    def _execute(self, goal: ServerGoalHandle[Any, Any, Any]) -> Any:
        """Run one goal to its end, counted so that a transition can wait for its result to be sent."""
        with self._goals_done:
            self._executing += 1
        try:
            return self._run_goal(goal)
        finally:
            with self._goals_done:
                self._executing -= 1
                self._goals_done.notify_all()

    def _run_goal(self, goal: ServerGoalHandle[Any, Any, Any]) -> Any:
        """Run one task to its end, publishing feedback; preempt whatever ran before."""
        request = goal.request
        parts = self._parts
        if parts is None or not self._accepting:
            return self._inactive(goal)
        refusal = check_goal(request.task, request.planner_profile)
        if refusal is not None:  # refused before anything starts: the running task goes on
            goal.abort()
            return self._result(False, INVALID_GOAL, detail=str(refusal))
        profile = request.planner_profile or parts.params.planner
        try:
            planner = self._planner_factory(profile, parts.registry)
        except Exception as err:  # an unknown profile or a missing key: the goal ends, the node stays
            goal.abort()
            return self._result(False, "planner_error", detail=f"planner profile {profile!r}: {err}")
        self._wait_for_world(parts)
        active = self._start(parts, request.task, planner, profile, goal)
        if active is None:  # deactivated while it waited for the world
            return self._inactive(goal)
        last: tuple[int, int, str, str] | None = None
        while not active.done.wait(FEEDBACK_PERIOD_S):
            if goal.is_cancel_requested:
                self._cancel(active, "cancelled by the client")
            last = self._feedback(active, last)
        active.recorder.wait_closed()  # the run directory is complete (its last frames in) before the answer
        outcome = active.tree.outcome()
        if goal.is_cancel_requested:
            goal.canceled()
        elif outcome.success:
            goal.succeed()
        else:
            goal.abort()
        result = self._result(
            outcome.success, outcome.final_reason, outcome.attempts, outcome.detail, outcome.refusal_kind
        )
        result.goal = list(outcome.goal)
        result.goal_held = -1 if outcome.goal_held is None else int(outcome.goal_held)
        return result

    def _inactive(self, goal: ServerGoalHandle[Any, Any, Any]) -> Any:
        """The answer to a goal while the node is not active: nothing started, the detail says why."""
        goal.abort()
        state = "inactive" if self._parts is not None else "unconfigured"
        return self._result(
            False, INACTIVE, detail=f"the executive is {state}: activate it (lifecycle) before sending tasks"
        )

    def _start(
        self, parts: _Configured, task: str, planner: Planner, profile: str, goal: ServerGoalHandle[Any, Any, Any]
    ) -> _ActiveTask | None:
        """Start the task (preempting the running one), or None if the node stopped taking goals meanwhile.

        Checked and made under the lock that deactivation takes: a task either starts before it (and is
        preempted by it) or not at all, and no run directory is made for a task that never runs.
        """
        with self._lock:
            if not self._accepting:
                return None
            writer = RunWriter.create(parts.runs_root, task, profile)
            frames = parts.frames.start_task(writer)
            tree = TaskTree(
                task,
                planner=planner,
                registry=parts.registry,
                leaf_factory=parts.leaf_factory,
                policy=parts.policy,
                world=parts.world.latest,
                world_arrival=parts.world.arrival,
                max_replans=None if parts.params.max_replans < 0 else parts.params.max_replans,
                listeners=[run_listener(writer), frames.on_event, self._log_event],
                wake=self._wake,
                planner_timeout_s=parts.params.planner_timeout_s or None,
                task_timeout_s=parts.params.task_timeout_s or None,
            )
            active = _ActiveTask(tree=tree, goal=goal, recorder=RunRecorder(writer, tree, frames))
            previous = self._active
            if previous is not None and not previous.done.is_set():
                self._cancel_locked(previous, "preempted by a new task")
            self._active = active
            parts.diagnostics.task_started()
        self._wake()  # the first tick now, not a period from now
        _log.info(f"task {task!r} started (planner {profile}, run {writer.path})")
        return active

    def _cancel(self, active: _ActiveTask, detail: str) -> None:
        with self._lock:
            if not active.done.is_set():
                self._cancel_locked(active, detail)

    def _cancel_locked(self, active: _ActiveTask, detail: str) -> None:
        active.tree.cancel(detail)
        self._close(active)

    def _wait_for_world(self, parts: _Configured) -> None:
        deadline = time.monotonic() + parts.params.world_state_wait_s
        while parts.world.latest() is None and time.monotonic() < deadline and self._accepting:
            time.sleep(0.05)
        if parts.world.latest() is None:
            _log.warning(f"no world state on {parts.params.world_state_topic!r} yet: planning with an empty world")

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
        self,
        success: bool,
        final_reason: str,
        attempts: Sequence[AttemptRecord] = (),
        detail: str = "",
        refusal_kind: str | None = None,
    ) -> Any:
        result = self._execute_task.Result()
        result.success = success
        result.final_reason = final_reason
        result.error_code = error_code(final_reason, refusal_kind)
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
        """Stop at once (a signal): take no more goals, cancel a running task and its goals, stop ticking.

        Nothing is destroyed here: this runs while the executor may still spin the node, and the
        process's teardown destroys the node with everything on it.
        """
        self._stop("the executive shut down")
        parts = self._parts
        if parts is not None:
            parts.timer.cancel()
            parts.interop.shutdown()


def _destroy_robots(robots: dict[str, RosRobot]) -> None:
    """Destroy the VLA robot interfaces the node made (their camera, joint-state and command topics)."""
    for robot in robots.values():
        robot.destroy()
    robots.clear()


def robot_registry(params: ExecutiveParams) -> tuple[SkillRegistry, dict[str, str]]:
    """The skills this robot can run (VLA skills too: they reach the robot over its topics), and those left out."""
    everything = SkillRegistry.discover([*default_skill_dirs(), *params.extra_skill_dirs()])
    robot = RobotCapabilities.from_yaml(params.capabilities_path())
    usable, excluded = everything.available_for(robot)
    return usable.without(excluded), excluded

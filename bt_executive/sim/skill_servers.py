"""The sim's skills served as ROS 2 ``RunSkill`` action servers, plus its world state.

One action server per scripted skill, at ``skills/<name>`` under the node's
namespace, so the executive's action-client leaves drive the sim exactly as
they would drive a robot. A goal runs one control tick at a time on an
executor thread: feedback (phase, progress, detail) goes out at
``feedback_hz`` of wall time, a cancel request stops the arm within one tick
(the execution holds position and keeps its grip), and the result carries
the ``SkillResult`` (failure kind, reason, evidence JSON). The arm runs one
skill at a time: a goal that arrives while another runs is rejected.

World state is published on ``world_state`` and answered by the
``get_world_state`` service. A fault file's ``server_crash`` takes a skill's
server down mid-goal after N goals (the goal never completes and feedback
stops, as when a process dies) and brings it back after ``restart_after_s``.

Dead-man's rule (``goal_owners.py``): a goal whose client has left the ROS
graph (its process died, so its DDS participant's lease of 1.5 s ran out, or
it destroyed its action client) is stopped within 2 s of the client's death:
the arm holds where it is, the gripper keeps its grip, and the goal is
aborted with failure kind ``aborted``, reason ``client_gone``. Other clients
of the same skill (a viewer, a second executive) do not keep it alive. Every
goal's ending goes to ``goal_record`` as a JSON line when one is given.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from rclpy.action.server import ActionServer, CancelResponse, GoalResponse, ServerGoalHandle
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node

from bt_executive.sim.backend import SimBackend
from bt_executive.sim.goal_owners import CHECK_PERIOD_S, GoalOwners
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.world_state_msg import to_msg

_Server = ActionServer[Any, Any, Any]
_GoalHandle = ServerGoalHandle[Any, Any, Any]

FEEDBACK_HZ = 10.0
"""Feedback rate in wall time; the executive's heartbeat watchdog relies on >= 5 Hz."""
WORLD_STATE_HZ = 10.0
RESULT_TIMEOUT_S = 10
"""How long a server keeps finished goals: small, since status messages carry all of them."""


def result_message(result: SkillResult) -> Any:
    """A ``RunSkill.Result`` carrying a SkillResult."""
    from bt_executive_interfaces.action import RunSkill

    msg = RunSkill.Result()
    msg.success = result.success
    msg.failure_kind = result.failure_kind.value if result.failure_kind is not None else ""
    msg.reason = result.reason
    msg.detail = result.detail
    msg.evidence_json = json.dumps(result.evidence, sort_keys=True)
    msg.duration_s = result.duration_s
    return msg


class _CrashedError(Exception):
    """Raised inside an execute callback to abandon a goal the way a dead process would."""


class SimSkillServers:
    """Every scripted skill of a SimBackend as a RunSkill action server on ``node``."""

    def __init__(
        self,
        node: Node,
        backend: SimBackend,
        *,
        feedback_hz: float = FEEDBACK_HZ,
        idle_ticks: bool = True,
        goal_record: Path | None = None,
    ) -> None:
        from bt_executive_interfaces.action import RunSkill
        from bt_executive_interfaces.msg import WorldState
        from bt_executive_interfaces.srv import GetWorldState

        self._node = node
        self._backend = backend
        self._action_type = RunSkill
        self._feedback_period = 1.0 / feedback_hz
        self._lock = threading.Lock()
        self._busy: str | None = None
        self._goals: dict[str, int] = {}
        self._group = ReentrantCallbackGroup()
        self._servers: dict[str, _Server] = {}
        self._owners: dict[str, GoalOwners] = {}
        self._record_lock = threading.Lock()
        self._record_file: TextIO | None = goal_record.open("a", encoding="utf-8") if goal_record else None
        for name in backend.skill_names():
            self._servers[name] = self._serve(name)
        state_group = MutuallyExclusiveCallbackGroup()
        self._state_pub = node.create_publisher(WorldState, "world_state", 10)
        self._state_srv = node.create_service(
            GetWorldState, "get_world_state", self._answer_world_state, callback_group=state_group
        )
        self._state_timer = node.create_timer(1.0 / WORLD_STATE_HZ, self.publish_world_state, state_group)
        self._idle_timer = None
        if idle_ticks and backend.clock == "realtime":  # keep physics running between skills, as a real world would
            self._idle_timer = node.create_timer(backend.control_dt, self._idle_tick, MutuallyExclusiveCallbackGroup())

    def _idle_tick(self) -> None:
        self._backend.idle_tick()

    def skill_names(self) -> tuple[str, ...]:
        """The skills currently served."""
        return tuple(self._servers)

    def _serve(self, name: str) -> _Server:
        server: _Server = ActionServer(
            self._node,
            self._action_type,
            f"skills/{name}",
            execute_callback=self._executor_for(name),
            goal_callback=self._goal_callback_for(name),
            cancel_callback=lambda _handle: CancelResponse.ACCEPT,
            callback_group=self._group,
            result_timeout=RESULT_TIMEOUT_S,
        )
        self._owners[name] = GoalOwners(self._node, server, self._action_type, f"skills/{name}", self._group)
        return server

    def _goal_callback_for(self, name: str) -> Callable[[Any], GoalResponse]:
        def decide(goal: Any) -> GoalResponse:
            wanted = goal.skill_id.split("/")[-1] if goal.skill_id else name
            with self._lock:
                if self._busy is not None or wanted != name:
                    return GoalResponse.REJECT
                self._busy = name
            return GoalResponse.ACCEPT

        return decide

    def _executor_for(self, name: str) -> Callable[[_GoalHandle], Any]:
        def execute(goal_handle: _GoalHandle) -> Any:
            try:
                return self._execute(name, goal_handle)
            except _CrashedError:
                return self._action_type.Result()  # never delivered: the server is gone
            finally:
                with self._lock:
                    self._busy = None

        return execute

    def _execute(self, name: str, goal_handle: _GoalHandle) -> Any:
        started = time.monotonic()
        self._goals[name] = self._goals.get(name, 0) + 1
        try:
            args = json.loads(goal_handle.request.args_json or "{}")
            if not isinstance(args, dict):
                raise ValueError("args_json must be a JSON object")
        except ValueError as err:
            goal_handle.abort()
            return result_message(SkillResult.failed(FailureKind.INVALID_PARAMS, "bad_args_json", detail=str(err)))
        execution = self._backend.start_skill(name, args)
        crash_at = self._crash_tick(name)
        goal_id = bytes(goal_handle.goal_id.uuid)
        owners = self._owners[name]
        last_feedback = float("-inf")
        next_owner_check = started + CHECK_PERIOD_S
        ticks = 0
        while True:
            if goal_handle.is_cancel_requested:
                execution.cancel("cancel_requested")
            elif time.monotonic() >= next_owner_check:
                next_owner_check = time.monotonic() + CHECK_PERIOD_S
                gone = owners.orphaned(goal_id, started)
                if gone is not None:  # the dead-man's rule: no client, no motion
                    execution.stop(FailureKind.ABORTED, "client_gone", f"the goal's client left the ROS graph ({gone})")
                    self._node.get_logger().warning(f"skills/{name}: client gone, goal aborted, arm held: {gone}")
            running = execution.step()
            ticks += 1
            if crash_at is not None and ticks >= crash_at:
                self._crash(name, execution)
            now = time.monotonic()
            if not running or now - last_feedback >= self._feedback_period:
                last_feedback = now
                self._publish_feedback(goal_handle, execution.progress.model_dump(mode="json"))
            if not running:
                break
        result = execution.result
        assert result is not None  # a finished execution always has one
        result = result.model_copy(update={"duration_s": round(time.monotonic() - started, 4)})
        # The world as this skill left it goes out before its result, so a client's next
        # condition check need not wait up to a publishing period for it.
        self.publish_world_state()
        if result.success:
            goal_handle.succeed()
        elif result.failure_kind is FailureKind.PREEMPTED and goal_handle.is_cancel_requested:
            goal_handle.canceled()
        else:
            goal_handle.abort()
        self._record_goal(name, goal_id, owners.owner(goal_id), result)
        owners.forget(goal_id)
        return result_message(result)

    def _record_goal(self, name: str, goal_id: bytes, client: bytes | None, result: SkillResult) -> None:
        """One JSON line per ended goal: what ended, why, and where the arm was left."""
        if self._record_file is None:
            return
        line = {
            "wall": time.time(),
            "sim_time": round(self._backend.sim_time, 6),
            "skill": name,
            "goal_id": goal_id.hex(),
            "client": client.hex() if client is not None else None,
            "success": result.success,
            "failure_kind": result.failure_kind.value if result.failure_kind is not None else None,
            "reason": result.reason,
            "detail": result.detail,
            "arm_q": [round(float(q), 6) for q in self._backend.reader.arm_q()],
            "arm_held": not result.success,
        }
        with self._record_lock:
            self._record_file.write(json.dumps(line, sort_keys=True) + "\n")
            self._record_file.flush()

    def _publish_feedback(self, goal_handle: _GoalHandle, progress: dict[str, Any]) -> None:
        feedback = self._action_type.Feedback()
        feedback.phase = str(progress["phase"])
        feedback.progress = float(progress["fraction"])
        feedback.detail_json = json.dumps(progress, sort_keys=True)
        goal_handle.publish_feedback(feedback)

    def _crash_tick(self, name: str) -> int | None:
        """The tick at which this goal's server dies, per the fault file (None: it does not)."""
        crash = self._backend.fault_config.server_crash if self._backend.fault_config is not None else None
        if crash is None or (crash.servers and name not in crash.servers):
            return None
        return 5 if self._goals[name] > crash.after_goals else None

    def _crash(self, name: str, execution: Any) -> None:
        """Take the server down mid-goal: the arm stops, the goal never completes, feedback stops."""
        execution.cancel("server_crashed")
        server = self._servers.pop(name)
        self._node.get_logger().warning(f"fault injection: skills/{name} server crashed mid-goal")
        server.destroy()
        self._owners.pop(name).destroy()
        crash = self._backend.fault_config.server_crash if self._backend.fault_config is not None else None
        if crash is not None and crash.restart_after_s is not None:
            timer_box: list[Any] = []

            def restart() -> None:
                timer_box[0].cancel()
                self._goals[name] = 0
                self._servers[name] = self._serve(name)
                self._node.get_logger().info(f"fault injection: skills/{name} server restarted")

            timer_box.append(self._node.create_timer(crash.restart_after_s, restart))
        raise _CrashedError(name)

    def publish_world_state(self) -> None:
        """Publish the world state now (also done at ``WORLD_STATE_HZ`` and after every skill)."""
        self._state_pub.publish(to_msg(self._backend.world_state()))

    def _answer_world_state(self, _request: Any, response: Any) -> Any:
        response.state = to_msg(self._backend.world_state())
        return response

    def destroy(self) -> None:
        """Cancel any running skill and destroy every ROS entity this object created."""
        active = self._backend.active_skill
        if active is not None:
            active.cancel("shutdown")
        for server in self._servers.values():
            server.destroy()
        self._servers.clear()
        for owners in self._owners.values():
            owners.destroy()
        self._owners.clear()
        for timer in (self._state_timer, self._idle_timer):
            if timer is not None:
                timer.destroy()
        self._state_srv.destroy()
        self._state_pub.destroy()
        with self._record_lock:
            if self._record_file is not None:
                self._record_file.close()
                self._record_file = None

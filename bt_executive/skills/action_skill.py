"""RosActionSkill: a py_trees leaf that runs one skill call as one ROS 2 action goal.

::

    Sequence "put the red cube on the plate"
    ├─ RosActionSkill "pick(red_cube)"     goal -> skills/pick      (bt_executive_interfaces/action/RunSkill)
    └─ RosActionSkill "place_on(plate)"    goal -> skills/place_on

Any action type a manifest names (``pkg/action/Name``) works; the goal is
built through the manifest's ``field_mapping`` (see ``ros_goal``).

Lifecycle, one goal per run of the leaf:

- ``initialise``: validate the call's arguments against the skill's schema
  (bad -> FAILURE ``invalid_params``, nothing sent), merge them over the
  default goal, build the goal message, and send it with ``send_goal_async``
  (or wait for the server, see below).
- ``update`` never blocks: it looks at futures (``done()``), copies the
  latest feedback to the blackboard, and returns RUNNING, SUCCESS or FAILURE
  with ``self.result`` set to a ``SkillResult``.
- ``terminate(INVALID)`` while a goal is in flight (the tree halted the
  leaf) sends a cancel request for it and records ``preempted``.

How each ending maps onto ``SkillResult.failure_kind``:

==========================================  ============================
server's result (RunSkill contract)          its ``failure_kind``, parsed; unknown strings -> ``unknown``
SUCCEEDED and ``success``                    success
ABORTED / CANCELED with no failure kind      ``aborted`` / ``preempted``
goal request answered "rejected"             ``rejected``
no server within ``server_wait_s`` (2 s)     ``server_unavailable`` (checked across ticks)
no goal response after every retry           ``server_unavailable``
server gone mid-goal                         ``server_unavailable`` (see below)
deadline (manifest ``timeout_s``) passed     ``timeout``, and the goal is cancelled
halted by the tree                           ``preempted``, and the goal is cancelled
arguments invalid / goal cannot be built     ``invalid_params``, nothing sent
==========================================  ============================

``duration_s`` is measured by the leaf, from ``initialise`` to the tick that saw the
ending. For action types without the RunSkill result fields, ``success`` follows
the goal status and the evidence is the whole result message.

Blackboard: each leaf writes two keys under ``options.blackboard_prefix``
(default ``/skills``) and its ``key`` (default: the skill's name, e.g.
``pick``; a compiler gives each step its own, e.g. ``step_1``):
``/skills/<key>/feedback`` holds the latest ``SkillFeedback`` (phase,
progress, detail) and ``/skills/<key>/result`` the final ``SkillResult``.
Both are written on the tick thread only.

Server death: a killed server stops publishing feedback, its result never
comes, and Fast DDS keeps ``server_is_ready()`` True for its participant's
lease (20 s by default). Servers publish feedback at >= 5 Hz, so the leaf
keeps a heartbeat watchdog: no feedback for ``heartbeat_timeout_s`` (1.5 s)
while the goal runs, or ``server_is_ready()`` turning False (looked up every
0.1 s, also while a goal request waits for its answer), ends the goal as
``server_unavailable``. Processes started with
``with_short_lease()`` load ``config/fastdds_profile.xml`` (lease 1.5 s,
announced every 0.25 s), which makes ``server_is_ready()`` turn False ~1.5 s
after the kill instead of 20 s.

Detection bound: ``heartbeat_timeout_s`` after the server's last feedback,
plus one tick; since that feedback came before the death, at most 1.5 s + one
tick after it. Measured (``os._exit`` mid-goal, feedback at 10 Hz, 10 ms
ticks, 6 runs): 1.41-1.50 s through the heartbeat; with the heartbeat off,
1.94-1.99 s through the 2 s lease this profile had then (1.5 s now).
tests/ros/test_action_skill.py checks < 2 s.

Fast DDS waits only 100 ms for a new client's reply channel, so a goal
response can be lost right after discovery. A goal the server accepted is
still listed on its status topic (transient local): a request whose goal is
listed there is adopted as if its answer had come (``adopt_reported`` in
action_client_pool), so the goal that runs is the one the leaf watches.
A request that gets neither within ``goal_response_timeout_s`` (5 s), such
as a lost rejection, is sent again with a new goal id, up to
``goal_request_attempts`` (3) times; any other attempt that the server did
accept is cancelled. The bound is long because a request sent again while the
first is merely slow is a second goal the server accepts and starts (a second
home move, a second pick) before its cancel arrives: under two CPU hogs a
0.5 s bound did exactly that. A result that does not arrive within
``result_request_timeout_s`` of the status topic saying the goal ended is
requested again.

Threading: rclpy callbacks (feedback, future done-callbacks) run on the
executor's threads; ``initialise``/``update``/``terminate`` run on the tick
thread. The tick thread owns every field except the few the feedback callback
writes (latest feedback, heartbeat time), which sit behind ``self._lock``;
futures are polled with ``done()``, never waited on. The caller owns the node
and the executor that spins it.

One client per action per node: leaves do not make action clients, they take
the node's shared one (``action_client_pool``), made on first use (safe even
while the executor spins), so thousands of tasks leave the node's wait set and
DDS endpoints as they were. Every run ends by releasing what it left in the
shared client (feedback callbacks, unanswered result requests, goal handles of
its goal ids), whichever way it ended: result, failure, timeout, preemption.
``shutdown()`` (py_trees' tree shutdown) only cancels; the shared clients are
freed with their node (``action_client_pool.destroy_clients``).
"""

from __future__ import annotations

import enum
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import py_trees
from action_msgs.msg import GoalStatus
from pydantic import BaseModel, ConfigDict, Field, JsonValue
from rclpy.action.client import ClientGoalHandle
from rclpy.node import Node
from rclpy.task import Future
from unique_identifier_msgs.msg import UUID

from bt_executive.runtime.paths import config_dir
from bt_executive.skills.action_client_pool import ReportedGoalHandle, clients_of, shared_action_client
from bt_executive.skills.call import SkillCall, SkillResult
from bt_executive.skills.call import SkillFeedback as SkillFeedback  # re-exported: it lived here first
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.leaf import LeafEntries, check_leaf_inputs
from bt_executive.skills.manifest import SkillKind, SkillManifest
from bt_executive.skills.parameters import InvalidArguments, goal_arguments
from bt_executive.skills.ros_goal import GoalBuildError, build_goal, goal_values, import_action_type, message_to_data

FASTDDS_PROFILES_ENV = "FASTDDS_DEFAULT_PROFILES_FILE"
_log = logging.getLogger(__name__)
"""Python logging, not the node's logger: rclpy's finds its caller's source file (~0.2 s) on every call."""
_REASON_MAX = 200
_DETAIL_MAX = 4000
_LIVENESS_CHECK_PERIOD_S = 0.1
"""How often a running goal's server is looked up in the graph (the heartbeat covers the rest)."""
_TERMINAL = frozenset({GoalStatus.STATUS_SUCCEEDED, GoalStatus.STATUS_CANCELED, GoalStatus.STATUS_ABORTED})

_GoalHandle = ClientGoalHandle[Any, Any, Any]


def fastdds_profile_path() -> Path:
    """``config/fastdds_profile.xml``: the short participant lease that makes a dead server visible in ~1.5 s."""
    return config_dir() / "fastdds_profile.xml"


def with_short_lease(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of ``env`` (default: ``os.environ``) for a ROS process we start, loading the short-lease profile.

    A ``FASTDDS_DEFAULT_PROFILES_FILE`` the caller already set is kept: an integrator's own
    profile wins. Fast DDS reads the variable when the process creates its first participant.
    """
    result = dict(os.environ if env is None else env)
    profile = fastdds_profile_path()
    if profile.is_file():
        result.setdefault(FASTDDS_PROFILES_ENV, str(profile))
    return result


class ActionSkillOptions(BaseModel):
    """The bounds a RosActionSkill works within; defaults suit servers that publish feedback at >= 5 Hz."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    server_wait_s: float = Field(default=2.0, gt=0.0, description="how long to wait for the server to appear")
    heartbeat_timeout_s: float | None = Field(
        default=1.5,
        gt=0.0,
        description="no feedback for this long while the goal runs means the server is gone; None turns it off",
    )
    timeout_s: float | None = Field(default=None, gt=0.0, description="deadline; None uses the manifest's timeout_s")
    goal_response_timeout_s: float = Field(default=5.0, gt=0.0, description="resend a goal unanswered this long")
    goal_request_attempts: int = Field(default=3, ge=1, le=10)
    result_request_timeout_s: float = Field(default=0.5, gt=0.0, description="re-request a result this late")
    result_request_attempts: int = Field(default=3, ge=1, le=10)
    blackboard_prefix: str = Field(default="/skills", pattern=r"^/[A-Za-z0-9_/]*$")


class _Phase(enum.Enum):
    IDLE = "idle"
    WAITING_FOR_SERVER = "waiting_for_server"
    SENDING = "sending"
    ACTIVE = "active"
    FINISHED = "finished"


_IN_FLIGHT = frozenset({_Phase.WAITING_FOR_SERVER, _Phase.SENDING, _Phase.ACTIVE})


@dataclass
class _Attempt:
    """One goal request: its goal id, the future of its response, when it went out."""

    goal_id: Any  # unique_identifier_msgs/UUID
    future: Future[_GoalHandle]
    sent_at: float

    @property
    def key(self) -> bytes:
        return bytes(self.goal_id.uuid)


def open_action_clients(node: Node, manifests: Iterable[SkillManifest]) -> int:
    """Make the node's shared client of every ros_action manifest now; how many clients the node has.

    An executive that does this at start has its wait set and DDS endpoints at their final
    size before the first task, and its servers discovered before the first goal.
    """
    for manifest in manifests:
        if manifest.kind is SkillKind.ROS_ACTION and manifest.ros is not None:
            shared_action_client(node, import_action_type(manifest.ros.action_type), manifest.ros.action_name)
    return len(clients_of(node))


def parse_failure_kind(text: str) -> FailureKind | None:
    """A server's failure kind string as a FailureKind: empty -> None, unknown -> ``unknown``."""
    text = text.strip()
    if not text:
        return None
    try:
        return FailureKind(text)
    except ValueError:
        return FailureKind.UNKNOWN


_FAILED_STATUS_DEFAULTS: dict[int, tuple[FailureKind, str]] = {
    GoalStatus.STATUS_SUCCEEDED: (FailureKind.UNKNOWN, "failed_without_kind"),  # success=False in the result
    GoalStatus.STATUS_ABORTED: (FailureKind.ABORTED, "aborted_by_server"),
    GoalStatus.STATUS_CANCELED: (FailureKind.PREEMPTED, "canceled_by_server"),
}
"""Failure kind and reason for a finished goal whose result does not name them."""


def skill_result_from_action(status: int, result: Any, duration_s: float) -> SkillResult:
    """Map a finished goal (its GoalStatus and result message) onto a SkillResult."""
    fields = _field_names(result)
    reason = _clip(str(result.reason), _REASON_MAX) if "reason" in fields else ""
    detail = _clip(str(result.detail), _DETAIL_MAX) if "detail" in fields else ""
    if "evidence_json" in fields:
        evidence = _json_object(str(result.evidence_json), "evidence_json")
    elif result is not None:
        evidence = message_to_data(result)
    else:
        evidence = {}
    kind = parse_failure_kind(str(result.failure_kind)) if "failure_kind" in fields else None
    duration_s = max(0.0, duration_s)
    if status == GoalStatus.STATUS_SUCCEEDED and (bool(result.success) if "success" in fields else True):
        return SkillResult.ok(reason or "done", detail=detail, evidence=evidence, duration_s=duration_s)
    if status in _FAILED_STATUS_DEFAULTS:
        default_kind, default_reason = _FAILED_STATUS_DEFAULTS[status]
        return SkillResult.failed(
            kind or default_kind, reason or default_reason, detail=detail, evidence=evidence, duration_s=duration_s
        )
    return SkillResult.failed(
        FailureKind.SERVER_UNAVAILABLE,
        "goal_unknown_to_server",
        detail=f"the server answered the result request with goal status {status} (it no longer knows the goal)",
        duration_s=duration_s,
    )


def _field_names(message: Any) -> frozenset[str]:
    if message is None or not hasattr(message, "get_fields_and_field_types"):
        return frozenset()
    return frozenset(message.get_fields_and_field_types())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _json_object(text: str, what: str) -> dict[str, JsonValue]:
    """A JSON object string as a dict; anything else is kept as text under ``unparsed_<what>``."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {f"unparsed_{what}": _clip(text, _DETAIL_MAX)}
    if isinstance(value, dict):
        parsed: dict[str, JsonValue] = value
        return parsed
    return {"value": value}


def feedback_from_message(feedback: Any) -> SkillFeedback:
    """A feedback message as SkillFeedback: RunSkill's phase/progress/detail_json, or every field as detail."""
    fields = _field_names(feedback)
    if "detail_json" in fields:
        detail = _json_object(str(feedback.detail_json), "detail_json")
    else:
        detail = message_to_data(feedback)
    progress = float(feedback.progress) if "progress" in fields else None
    phase = str(feedback.phase) if "phase" in fields else ""
    return SkillFeedback(phase=phase, progress=progress, detail=detail)


class RosActionSkill(py_trees.behaviour.Behaviour):
    """A leaf that runs ``call`` as a goal on the manifest's ROS 2 action and ends in a SkillResult."""

    def __init__(
        self,
        manifest: SkillManifest,
        call: SkillCall,
        node: Node,
        options: ActionSkillOptions | None = None,
        *,
        name: str | None = None,
        key: str | None = None,
        wake: Callable[[], None] | None = None,
    ) -> None:
        """``wake`` is called (on an executor thread) when a goal response or a result arrives, so the
        owner can tick now instead of at its next period."""
        if manifest.kind is not SkillKind.ROS_ACTION or manifest.ros is None:
            raise ValueError(f"{manifest.id} is a {manifest.kind.value} skill, not a ros_action skill")
        check_leaf_inputs(manifest, call)
        super().__init__(name or call.label())
        self.manifest = manifest
        self.call = call
        self.options = options or ActionSkillOptions()
        self.node = node
        self._wake = wake
        self.timeout_s = self.options.timeout_s or manifest.timeout_s
        self._binding = manifest.ros
        self._action_type = import_action_type(manifest.ros.action_type)
        self._client = shared_action_client(node, self._action_type, manifest.ros.action_name)

        self.entries = LeafEntries(self, self.options.blackboard_prefix, key or manifest.name)

        # Shared with the executor's threads: only under self._lock.
        self._lock = threading.Lock()
        self._run = 0
        self._adopted: bytes | None = None
        self._heartbeat_at = 0.0
        self._pending_feedback: SkillFeedback | None = None

        # The tick thread's own state.
        self.result: SkillResult | None = None
        self.feedback: SkillFeedback | None = None
        self.goal_id: str | None = None
        self._phase = _Phase.IDLE
        self._goal: Any = None
        self._started = 0.0
        self._deadline = 0.0
        self._server_deadline = 0.0
        self._attempts: list[_Attempt] = []
        self._handle: _GoalHandle | None = None
        self._result_futures: list[Future[Any]] = []
        self._goal_keys: list[bytes] = []
        """Every goal id this run sent: what the run releases in the shared client when it ends."""
        self._terminal_seen_at: float | None = None
        self._next_liveness_check = 0.0

    # py_trees lifecycle -------------------------------------------------------------------------

    def initialise(self) -> None:
        """Start a run: validate and build the goal, then send it (or wait for the server)."""
        now = time.monotonic()
        with self._lock:
            self._run += 1
            self._adopted = None
            self._heartbeat_at = now
            self._pending_feedback = None
        self.result = None
        self.feedback = None
        self.goal_id = None
        self._goal = None
        self._attempts = []
        self._handle = None
        self._result_futures = []
        self._goal_keys = []
        self._terminal_seen_at = None
        self._started = now
        self._deadline = now + self.timeout_s
        self._server_deadline = now + self.options.server_wait_s
        try:
            merged = goal_arguments(self.manifest, self.call.args)
            self._goal = build_goal(self._action_type.Goal, goal_values(self._binding, self.call, merged))
        except InvalidArguments as err:
            evidence: dict[str, JsonValue] = {"errors": [{"path": p, "reason": r} for p, r in err.errors]}
            self._finish(FailureKind.INVALID_PARAMS, "invalid_arguments", now, detail=str(err), evidence=evidence)
            return
        except GoalBuildError as err:
            self._finish(FailureKind.INVALID_PARAMS, "goal_not_buildable", now, detail=str(err))
            return
        if self._client.server_is_ready():
            self._send(now)
        else:
            self._phase = _Phase.WAITING_FOR_SERVER

    def update(self) -> py_trees.common.Status:
        """Look at the goal's futures without waiting; RUNNING until the goal ends one way or another."""
        if self._phase is _Phase.FINISHED:
            return self._final_status()
        now = time.monotonic()
        self._take_feedback()
        if self._phase is _Phase.ACTIVE:
            done = next((future for future in self._result_futures if future.done()), None)
            if done is not None:
                return self._complete(done, now)
        if now >= self._deadline:
            self._cancel_goals()
            return self._fail(FailureKind.TIMEOUT, "deadline_exceeded", now, f"no result within {self.timeout_s:g} s")
        if self._phase is _Phase.WAITING_FOR_SERVER:
            return self._wait_for_server(now)
        if self._phase is _Phase.SENDING:
            return self._check_goal_responses(now)
        if self._phase is _Phase.ACTIVE:
            return self._watch(now)
        return py_trees.common.Status.INVALID  # IDLE: py_trees always initialises first

    def terminate(self, new_status: py_trees.common.Status) -> None:
        """Halted while a goal is in flight (``INVALID``): cancel it and record ``preempted``."""
        if new_status == py_trees.common.Status.INVALID and self._phase in _IN_FLIGHT:
            self._cancel_goals()
            self._finish(FailureKind.PREEMPTED, "preempted", time.monotonic(), detail="halted by the tree")

    def shutdown(self) -> None:
        """Tree shutdown: cancel a goal still in flight and record ``preempted``; the client stays (see destroy)."""
        if self._phase in _IN_FLIGHT:
            self._cancel_goals()
            self._finish(FailureKind.PREEMPTED, "shutdown", time.monotonic(), detail="the tree shut down")

    def destroy(self) -> None:
        """Let go of this leaf's goals in the shared client; the client itself stays with the node.

        The node's clients are shared by every leaf of their skill, so a leaf never destroys
        one: ``action_client_pool.destroy_clients(node)`` does, once the executor has stopped.
        """
        self._release()

    # introspection -------------------------------------------------------------------------------

    def server_is_ready(self) -> bool:
        """Whether an action server for this skill is discovered (cheap: a graph lookup)."""
        return bool(self._client.server_is_ready())

    @property
    def answer_lost(self) -> bool:
        """Whether this run's goal was adopted from the status topic and its goal response has not come (yet)."""
        return isinstance(self._handle, ReportedGoalHandle) and not any(a.future.done() for a in self._attempts)

    @property
    def action_name(self) -> str:
        """The action name as the manifest gives it (resolved against the node's namespace)."""
        return self._binding.action_name

    # the run's steps -----------------------------------------------------------------------------

    def _wait_for_server(self, now: float) -> py_trees.common.Status:
        if self._client.server_is_ready():
            self._send(now)
            return py_trees.common.Status.RUNNING
        if now >= self._server_deadline:
            return self._fail(
                FailureKind.SERVER_UNAVAILABLE,
                "no_server",
                now,
                f"no action server for {self.action_name} within {self.options.server_wait_s:g} s",
            )
        return py_trees.common.Status.RUNNING

    def _send(self, now: float) -> None:
        goal_id = UUID(uuid=list(uuid.uuid4().bytes))
        callback = partial(self._on_feedback, self._run, bytes(goal_id.uuid))
        future = self._client.send_goal_async(self._goal, feedback_callback=callback, goal_uuid=goal_id)
        self._wake_on(future)
        self._attempts.append(_Attempt(goal_id, future, now))
        self._goal_keys.append(bytes(goal_id.uuid))
        # The id of the latest request, so a goal cancelled before its answer came is still named.
        self.goal_id = uuid.UUID(bytes=bytes(goal_id.uuid)).hex
        self._phase = _Phase.SENDING

    def _wake_on(self, future: Future[Any]) -> Future[Any]:
        """Have ``future``'s completion wake the owner's tick (when it gave a ``wake``)."""
        if self._wake is not None:
            wake = self._wake
            future.add_done_callback(lambda _done: wake())
        return future

    def _check_goal_responses(self, now: float) -> py_trees.common.Status:
        pending = []
        rejected = False
        for attempt in self._attempts:
            if not attempt.future.done():
                pending.append(attempt)
                continue
            handle = attempt.future.result()
            if handle is not None and handle.accepted:
                self._adopt(attempt, handle, now)
                return self._watch(now)
            rejected = True
        for attempt in pending:
            handle = self._reported_handle(attempt)
            if handle is not None:
                _log.info(
                    "%s: %s lists goal %s, whose answer has not come: adopted",
                    self.name,
                    self.action_name,
                    uuid.UUID(bytes=attempt.key).hex,
                )
                self._adopt(attempt, handle, now)
                return self._watch(now)
        if self._server_gone(now):
            # Without this, a server that dies before its answer comes is found only after every resend.
            self._abandon_attempts(keep=None)
            return self._fail(
                FailureKind.SERVER_UNAVAILABLE,
                "server_gone",
                now,
                f"{self.action_name} disappeared before it answered the goal request",
            )
        timeout = self.options.goal_response_timeout_s
        if rejected and all(now - attempt.sent_at >= timeout for attempt in pending):
            # Answers can come late: a rejection is final once no request is still within its answer time.
            self._abandon_attempts(keep=None)
            return self._fail(FailureKind.REJECTED, "goal_rejected", now, f"{self.action_name} rejected the goal")
        if rejected or now - self._attempts[-1].sent_at < timeout:
            return py_trees.common.Status.RUNNING
        if len(self._attempts) < self.options.goal_request_attempts:
            _log.warning("%s: no goal response from %s in %g s; sending it again", self.name, self.action_name, timeout)
            self._send(now)
            return py_trees.common.Status.RUNNING
        self._abandon_attempts(keep=None)
        return self._fail(
            FailureKind.SERVER_UNAVAILABLE,
            "no_goal_response",
            now,
            f"{self.action_name} answered none of {len(self._attempts)} goal requests ({timeout:g} s each)",
        )

    def _reported_handle(self, attempt: _Attempt) -> _GoalHandle | None:
        """A handle for an unanswered request whose goal the server's status topic lists (it was accepted)."""
        adopt_reported = getattr(self._client, "adopt_reported", None)  # a test may script the client
        return adopt_reported(attempt.goal_id) if adopt_reported is not None else None

    def _adopt(self, attempt: _Attempt, handle: _GoalHandle, now: float) -> None:
        with self._lock:
            self._adopted = attempt.key
            self._heartbeat_at = now
        self._handle = handle
        self.goal_id = uuid.UUID(bytes=attempt.key).hex
        self._abandon_attempts(keep=attempt)
        self._result_futures.append(self._wake_on(handle.get_result_async()))
        self._phase = _Phase.ACTIVE

    def _watch(self, now: float) -> py_trees.common.Status:
        """An accepted goal without a result yet: is the server still there?"""
        handle = self._handle
        assert handle is not None  # ACTIVE always has one
        if handle.status in _TERMINAL:  # the status topic says it ended: the result is on its way
            if self._terminal_seen_at is None:
                self._terminal_seen_at = now
            elif now - self._terminal_seen_at >= self.options.result_request_timeout_s:
                if len(self._result_futures) >= self.options.result_request_attempts:
                    self._cancel_goals()
                    return self._fail(FailureKind.SERVER_UNAVAILABLE, "no_result", now, "the result never arrived")
                self._terminal_seen_at = now
                self._result_futures.append(self._wake_on(handle.get_result_async()))
            return py_trees.common.Status.RUNNING
        heartbeat = self.options.heartbeat_timeout_s
        if heartbeat is not None:
            with self._lock:
                silent_for = now - self._heartbeat_at
            if silent_for > heartbeat:
                self._cancel_goals()
                return self._fail(
                    FailureKind.SERVER_UNAVAILABLE,
                    "no_feedback",
                    now,
                    f"no feedback from {self.action_name} for {silent_for:.2f} s (heartbeat {heartbeat:g} s)",
                )
        if self._server_gone(now):
            self._cancel_goals()
            return self._fail(FailureKind.SERVER_UNAVAILABLE, "server_gone", now, f"{self.action_name} disappeared")
        return py_trees.common.Status.RUNNING

    def _server_gone(self, now: float) -> bool:
        """Whether the server has left the graph, looked up at most every ``_LIVENESS_CHECK_PERIOD_S``."""
        if now < self._next_liveness_check:
            return False
        # A graph lookup that releases the GIL, so a tick may wait to get it back: not every tick.
        self._next_liveness_check = now + _LIVENESS_CHECK_PERIOD_S
        return not self._client.server_is_ready()

    def _complete(self, future: Future[Any], now: float) -> py_trees.common.Status:
        response = future.result()
        status = response.status if response is not None else GoalStatus.STATUS_UNKNOWN
        result = response.result if response is not None else None
        self._record(skill_result_from_action(status, result, now - self._started))
        return self._final_status()

    # cancelling ----------------------------------------------------------------------------------

    def _cancel_goals(self) -> None:
        """Ask the server to cancel whatever this run sent (non-blocking: the request goes out now)."""
        if self._handle is None:
            self._abandon_attempts(keep=None)
        elif self._handle.status not in _TERMINAL:
            self._handle.cancel_goal_async()

    def _abandon_attempts(self, keep: _Attempt | None) -> None:
        """Make sure no goal request but ``keep`` leaves a goal running on the server."""
        for attempt in self._attempts:
            if attempt is keep:
                continue
            if attempt.future.done():
                handle = attempt.future.result()
                if handle is not None and handle.accepted and handle.status not in _TERMINAL:
                    handle.cancel_goal_async()
                continue
            # Unanswered: cancel it if it is accepted later, and now in case its answer was lost.
            attempt.future.add_done_callback(_cancel_if_accepted)
            ClientGoalHandle(self._client, attempt.goal_id, self._accepted_response()).cancel_goal_async()
        self._attempts = [keep] if keep is not None else []

    def _accepted_response(self) -> Any:
        return self._action_type.Impl.SendGoalService.Response(accepted=True)

    # feedback (executor thread) and results (tick thread) --------------------------------------

    def _on_feedback(self, run: int, goal_key: bytes, message: Any) -> None:
        """Feedback callback, on an executor thread: keep the latest report and the heartbeat."""
        try:
            feedback = feedback_from_message(message.feedback)
        except ValueError:  # a malformed report still proves the server is alive
            feedback = None
        now = time.monotonic()
        with self._lock:
            if run != self._run or (self._adopted is not None and goal_key != self._adopted):
                return
            self._heartbeat_at = now
            if feedback is not None:
                self._pending_feedback = feedback

    def _take_feedback(self) -> None:
        with self._lock:
            feedback, self._pending_feedback = self._pending_feedback, None
        if feedback is not None:
            self.feedback = feedback
            self.entries.feedback(feedback)

    def _fail(self, kind: FailureKind, reason: str, now: float, detail: str) -> py_trees.common.Status:
        self._finish(kind, reason, now, detail=detail)
        return self._final_status()

    def _finish(
        self,
        kind: FailureKind,
        reason: str,
        now: float,
        *,
        detail: str = "",
        evidence: dict[str, JsonValue] | None = None,
    ) -> None:
        result = SkillResult.failed(
            kind, reason, detail=_clip(detail, _DETAIL_MAX), evidence=evidence or {}, duration_s=now - self._started
        )
        self._record(result)

    def _record(self, result: SkillResult) -> None:
        self.result = result
        self._phase = _Phase.FINISHED
        self.entries.result(result)
        self._release()

    def _release(self) -> None:
        """The run ended: forget its goals in the shared client, so nothing there keeps this leaf alive.

        A server that is gone never answers the result requests: those go now. Otherwise they stay
        until answered (a cancelled goal's result comes in milliseconds), so that no late answer
        arrives unexpected; the client drops any request left unanswered for long.
        """
        server_gone = self.result is not None and self.result.failure_kind is FailureKind.SERVER_UNAVAILABLE
        release = getattr(self._client, "release", None)  # a test may script the client
        if release is not None:
            release(self._goal_keys, self._result_futures if server_gone else ())
        with self._lock:
            self._adopted = None
            self._pending_feedback = None
        self._goal_keys = []
        self._result_futures = []

    def _final_status(self) -> py_trees.common.Status:
        if self.result is not None and self.result.success:
            return py_trees.common.Status.SUCCESS
        return py_trees.common.Status.FAILURE


def _cancel_if_accepted(future: Future[_GoalHandle]) -> None:
    """Done-callback for an abandoned goal request: a goal accepted after all is cancelled at once."""
    handle = future.result()
    if handle is not None and handle.accepted:
        handle.cancel_goal_async()

"""VlaSkill: a py_trees leaf that runs one call as a closed perception-action loop driven by a policy.

::

    Sequence "tidy up"
    └─ VlaSkill "vla_manipulate(blue_cube, bowl)"
           worker thread:  observe -> policy.infer -> chunk -> act, act, act ... -> observe -> ...
           tick thread:    update() reads the worker's progress; never waits on it

The loop, on a worker thread started by ``initialise`` (a tick never waits on
a policy, a socket or the robot):

1. the prompt is the manifest's ``prompt_template`` formatted with the call's
   arguments and ``prompt``; the success check is the manifest's
   ``success_check`` bound to the arguments (``conditions.bind``);
2. observe (camera frames, proprioception), ask the policy for a chunk of
   actions, apply them one per control period (``1 / control_rate_hz``)
   through ``RobotInterface.act``;
3. re-query every ``replan_steps`` actions, not only when the chunk runs out
   (the tail of a chunk was predicted from an older observation);
4. a chunk that arrives more than ``max_chunk_latency_s`` after its
   observation was handed to the policy (default: two control periods) is
   *stale*: it is discarded, never executed, counted in the evidence, and the
   policy is asked again from a fresh observation. ``max_stale_chunks`` stale
   chunks in a row end the run as ``policy_error`` / ``stale_chunks``;
5. after every action the success check is evaluated on
   ``robot.world_state()``.

How a run ends:

==========================================  ==========================================
the success check holds                     SUCCESS (also before the first action)
``step_limit`` actions applied              FAILURE ``timeout`` / ``step_limit``
wall-clock deadline (``timeout_s``)         FAILURE ``timeout`` / ``deadline_exceeded``
policy raised, server traceback, dropped    FAILURE ``policy_error`` (reason from the
connection, malformed chunk                 ``PolicyError``; detail holds the traceback)
no policy server reachable                  FAILURE ``server_unavailable``
no fresh frame or joint state in time       FAILURE ``sensor_stale`` (evidence: which, how old)
arguments invalid / prompt unformattable    FAILURE ``invalid_params``, nothing moves
the robot raised (e.g. the sim is busy)     FAILURE ``aborted`` / ``robot_error``
halted by the tree (``terminate(INVALID)``)  ``preempted``; the robot holds still
==========================================  ==========================================

A manifest without a ``success_check`` has nothing to stop on but its step
limit, so there reaching ``step_limit`` is SUCCESS (reason ``step_limit``,
evidence ``success_check: null``): the skill means "run the policy for this
long".

Time: the loop does not sleep by default. In the sim, ``act`` advances sim
time by one period (lockstep), so the control rate is a rate in sim time and
the loop runs as fast as the CPU allows; staleness is measured in wall time,
because that is the time a real policy server's latency spends.
``VlaOptions.realtime`` paces actions to wall time (one per period, on a
fixed grid: an action that goes out late does not delay the next slot) for a
robot whose ``act`` does not block for its period: ``RosRobot``, which
publishes each action on the manifest's command topic and returns.

Evidence of a run also carries the loop's own figures: the control rate it
achieved (wall time, first to last action), the observation age at
inference (median, p99; 0 in process) and, in ``last_stats``, the wall
times of each policy answer and the action that followed it.

Stopping: on preemption or the deadline the tick thread sets the run's stop
flag and calls ``robot.hold()`` (cheap), and drops the connection of a policy
client the leaf opened itself, which unblocks a worker waiting on the server.
A worker stuck inside an in-process policy is abandoned (it is a daemon
thread, and it checks the flag before every action): at most the action it
was applying completes, then it holds the robot too.

Blackboard: like ``RosActionSkill``, ``/skills/<key>/feedback`` (a
``SkillFeedback``: phase ``connecting`` / ``querying`` / ``acting``, progress
as steps over the step limit, counters in ``detail``) and
``/skills/<key>/result``, written on the tick thread only.
"""

from __future__ import annotations

import logging
import statistics
import string
import threading
import time
import traceback
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import py_trees
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bt_executive.skills.call import SkillCall, SkillFeedback, SkillResult
from bt_executive.skills.conditions import bind, holds
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.leaf import LeafEntries, check_leaf_inputs
from bt_executive.skills.manifest import SkillKind, SkillManifest, VlaBinding
from bt_executive.skills.parameters import InvalidArguments, validate_arguments
from bt_executive.skills.policy import Policy, PolicyError, PolicyObservation, check_chunk, load_policy
from bt_executive.skills.policy_client import PolicyClient
from bt_executive.skills.predicates import Predicate
from bt_executive.skills.robot_interface import RobotInterface, SensorStale

_log = logging.getLogger(__name__)
_DETAIL_MAX = 4000
_REASON_MAX = 200
RELEASE_JOIN_S = 1.0
"""How long releasing a leaf waits for its worker: a stopped loop ends within one control period."""


class VlaOptions(BaseModel):
    """The bounds a VlaSkill works within; ``None`` fields take the manifest's values."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cameras: tuple[str, ...] | None = Field(
        default=None, description="cameras in each observation; None: the manifest's vla.robot.cameras"
    )
    max_chunk_latency_s: float | None = Field(
        default=None, gt=0.0, description="a chunk later than this after its observation is discarded; None: 2 periods"
    )
    max_stale_chunks: int = Field(default=10, ge=1, description="stale chunks in a row that end the run")
    timeout_s: float | None = Field(default=None, gt=0.0, description="wall-clock deadline; None: manifest timeout_s")
    step_limit: int | None = Field(default=None, ge=1, description="None: the manifest's vla.step_limit")
    replan_steps: int | None = Field(default=None, ge=1, description="None: the manifest's vla.replan_steps")
    realtime: bool = Field(default=False, description="pace actions to wall time, one per control period")
    connect_timeout_s: float = Field(default=5.0, gt=0.0, description="to reach a policy server")
    blackboard_prefix: str = "/skills"


@dataclass
class _Run:
    """One run of the leaf: shared by the tick thread and that run's worker, under ``lock``."""

    started: float
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    result: SkillResult | None = None
    feedback: SkillFeedback | None = None
    client: PolicyClient | None = None
    """A client this run opened itself (so the tick thread may drop its connection)."""

    def finish(self, result: SkillResult) -> bool:
        """Record the ending unless one is recorded already; whether this call recorded it."""
        with self.lock:
            if self.result is not None:
                return False
            self.result = result
            return True


@dataclass
class _Stats:
    """What the worker counts, for feedback and evidence."""

    steps: int = 0
    queries: int = 0
    discarded: int = 0
    latencies_s: list[float] = field(default_factory=list)
    discarded_latencies_s: list[float] = field(default_factory=list)
    observation_bytes: int = 0
    observation_ages_s: list[float] = field(default_factory=list)
    """Age of each observation handed to the policy (oldest part), wall seconds."""
    acted_at: list[float] = field(default_factory=list)
    """``time.monotonic()`` of every action handed to the robot."""
    answers: list[tuple[float, float]] = field(default_factory=list)
    """Per executed chunk: ``time.time()`` of the policy's answer, and of its first action handed to the robot."""

    def achieved_rate_hz(self) -> float | None:
        """Actions per wall second, first to last (None with fewer than two)."""
        if len(self.acted_at) < 2 or self.acted_at[-1] <= self.acted_at[0]:
            return None
        return (len(self.acted_at) - 1) / (self.acted_at[-1] - self.acted_at[0])

    def evidence(self) -> dict[str, JsonValue]:
        """JSON-friendly counters for ``SkillResult.evidence``."""
        latencies = self.latencies_s or [0.0]
        ages = sorted(self.observation_ages_s) or [0.0]
        rate = self.achieved_rate_hz()
        evidence: dict[str, JsonValue] = {
            "steps": self.steps,
            "queries": self.queries,
            "discarded_chunks": self.discarded,
            "latency_ms": {
                "median": round(statistics.median(latencies) * 1e3, 3),
                "max": round(max(latencies) * 1e3, 3),
            },
            "control_rate_hz": round(rate, 3) if rate is not None else None,
            "observation_age_ms": {
                "median": round(statistics.median(ages) * 1e3, 3),
                "p99": round(ages[min(len(ages) - 1, int(0.99 * len(ages)))] * 1e3, 3),
            },
        }
        if self.discarded_latencies_s:
            evidence["discarded_latency_ms"] = [round(s * 1e3, 3) for s in self.discarded_latencies_s[:20]]
        return evidence


class VlaSkill(py_trees.behaviour.Behaviour):
    """A leaf that runs ``call`` as a policy-driven control loop on ``robot`` and ends in a SkillResult."""

    def __init__(
        self,
        manifest: SkillManifest,
        call: SkillCall,
        robot: RobotInterface,
        policy: Policy | None = None,
        options: VlaOptions | None = None,
        *,
        name: str | None = None,
        key: str | None = None,
    ) -> None:
        if manifest.kind is not SkillKind.VLA or manifest.vla is None:
            raise ValueError(f"{manifest.id} is a {manifest.kind.value} skill, not a vla skill")
        check_leaf_inputs(manifest, call)
        super().__init__(name or call.label())
        self.manifest = manifest
        self.call = call
        self.robot = robot
        self.options = options or VlaOptions()
        self.binding: VlaBinding = manifest.vla
        self.period_s = 1.0 / self.binding.control_rate_hz
        self.timeout_s = self.options.timeout_s or manifest.timeout_s
        self.step_limit = self.options.step_limit or self.binding.step_limit
        self.replan_steps = self.options.replan_steps or self.binding.replan_steps
        self.max_latency_s = self.options.max_chunk_latency_s or 2.0 * self.period_s
        self.cameras = self.options.cameras or tuple(self.binding.robot.cameras)
        self._policy = policy
        self._policy_lock = threading.Lock()

        self.entries = LeafEntries(self, self.options.blackboard_prefix, key or manifest.name)

        self.result: SkillResult | None = None
        self.feedback: SkillFeedback | None = None
        self.prompt = ""
        self._run: _Run | None = None
        self._worker: threading.Thread | None = None
        self.last_stats: _Stats | None = None
        """The counters of the latest run (benchmarks read its timings)."""

    @property
    def policy(self) -> Policy | None:
        """The policy in use: the one given, or the one resolved from the manifest on the first run."""
        with self._policy_lock:
            return self._policy

    # py_trees lifecycle -------------------------------------------------------------------------

    def initialise(self) -> None:
        """Check the call, then start the loop on a worker thread."""
        run = _Run(started=time.monotonic())
        self._run = run
        self.result = None
        self.feedback = None
        try:
            validate_arguments(self.manifest, self.call.args)
            self.prompt = self._format_prompt()
        except InvalidArguments as err:
            errors: list[JsonValue] = [{"path": p, "reason": r} for p, r in err.errors]
            run.finish(_failed(FailureKind.INVALID_PARAMS, "invalid_arguments", run, str(err), {"errors": errors}))
            return
        except (KeyError, ValueError, IndexError) as err:
            run.finish(
                _failed(FailureKind.INVALID_PARAMS, "prompt_template", run, f"cannot format the prompt: {err!r}")
            )
            return
        check = self.binding.success_check
        success = bind(check, self.call.args) if check is not None else None
        self._worker = threading.Thread(target=self._work, args=(run, success), name=f"vla:{self.name}", daemon=True)
        self._worker.start()

    def update(self) -> py_trees.common.Status:
        """Copy the worker's progress to the blackboard; RUNNING until the run has a result."""
        run = self._run
        if run is None:
            return py_trees.common.Status.INVALID
        with run.lock:
            feedback, result = run.feedback, run.result
        if feedback is not None and feedback is not self.feedback:
            self.feedback = feedback
            self.entries.feedback(feedback)
        if result is None and time.monotonic() - run.started >= self.timeout_s:
            detail = f"no ending within {self.timeout_s:g} s"
            if self._stop(run, _failed(FailureKind.TIMEOUT, "deadline_exceeded", run, detail)):
                _log.warning("%s: %s; the loop is stopped", self.name, detail)
            result = run.result
        if result is None:
            return py_trees.common.Status.RUNNING
        self._publish(run)
        return py_trees.common.Status.SUCCESS if result.success else py_trees.common.Status.FAILURE

    def terminate(self, new_status: py_trees.common.Status) -> None:
        """Halted mid-run (``INVALID``): stop the worker, hold the robot, record ``preempted``."""
        run = self._run
        if new_status == py_trees.common.Status.INVALID and run is not None and run.result is None:
            self._stop(run, _failed(FailureKind.PREEMPTED, "preempted", run, "halted by the tree"))
            self._publish(run)

    def _publish(self, run: _Run) -> None:
        """Tick thread: show the run's result (if it has one) on the leaf and the blackboard."""
        with run.lock:
            result = run.result
        if result is not None and self.result is not result:
            self.result = result
            self.entries.result(result)

    def shutdown(self) -> None:
        """Tree shutdown: stop a run still going."""
        run = self._run
        if run is not None and run.result is None:
            self._stop(run, _failed(FailureKind.PREEMPTED, "shutdown", run, "the tree shut down"))

    def destroy(self, timeout_s: float = RELEASE_JOIN_S) -> bool:
        """The task ended (its tree is released): stop a run still going, join its worker; whether it ended.

        The leaf owns no ROS entities of its own (the robot interface, its subscriptions and
        publishers are the node's, shared by every VLA leaf on those topics), so what it
        holds per run is the worker thread and the policy client that run opened. A worker
        stuck inside an in-process policy past ``timeout_s`` is left to end on its own (a
        daemon that checks the stop flag before every action).
        """
        self.shutdown()
        ended = self.join(timeout_s)
        if self._run is not None:
            self._publish(self._run)  # the ending shutdown recorded, on the leaf as after a halt
        if not ended:
            _log.warning("%s: the VLA worker did not stop within %g s; left to end on its own", self.name, timeout_s)
        self._worker = None
        self._run = None
        return ended

    def join(self, timeout_s: float = 5.0) -> bool:
        """Wait for the current worker thread to end (tests, orderly shutdown); whether it did."""
        worker = self._worker
        if worker is None:
            return True
        worker.join(timeout_s)
        return not worker.is_alive()

    # stopping ------------------------------------------------------------------------------------

    def _stop(self, run: _Run, result: SkillResult) -> bool:
        """Tick thread: record ``result`` if the run has none, stop the worker, hold the robot."""
        recorded = run.finish(result)
        run.stop.set()
        with run.lock:
            client = run.client
        if client is not None:
            client.abort()  # unblocks a worker waiting on the server
        try:
            self.robot.hold()
        except Exception:
            _log.exception("%s: robot.hold() failed", self.name)
        return recorded

    # the worker ----------------------------------------------------------------------------------

    def _format_prompt(self) -> str:
        template = self.binding.prompt_template
        values: dict[str, object] = {k: v for k, v in self.call.args.items() if k.isidentifier()}
        values["prompt"] = self.call.prompt or ""
        for _, name, _, _ in string.Formatter().parse(template):
            if name is not None and name not in values:
                raise KeyError(f"the template needs {{{name}}}, which the call does not give")
        return template.format(**values)

    def _resolve_policy(self, run: _Run) -> Policy:
        with self._policy_lock:
            if self._policy is not None:
                return self._policy
        if self.binding.policy is not None:
            policy: Policy = load_policy(self.binding.policy)
            with self._policy_lock:
                self._policy = policy
            return policy
        assert self.binding.endpoint is not None  # the manifest guarantees one of the two
        self._set_feedback(run, "connecting", _Stats())
        client = PolicyClient(self.binding.endpoint, connect_timeout_s=self.options.connect_timeout_s)
        with run.lock:
            run.client = client
        if run.stop.is_set():  # stopped while connecting
            client.abort()
        return client

    def _work(self, run: _Run, success: Predicate | None) -> None:
        stats = _Stats()
        self.last_stats = stats
        try:
            policy = self._resolve_policy(run)
            self._loop(run, policy, success, stats)
        except PolicyError as err:
            kind = FailureKind.SERVER_UNAVAILABLE if err.reason == "server_unavailable" else FailureKind.POLICY_ERROR
            run.finish(
                _failed(
                    kind,
                    err.reason,
                    run,
                    f"{err}\n{err.detail}" if err.detail != str(err) else str(err),
                    stats.evidence(),
                )
            )
        except SensorStale as err:
            evidence = {**stats.evidence(), **{k: _json(v) for k, v in err.evidence.items()}}
            run.finish(_failed(FailureKind.SENSOR_STALE, "sensor_stale", run, str(err), evidence))
        except _RobotError as err:
            run.finish(_failed(FailureKind.ABORTED, "robot_error", run, err.text, stats.evidence()))
        except Exception:
            run.finish(
                _failed(FailureKind.POLICY_ERROR, "policy_raised", run, traceback.format_exc(), stats.evidence())
            )
        finally:
            with run.lock:
                client, run.client = run.client, None
            if client is not None:
                client.abort()
            if run.stop.is_set():
                self._hold(run)

    def _loop(self, run: _Run, policy: Policy, success: Predicate | None, stats: _Stats) -> None:
        evidence_extra: dict[str, JsonValue] = {
            "prompt": self.prompt,
            "success_check": str(success) if success is not None else None,
            "transport": "websocket" if isinstance(policy, PolicyClient) else "in_process",
        }
        policy.reset(self.prompt)
        if success is not None and self._holds(success):
            run.finish(self._ended(run, stats, evidence_extra, "already_holds"))
            return
        queue: deque[np.ndarray] = deque()
        since_query = 0
        stale_in_a_row = 0
        next_due = time.monotonic()
        while not run.stop.is_set():
            if stats.steps >= self.step_limit:
                if success is None:
                    run.finish(self._ended(run, stats, evidence_extra, "step_limit"))
                else:
                    detail = f"{success} did not hold after {stats.steps} actions"
                    run.finish(
                        _failed(FailureKind.TIMEOUT, "step_limit", run, detail, {**stats.evidence(), **evidence_extra})
                    )
                return
            if not queue or since_query >= self.replan_steps:
                self._set_feedback(run, "querying", stats)
                chunk, latency = self._query(policy, stats)
                if run.stop.is_set():
                    return
                if latency > self.max_latency_s:
                    # Stale: the world has moved on since its observation. Never executed.
                    stats.discarded += 1
                    stats.discarded_latencies_s.append(latency)
                    stale_in_a_row += 1
                    queue.clear()
                    if stale_in_a_row >= self.options.max_stale_chunks:
                        detail = (
                            f"{stale_in_a_row} chunks in a row came later than {self.max_latency_s:g} s "
                            f"after their observation (latest {latency:.3f} s)"
                        )
                        run.finish(
                            _failed(
                                FailureKind.POLICY_ERROR,
                                "stale_chunks",
                                run,
                                detail,
                                {**stats.evidence(), **evidence_extra},
                            )
                        )
                        return
                    continue
                stale_in_a_row = 0
                stats.latencies_s.append(latency)
                stats.answers.append((time.time(), 0.0))
                queue = deque(chunk)
                since_query = 0
            action = queue.popleft()
            if self.options.realtime:
                next_due = _next_slot(next_due, self.period_s, time.monotonic())
                time.sleep(max(0.0, next_due - time.monotonic()))
            if run.stop.is_set():
                return
            if since_query == 0 and stats.answers and stats.answers[-1][1] == 0.0:
                stats.answers[-1] = (stats.answers[-1][0], time.time())
            self._act(action)
            stats.acted_at.append(time.monotonic())
            stats.steps += 1
            since_query += 1
            self._set_feedback(run, "acting", stats)
            if success is not None and self._holds(success):
                run.finish(self._ended(run, stats, evidence_extra, "success_check_holds"))
                return

    def _query(self, policy: Policy, stats: _Stats) -> tuple[np.ndarray, float]:
        """Observe, then ask the policy; the chunk and how long after the observation it came."""
        try:
            seen = self.robot.observe(self.cameras)
        except SensorStale:
            raise
        except Exception as err:
            raise _RobotError(f"observe failed: {err!r}") from err
        observation = PolicyObservation(
            images=seen.images, state=seen.state, prompt=self.prompt, privileged=seen.privileged
        )
        stats.observation_bytes = sum(int(image.nbytes) for image in seen.images.values())
        stats.observation_ages_s.append(seen.age_s)
        handed_at = time.monotonic()
        raw = policy.infer(observation)
        latency = time.monotonic() - handed_at
        stats.queries += 1
        return check_chunk(raw, self.robot.action_dim), latency

    def _act(self, action: np.ndarray) -> None:
        try:
            self.robot.act(action, self.period_s)
        except SensorStale:
            raise
        except Exception as err:
            raise _RobotError(f"act failed: {err!r}") from err

    def _holds(self, success: Predicate) -> bool:
        try:
            return holds(success, self.robot.world_state())
        except Exception as err:
            raise _RobotError(f"world_state failed: {err!r}") from err

    def _hold(self, run: _Run) -> None:
        try:
            self.robot.hold()
        except Exception:
            _log.exception("%s: robot.hold() failed", self.name)

    def _set_feedback(self, run: _Run, phase: str, stats: _Stats) -> None:
        feedback = SkillFeedback(
            phase=phase,
            progress=min(1.0, stats.steps / self.step_limit),
            detail={"steps": stats.steps, "queries": stats.queries, "discarded_chunks": stats.discarded},
        )
        with run.lock:
            run.feedback = feedback

    def _ended(self, run: _Run, stats: _Stats, extra: dict[str, JsonValue], reason: str) -> SkillResult:
        evidence = {**stats.evidence(), **extra, "observation_bytes": stats.observation_bytes}
        return SkillResult.ok(reason, evidence=evidence, duration_s=time.monotonic() - run.started)


class _RobotError(Exception):
    """The robot interface raised: not the policy's fault."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _next_slot(due: float, period_s: float, now: float) -> float:
    """When the action after one due at ``due`` is due: on the fixed grid, re-anchored at ``now`` if a period behind.

    A late wake-up (the scheduler, the GIL, a slow observation) costs only that action's
    punctuality: the next one is still due on the grid, so jitter under a period does not
    pile up into a lower rate. Slots missed by more than a period are dropped, never
    sent in a burst to catch up.
    """
    following = due + period_s
    return now if now - following > period_s else following


def _json(value: object) -> JsonValue:
    """A JSON-friendly copy of evidence a robot reported (dicts, lists, numbers, strings; others as text)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return str(value)


def _failed(
    kind: FailureKind, reason: str, run: _Run, detail: str, evidence: dict[str, JsonValue] | None = None
) -> SkillResult:
    return SkillResult.failed(
        kind,
        reason[:_REASON_MAX],
        detail=detail[-_DETAIL_MAX:],
        evidence=evidence or {},
        duration_s=time.monotonic() - run.started,
    )

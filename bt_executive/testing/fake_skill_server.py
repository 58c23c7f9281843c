"""A scriptable RunSkill action server, run as its own process: ``python -m bt_executive.testing.fake_skill_server``.

::

    python -m bt_executive.testing.fake_skill_server --config WORKDIR/config.json

Serves ``bt_executive_interfaces/action/RunSkill`` under each configured
action name and answers every goal as ``WORKDIR/script.json`` says (success
or a failure kind, after a delay, with feedback at a rate; or reject it, hang
until cancelled, or ``os._exit`` mid-goal like a crashed driver), recording
what it received in ``WORKDIR/record.jsonl`` (see ``fake_skill_script``).
Tests start it through ``FakeSkillServer`` (the ``fake_skill_server``
fixture), which also sets ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` and the
short-lease Fast DDS profile in its environment.

SIGTERM or SIGINT stops it cleanly: running goals are aborted and the node
leaves the graph, so clients see it gone at once rather than after a lease.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from bt_executive.testing.fake_skill_script import (
    CONFIG_FILE,
    RECORD_FILE,
    SCRIPT_FILE,
    EventKind,
    FakeServerConfig,
    FakeServerScript,
    Outcome,
    RecordedEvent,
)

CRASH_EXIT_STATUS = 17
_POLL_S = 0.01


class Recorder:
    """Appends RecordedEvents to the record file, one flushed line each, from any thread."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def write(self, event: EventKind, **fields: Any) -> None:
        """Record one event now."""
        line = RecordedEvent(event=event, t=time.time(), **fields).model_dump_json() + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._file.close()


class ScriptBook:
    """The current script, re-read when the file changes; hands out each action's next Outcome."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._script = FakeServerScript()
        self._position: dict[str, tuple[int, int]] = {}  # action -> (script version, next queue index)

    def next_outcome(self, action: str) -> Outcome:
        """The outcome for the next goal on ``action``."""
        with self._lock:
            self._reload()
            script = self._script.actions.get(action)
            if script is None:
                return Outcome()
            version, index = self._position.get(action, (self._script.version, 0))
            if version != self._script.version:
                index = 0
            self._position[action] = (self._script.version, index + 1)
            return script.queue[index] if index < len(script.queue) else script.default

    def _reload(self) -> None:
        try:
            stat = self._path.stat()
        except FileNotFoundError:
            return
        stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            self._script = FakeServerScript.model_validate_json(self._path.read_bytes())
            self._stamp = stamp


class FakeSkillServers:
    """One RunSkill action server per configured name on ``node``, answering as the script says."""

    def __init__(self, node: Any, config: FakeServerConfig, recorder: Recorder, book: ScriptBook) -> None:
        from rclpy.action.server import ActionServer
        from rclpy.callback_groups import ReentrantCallbackGroup

        from bt_executive_interfaces.action import RunSkill

        self._run_skill = RunSkill
        self._node = node
        self._recorder = recorder
        self._book = book
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._pending: dict[int, Outcome] = {}  # id(goal message) -> outcome, from goal callback to accept
        self._outcomes: dict[str, Outcome] = {}  # goal id hex -> outcome, from accept to execute
        group = ReentrantCallbackGroup()
        self.servers = [
            ActionServer(
                node,
                RunSkill,
                name,
                execute_callback=partial(self._execute, name),
                goal_callback=partial(self._decide, name),
                handle_accepted_callback=partial(self._accepted, name),
                cancel_callback=partial(self._cancel, name),
                callback_group=group,
                result_timeout=config.result_timeout_s,
            )
            for name in config.actions
        ]

    def stop(self) -> None:
        """Make running goals end (aborted) so the executor can shut down."""
        self._stopping.set()

    def _decide(self, action: str, goal: Any) -> Any:
        from rclpy.action.server import GoalResponse

        outcome = self._book.next_outcome(action)
        if outcome.reject:
            self._recorder.write("rejected", action=action, **_goal_fields(goal))
            return GoalResponse.REJECT
        with self._lock:
            self._pending[id(goal)] = outcome
        return GoalResponse.ACCEPT

    def _accepted(self, action: str, handle: Any) -> None:
        goal_id = _hex(handle.goal_id)
        with self._lock:
            self._outcomes[goal_id] = self._pending.pop(id(handle.request), Outcome())
        self._recorder.write("goal", action=action, goal_id=goal_id, **_goal_fields(handle.request))
        handle.execute()

    def _cancel(self, action: str, handle: Any) -> Any:
        from rclpy.action.server import CancelResponse

        self._recorder.write("cancel", action=action, goal_id=_hex(handle.goal_id))
        return CancelResponse.ACCEPT

    def _execute(self, action: str, handle: Any) -> Any:
        goal_id = _hex(handle.goal_id)
        with self._lock:
            outcome = self._outcomes.pop(goal_id, Outcome())
        started = time.monotonic()
        end = None if outcome.hang else started + outcome.delay_s
        crash_at = None if outcome.crash_after_s is None else started + outcome.crash_after_s
        period = 1.0 / outcome.feedback_hz if outcome.feedback_hz > 0 else None
        limit = outcome.feedback_count
        next_feedback, sent = started, 0
        while True:
            now = time.monotonic()
            if handle.is_cancel_requested:
                handle.canceled()
                self._recorder.write("canceled", action=action, goal_id=goal_id, status="canceled")
                return self._run_skill.Result(success=False, failure_kind="preempted", reason="canceled")
            if self._stopping.is_set():
                handle.abort()
                return self._run_skill.Result(success=False, failure_kind="aborted", reason="server_stopping")
            if crash_at is not None and now >= crash_at:
                self._recorder.write("crash", action=action, goal_id=goal_id)
                os._exit(CRASH_EXIT_STATUS)
            if end is not None and now >= end:
                break
            if period is not None and now >= next_feedback and (limit is None or sent < limit):
                progress = 0.0 if end is None or end <= started else min(1.0, (now - started) / (end - started))
                feedback = self._run_skill.Feedback(
                    phase="running", progress=progress, detail_json=json.dumps({"action": action, "n": sent})
                )
                handle.publish_feedback(feedback)
                sent += 1
                next_feedback += period
            # Sleep to the next thing to do, but look at cancel requests every _POLL_S.
            wake = [now + _POLL_S, *(t for t in (end, crash_at) if t is not None)]
            if period is not None and (limit is None or sent < limit):
                wake.append(next_feedback)
            time.sleep(max(0.0, min(wake) - time.monotonic()))
        return self._finish(action, goal_id, handle, outcome, time.monotonic() - started)

    def _finish(self, action: str, goal_id: str, handle: Any, outcome: Outcome, duration_s: float) -> Any:
        success = outcome.failure_kind is None
        status = outcome.status or ("succeeded" if success else "aborted")
        if status == "succeeded":
            handle.succeed()
        else:
            handle.abort()
        self._recorder.write("result", action=action, goal_id=goal_id, status=status)
        if outcome.empty_result:
            return self._run_skill.Result()
        return self._run_skill.Result(
            success=success,
            failure_kind=outcome.failure_kind or "",
            reason=outcome.reason or ("done" if success else outcome.failure_kind or ""),
            detail=outcome.detail,
            evidence_json=json.dumps(outcome.evidence, sort_keys=True),
            duration_s=duration_s,
        )


def _hex(goal_id: Any) -> str:
    return uuid.UUID(bytes=bytes(goal_id.uuid)).hex


def _goal_fields(goal: Any) -> dict[str, Any]:
    try:
        args: Any = json.loads(goal.args_json) if goal.args_json else {}
    except ValueError:
        args = goal.args_json
    return {"skill_id": goal.skill_id, "args": args, "prompt": goal.prompt}


def serve(config: FakeServerConfig) -> int:
    """Run the servers until SIGTERM/SIGINT; the process's exit status."""
    import rclpy
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.signals import SignalHandlerOptions
    from rclpy.task import Future

    from bt_executive.runtime.ros_teardown import destroy_node, shutdown_executor

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    recorder = Recorder(config.workdir / RECORD_FILE)
    book = ScriptBook(config.workdir / SCRIPT_FILE)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=config.domain_id, signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node(config.node_name, namespace=config.namespace, context=context)
    servers = FakeSkillServers(node, config, recorder, book)
    executor = MultiThreadedExecutor(num_threads=config.threads, context=context)
    executor.add_node(node)
    spun_out: Future[None] = Future()  # ends the spin loop before the executor shuts down (see ros_harness)
    spinner = threading.Thread(
        target=executor.spin_until_future_complete, args=(spun_out,), name="fake_skill_server", daemon=True
    )
    spinner.start()  # after the servers exist (rclpy#1589)
    recorder.write("ready")
    try:
        while not stop.wait(0.1):
            pass
    finally:
        servers.stop()
        time.sleep(2 * _POLL_S)  # let running goals see the stop and answer
        spun_out.set_result(None)
        spinner.join(timeout=5.0)
        problems = [] if spinner.is_alive() else shutdown_executor(executor)  # bounded, unlike rclpy's own
        for server in servers.servers:
            server.destroy()
        problems += destroy_node(node)
        for problem in problems:  # the test reading this process's output sees what did not let go
            sys.stderr.write(f"fake_skill_server teardown: {problem}\n")
        context.try_shutdown()
        context.destroy()
        recorder.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--config PATH``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--config", type=Path, required=True, help=f"the {CONFIG_FILE} a FakeSkillServer wrote")
    args = parser.parse_args(argv)
    config = FakeServerConfig.model_validate_json(args.config.read_bytes())
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    return serve(config)


if __name__ == "__main__":
    raise SystemExit(main())

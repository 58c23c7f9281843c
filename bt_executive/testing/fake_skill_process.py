"""FakeSkillServer: a test's handle on the fake skill server process: script it, start it, read what it saw.

::

    def test_pick_fails_when_the_object_is_gone(fake_skill_server, ros_harness):
        fake_skill_server.serve("skills/pick", Outcome(failure_kind="not_found"))
        fake_skill_server.start()                        # returns once its servers exist
        ...                                              # tick a RosActionSkill against it
        assert [g.skill_id for g in fake_skill_server.goals()] == ["tabletop/pick"]

``serve(name, *queue, default=...)`` declares an action before ``start`` and
re-scripts it at any time after (the queue restarts). ``goals()``,
``cancels()``, ``rejections()`` and ``events()`` read the record;
``wait_for(predicate)`` polls it. ``kill()`` is SIGKILL (a dead driver);
``stop()`` (also at fixture teardown) is a clean SIGTERM. The process gets
``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` and the short-lease Fast DDS
profile, like every ROS process this project starts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Self

from bt_executive.testing.fake_skill_script import (
    CONFIG_FILE,
    LOG_FILE,
    RECORD_FILE,
    SCRIPT_FILE,
    ActionScript,
    FakeServerConfig,
    FakeServerScript,
    Outcome,
    RecordedEvent,
)

START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 5.0
_POLL_S = 0.01


class FakeServerError(RuntimeError):
    """The fake server process did not start, or died when it should not have."""


class FakeSkillServer:
    """Controls one fake skill server process and reads its record."""

    def __init__(
        self,
        workdir: Path,
        domain_id: int,
        namespace: str = "/",
        *,
        result_timeout_s: int = 2,
        threads: int = 16,
    ) -> None:
        self.workdir = workdir
        self.domain_id = domain_id
        self.namespace = namespace
        self._result_timeout_s = result_timeout_s
        self._threads = threads
        self._actions: dict[str, ActionScript] = {}
        self._version = 0
        self._process: subprocess.Popen[bytes] | None = None
        workdir.mkdir(parents=True, exist_ok=True)

    # scripting ------------------------------------------------------------------------------------

    def serve(self, action_name: str, *queue: Outcome, default: Outcome | None = None) -> None:
        """Serve ``action_name``: the next goals get ``queue`` in order, the rest ``default`` (success)."""
        if self._process is not None and action_name not in self._actions:
            raise FakeServerError(f"{action_name} was not served at start; only its script can change now")
        self._actions[action_name] = ActionScript(queue=queue, default=default or Outcome())
        self._write_script()

    def _write_script(self) -> None:
        self._version += 1
        script = FakeServerScript(version=self._version, actions=self._actions)
        _write_atomically(self.workdir / SCRIPT_FILE, script.model_dump_json(indent=1))

    # the process ----------------------------------------------------------------------------------

    def start(self, timeout_s: float = START_TIMEOUT_S) -> None:
        """Start the process and return once its action servers exist (discovery by clients follows)."""
        from bt_executive.skills.action_skill import with_short_lease

        if self._process is not None:
            raise FakeServerError("already started")
        if not self._actions:
            raise FakeServerError("serve() at least one action name before start()")
        config = FakeServerConfig(
            domain_id=self.domain_id,
            namespace=self.namespace,
            actions=tuple(self._actions),
            result_timeout_s=self._result_timeout_s,
            threads=self._threads,
            workdir=self.workdir,
        )
        config_file = self.workdir / CONFIG_FILE
        _write_atomically(config_file, config.model_dump_json(indent=1))
        (self.workdir / RECORD_FILE).write_text("")
        env = with_short_lease()
        env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
        env["PYTHONUNBUFFERED"] = "1"
        command = [sys.executable, "-m", "bt_executive.testing.fake_skill_server", "--config", str(config_file)]
        with (self.workdir / LOG_FILE).open("wb") as log:
            self._process = subprocess.Popen(  # noqa: S603 (this interpreter, our module, our file)
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        deadline = time.monotonic() + timeout_s
        while not any(event.event == "ready" for event in self.events()):
            if self._process.poll() is not None:
                raise FakeServerError(f"fake skill server exited with {self._process.returncode}:\n{self.log()}")
            if time.monotonic() > deadline:
                self.kill()
                raise FakeServerError(f"fake skill server not ready after {timeout_s:g} s:\n{self.log()}")
            time.sleep(_POLL_S)

    @property
    def pid(self) -> int | None:
        """The process id, once started."""
        return None if self._process is None else self._process.pid

    def alive(self) -> bool:
        """Whether the process runs."""
        return self._process is not None and self._process.poll() is None

    def returncode(self) -> int | None:
        """The exit status once it has exited (17 after a scripted crash)."""
        return None if self._process is None else self._process.poll()

    def kill(self) -> None:
        """SIGKILL, like a driver that dies: no goodbye to the graph, goals never answered."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def stop(self) -> None:
        """SIGTERM and wait (then SIGKILL): running goals are aborted and the node leaves the graph."""
        if self._process is None or self._process.poll() is not None:
            return
        self._process.send_signal(signal.SIGTERM)
        try:
            self._process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill()

    def log(self) -> str:
        """The process's stdout and stderr so far (for failure messages)."""
        path = self.workdir / LOG_FILE
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    # the record -----------------------------------------------------------------------------------

    def events(self) -> list[RecordedEvent]:
        """Everything recorded so far, in order."""
        path = self.workdir / RECORD_FILE
        if not path.exists():
            return []
        events = []
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            if line.endswith("\n"):  # a line still being written is not there yet
                events.append(RecordedEvent.model_validate_json(line))
        return events

    def goals(self, action_name: str | None = None) -> list[RecordedEvent]:
        """Goals the server accepted (rejected ones are in ``rejections``)."""
        return self._of("goal", action_name)

    def rejections(self, action_name: str | None = None) -> list[RecordedEvent]:
        """Goal requests the server rejected, as scripted."""
        return self._of("rejected", action_name)

    def cancels(self, action_name: str | None = None) -> list[RecordedEvent]:
        """Cancel requests the server received for goals it had accepted (it may see one twice)."""
        return self._of("cancel", action_name)

    def _of(self, kind: str, action_name: str | None) -> list[RecordedEvent]:
        return [e for e in self.events() if e.event == kind and (action_name is None or e.action == action_name)]

    def wait_for(self, predicate: Callable[[list[RecordedEvent]], bool], timeout_s: float = 5.0) -> list[RecordedEvent]:
        """Poll the record until ``predicate(events)`` holds; the events, or FakeServerError after the timeout."""
        deadline = time.monotonic() + timeout_s
        while True:
            events = self.events()
            if predicate(events):
                return events
            if time.monotonic() > deadline:
                raise FakeServerError(f"not recorded within {timeout_s:g} s; the record: {events}")
            time.sleep(_POLL_S)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()


def _write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file and rename it over ``path``: a reader sees the old file or the new one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)

"""Run directories: one folder per task with everything needed to see afterwards what the executive did.

::

    <runs root>/20250101-120000-put-the-red-cube-on-the-plate/
      task.json         RunInfo: the task, when it started (UTC), the planner profile, the host
      events.jsonl      one TaskEvent per line (with its index), flushed as it happens
      snapshots.jsonl   one tree snapshot per line (py_trees_js format), with the index of the
                        last event before it, so a replay lines the tree up with the event log
      plans.json        the plan history (rewritten on every ``plan`` event)
      outcome.json      the TaskOutcome, written when the task ends
      frames/           camera frames (JPEG) at the task's moments, each named by a ``frame`` event
                        in events.jsonl, within a byte budget (run_frames.py)

The runs root is ``$BT_EXECUTIVE_RUNS`` when set, else
``$XDG_STATE_HOME/bt_executive/runs`` (``~/.local/state/bt_executive/runs``):
run logs are state, not configuration or cache. A run that crashed has no
``outcome.json`` and may end in a half-written line; readers skip that one
line and report the run as ``running`` (or unfinished). ``task.json`` names
the run's owner process (``run_owner``), so the next executive on the same
runs root can tell a run still being written from one whose executive died
and mark the latter ``lost`` (``lost_runs``).
"""

from __future__ import annotations

import json
import os
import platform
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from bt_executive import __version__
from bt_executive.executive.run_frames import RunFrames, run_frames
from bt_executive.executive.run_owner import RunOwner
from bt_executive.llm.plan import Plan
from bt_executive.runtime.paths import default_runs_root
from bt_executive.trees.task_context import TaskEvent
from bt_executive.trees.task_tree import TaskOutcome

TASK_FILE = "task.json"
EVENTS_FILE = "events.jsonl"
SNAPSHOTS_FILE = "snapshots.jsonl"
PLANS_FILE = "plans.json"
OUTCOME_FILE = "outcome.json"
_SLUG_CHARS = re.compile(r"[^a-z0-9]+")
_PLANS = TypeAdapter(list[Plan])
_M = TypeVar("_M", bound=BaseModel)


class RunInfo(BaseModel):
    """``task.json``: what was asked, when, of which planner, on which machine."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    started: datetime = Field(description="UTC")
    planner: str
    host: dict[str, str] = Field(default_factory=dict)
    owner: RunOwner | None = Field(default=None, description="the process writing the run (absent in older runs)")


class EventRecord(BaseModel):
    """One line of ``events.jsonl``: the event and its position in the log."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    event: TaskEvent


class SnapshotRecord(BaseModel):
    """One line of ``snapshots.jsonl``: a snapshot, the last event before it and when it was taken."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    event_index: int = Field(ge=-1, description="index of the last event written before it; -1 if none")
    t: float = Field(ge=0.0, description="seconds since the run directory was created")
    tree: dict[str, JsonValue]


class RunSummary(BaseModel):
    """One row of ``runs list``: a run's name, task, ending and counts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run: str
    path: Path
    task: str
    started: datetime
    planner: str
    final_reason: str
    steps: int = Field(description="distinct (plan, step) pairs that ran")
    attempts: int = Field(description="step_end events")
    retries: int
    replans: int
    duration_s: float


def slug(text: str, limit: int = 48) -> str:
    """``Put the red cube on the plate!`` -> ``put-the-red-cube-on-the-plate`` (``task`` if nothing is left)."""
    return _SLUG_CHARS.sub("-", text.lower()).strip("-")[:limit].rstrip("-") or "task"


class RunWriter:
    """Writes one task's run directory as the task runs; every method is safe to call from any thread."""

    def __init__(self, path: Path, info: RunInfo) -> None:
        self.path = path
        self.info = info
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._events: IO[str] | None = (path / EVENTS_FILE).open("a", encoding="utf-8")
        self._snapshots: IO[str] | None = (path / SNAPSHOTS_FILE).open("a", encoding="utf-8")
        self._event_count = 0
        self._snapshot_count = 0
        self._plans: list[Plan] = []

    @classmethod
    def create(cls, root: Path, task: str, planner: str, *, now: datetime | None = None) -> Self:
        """Make ``<root>/<UTC YYYYmmdd-HHMMSS>-<slug of task>/`` (``-2``, ``-3``... if taken) and its task.json."""
        started = (now or datetime.now(UTC)).astimezone(UTC)
        root.mkdir(parents=True, exist_ok=True)
        base = f"{started:%Y%m%d-%H%M%S}-{slug(task)}"
        info = RunInfo(task=task, started=started, planner=planner, host=_host(), owner=RunOwner.current())
        # Made aside with its task.json, then renamed into place: a run directory is never seen without
        # one (an executive killed in between leaves a hidden folder, not a run nobody can mark lost).
        staging = root / f".{base}.{os.getpid()}.{threading.get_ident()}.new"
        staging.mkdir()
        _write_json(staging / TASK_FILE, info.model_dump(mode="json"))
        for suffix in range(1, 1000):
            path = root / (base if suffix == 1 else f"{base}-{suffix}")
            try:
                staging.rename(path)  # fails on an existing (non-empty) run of the same name
                return cls(path, info)
            except OSError:
                if not path.exists():
                    raise
        raise FileExistsError(f"{root}: too many runs named {base}")

    def elapsed(self) -> float:
        """Seconds since the run directory was made: the clock of snapshots (and of frames' ``run_t``)."""
        return time.monotonic() - self._started

    def event(self, event: TaskEvent) -> None:
        """Append one event and flush it (a crash loses at most the line being written)."""
        with self._lock:
            if self._events is None:
                return
            record = EventRecord(index=self._event_count, event=event)
            self._events.write(record.model_dump_json() + "\n")
            self._events.flush()
            self._event_count += 1
            if event.kind == "plan":
                self._add_plan(event)

    def _add_plan(self, event: TaskEvent) -> None:
        """Keep plans.json current from the ``plan`` events themselves (they carry steps, notes, planner)."""
        try:
            plan = Plan.model_validate({k: event.data[k] for k in ("steps", "notes", "planner") if k in event.data})
        except ValidationError:  # a malformed event must not stop the log; plans() can still be called
            return
        self._plans.append(plan)
        _write_json(self.path / PLANS_FILE, _PLANS.dump_python(self._plans, mode="json"))

    def snapshot(self, tree: dict[str, Any] | str) -> None:
        """Append one tree snapshot (a dict, or its JSON text already), tagged with the last event and the time."""
        text = tree if isinstance(tree, str) else json.dumps(tree, separators=(",", ":"))
        with self._lock:
            if self._snapshots is None:
                return
            head = {
                "index": self._snapshot_count,
                "event_index": self._event_count - 1,
                "t": round(self.elapsed(), 4),
            }
            # The tree goes in as the text it was published as: a 500-node tree is not encoded twice.
            self._snapshots.write(f'{json.dumps(head, separators=(",", ":"))[:-1]},"tree":{text}}}\n')
            self._snapshots.flush()
            self._snapshot_count += 1

    def plans(self, plans: Sequence[Plan]) -> None:
        """Rewrite the plan history (``event`` keeps it current from ``plan`` events; this sets it outright)."""
        with self._lock:
            self._plans = list(plans)
            _write_json(self.path / PLANS_FILE, _PLANS.dump_python(list(plans), mode="json"))

    def outcome(self, outcome: TaskOutcome) -> None:
        """Write how the task ended."""
        with self._lock:
            write_outcome(self.path, outcome)

    def close(self) -> None:
        """Close the logs; later writes are ignored (a late event from a stopping tree is not an error)."""
        with self._lock:
            for stream in (self._events, self._snapshots):
                if stream is not None:
                    stream.close()
            self._events = self._snapshots = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_listener(writer: RunWriter) -> Callable[[TaskEvent], None]:
    """A TaskTree listener that logs every event to ``writer``."""
    return writer.event


class RunReader:
    """Reads a run directory back: its info, events, snapshots, plans, outcome and summary."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not (self.path / TASK_FILE).is_file():
            raise FileNotFoundError(f"{self.path}: not a run directory (no {TASK_FILE})")

    def info(self) -> RunInfo:
        """``task.json``."""
        return _validated(self.path / TASK_FILE, RunInfo, _read_json(self.path / TASK_FILE))

    def events(self) -> list[TaskEvent]:
        """Every event, in order."""
        return [_validated(path, EventRecord, line).event for path, line in self._lines(EVENTS_FILE)]

    def snapshots(self) -> list[SnapshotRecord]:
        """Every snapshot record, in order."""
        return [_validated(path, SnapshotRecord, line) for path, line in self._lines(SNAPSHOTS_FILE)]

    def frames(self) -> RunFrames:
        """The camera frames the run kept (``frame`` events whose file is still under frames/)."""
        return run_frames(self.path, self.events())

    def plans(self) -> list[Plan]:
        """The plan history (empty if no plan was made)."""
        path = self.path / PLANS_FILE
        if not path.is_file():
            return []
        try:
            return _PLANS.validate_python(_read_json(path))
        except ValidationError as err:
            raise ValueError(f"{path}: {_first_error(err)}") from None

    def outcome(self) -> TaskOutcome | None:
        """How the task ended, or None while it runs (or if the executive died)."""
        path = self.path / OUTCOME_FILE
        return _validated(path, TaskOutcome, _read_json(path)) if path.is_file() else None

    def summary(self) -> RunSummary:
        """The counts ``runs list`` shows; from the outcome when there is one, else from the events."""
        info = self.info()
        events = self.events()
        outcome = self.outcome()
        ends = [e for e in events if e.kind == "step_end"]
        final = next((e for e in reversed(events) if e.kind == "final"), None)
        if outcome is not None:
            reason, retries, replans, duration = (
                outcome.final_reason,
                outcome.retries,
                outcome.replans,
                outcome.duration_s,
            )
        else:
            reason = str(final.data.get("final_reason")) if final is not None else "running"
            retries = sum(1 for e in events if e.kind == "retry")
            replans = sum(1 for e in events if e.kind == "planning" and e.data.get("replan") is True)
            duration = events[-1].t if events else 0.0
        return RunSummary(
            run=self.path.name,
            path=self.path,
            task=info.task,
            started=info.started,
            planner=info.planner,
            final_reason=reason,
            steps=len({(e.plan, e.step) for e in ends}),
            attempts=len(ends),
            retries=retries,
            replans=replans,
            duration_s=duration,
        )

    def _lines(self, name: str) -> Iterator[tuple[str, Any]]:
        """Parsed JSON lines of a log; a torn last line (the writer died mid-line) is skipped."""
        path = self.path / name
        if not path.is_file():
            return
        lines = path.read_text(encoding="utf-8").split("\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield f"{path}:{number}", json.loads(line)
            except json.JSONDecodeError as err:
                if number == len(lines):  # no newline after it: torn, not corrupt
                    return
                raise ValueError(f"{path}:{number}: not JSON ({err.msg})") from None


def list_runs(root: Path | None = None) -> list[RunSummary]:
    """Every run under ``root`` (default: ``default_runs_root()``), oldest first; unreadable runs are skipped."""
    root = default_runs_root() if root is None else root
    if not root.is_dir():
        return []
    summaries = []
    for path in sorted(p for p in root.iterdir() if is_run(p)):
        try:
            summaries.append(RunReader(path).summary())
        except ValueError:  # a damaged run must not hide the others; `runs show` names its problem
            continue
    return summaries


def is_run(path: Path) -> bool:
    """A run directory: it has its task.json, and it is not a hidden one still being made (``RunWriter.create``)."""
    return not path.name.startswith(".") and (path / TASK_FILE).is_file()


def resolve_run(run: str, root: Path | None = None) -> Path:
    """A run named by path, by directory name under the root, or ``latest``; FileNotFoundError otherwise."""
    root = default_runs_root() if root is None else root
    if run == "latest":
        runs = list_runs(root)
        if not runs:
            raise FileNotFoundError(f"no runs under {root}")
        return runs[-1].path
    for candidate in (Path(run), root / run):
        if (candidate / TASK_FILE).is_file():
            return candidate
    matches = sorted(p for p in root.glob(f"*{run}*") if is_run(p)) if root.is_dir() else []
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise FileNotFoundError(
            f"{run!r} matches {len(matches)} runs under {root}: {', '.join(m.name for m in matches)}"
        )
    raise FileNotFoundError(f"no run {run!r} (neither a run directory nor a run under {root})")


def write_outcome(run: Path, outcome: TaskOutcome) -> None:
    """Write ``outcome.json`` into the run directory ``run`` (atomically)."""
    _write_json(run / OUTCOME_FILE, outcome.model_dump(mode="json"))


def _host() -> dict[str, str]:
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "bt_executive": __version__,
        "pid": str(os.getpid()),
    }


def _write_json(path: Path, data: Any) -> None:
    """Write whole files atomically: a reader never sees half a plans.json."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not JSON ({err.msg}, line {err.lineno})") from None


def _validated(where: str | Path, model: type[_M], data: Any) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise ValueError(f"{where}: {_first_error(err)}") from None


def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    location = ".".join(str(part) for part in first["loc"]) or "(top level)"
    return f"{location}: {first['msg']}"

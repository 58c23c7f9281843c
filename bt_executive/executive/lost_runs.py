"""Lost runs: run directories whose executive died mid-task, given the outcome ``lost`` on the next start.

An executive killed mid-task (SIGKILL, out of memory, power) writes no
``outcome.json``; its run would show ``running`` for ever. When an executive
starts, it looks at the runs root it writes to: a run with no outcome whose
owner (``task.json``'s ``owner``, or the pid in ``host`` for older runs) has
certainly ended gets an ``outcome.json`` with final reason ``lost`` and a
detail naming the dead owner and who marked it. A run whose owner lives (a
second executive on the same root) or cannot be judged (another host) is
left alone. The event log is not touched: it is the record of what happened.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

from bt_executive.executive.run_dir import OUTCOME_FILE, RunInfo, RunReader, is_run, write_outcome
from bt_executive.executive.run_owner import RunOwner
from bt_executive.trees.task_context import FinalReason
from bt_executive.trees.task_tree import TaskOutcome

_log = logging.getLogger(__name__)


def run_owner(info: RunInfo) -> RunOwner | None:
    """The run's owner: recorded, or rebuilt from the host's pid for runs written before owners were."""
    if info.owner is not None:
        return info.owner
    hostname, pid = info.host.get("hostname"), info.host.get("pid", "")
    return RunOwner(hostname=hostname, pid=int(pid)) if hostname and pid.isdigit() and int(pid) > 0 else None


def mark_lost_runs(root: Path) -> list[Path]:
    """Write ``lost`` outcomes into every run under ``root`` whose executive died without one; their paths."""
    if not root.is_dir():
        return []
    marker = RunOwner.current()
    lost = []
    for path in sorted(p for p in root.iterdir() if is_run(p) and not (p / OUTCOME_FILE).exists()):
        try:
            reader = RunReader(path)
            info = reader.info()
            owner = run_owner(info)
            if owner is None or not owner.is_gone():
                continue
            events = reader.events()
            plans = tuple(reader.plans())
        except ValueError as err:  # a damaged run is left for `runs show` to name; the others are still marked
            _log.warning("run %s not checked for loss: %s", path, err)
            continue
        detail = (
            f"the executive ({owner.describe()}) ended without writing an outcome; "
            f"marked lost by {marker.describe()} at {datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ}"
        )
        outcome = TaskOutcome(
            task=info.task,
            success=False,
            final_reason=FinalReason.LOST.value,
            detail=detail,
            plans=plans,
            duration_s=max(0.0, events[-1].t) if events else 0.0,
        )
        write_outcome(path, outcome)
        _log.warning("run %s marked lost: %s", path, detail)
        lost.append(path)
    return lost

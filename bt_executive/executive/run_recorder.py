"""RunRecorder: one TaskTree recorded into its run directory while it runs.

::

    writer = RunWriter.create(default_runs_root(), task, planner="stub")
    tree = TaskTree(task, ..., listeners=[run_listener(writer)])   # events from the first one on
    recorder = RunRecorder(writer, tree)
    while tree.final_reason is None:
        tree.tick_once()
        if recorder.after_tick():            # a snapshot only when the tree changed ...
            publish(recorder.live.json())    # ... and the topic sends the very same text
    recorder.finish()                        # last snapshot, plans, outcome; closes the logs

The executive node and the demo both do exactly this; the viewer replays
what it wrote. ``live`` (a ``LiveSnapshot``) is the task's one snapshot:
the run directory, the ``~/tree`` topic (and so the web viewer) and any
other stream read it, so it is built and encoded once per change, for the
cost of the nodes that changed.
"""

from __future__ import annotations

from bt_executive.executive.run_dir import RunWriter
from bt_executive.trees.live_snapshot import LiveSnapshot
from bt_executive.trees.snapshot import Snapshot
from bt_executive.trees.task_tree import TaskTree


class RunRecorder:
    """Snapshots a task's tree into its run directory on change, and writes its ending."""

    def __init__(self, writer: RunWriter, tree: TaskTree) -> None:
        self.writer = writer
        self.tree = tree
        self.live = LiveSnapshot(tree)

    @property
    def last_snapshot(self) -> Snapshot | None:
        """The last snapshot recorded, or None before the first."""
        return self.live.last

    def after_tick(self) -> Snapshot | None:
        """Record (and return) a snapshot if the tree changed since the last one, else None."""
        if not self.live.update():
            return None
        snapshot = self.live.snapshot()
        self.writer.snapshot(self.live.json())
        return snapshot

    def finish(self) -> None:
        """The final snapshot (if it changed), the plan history and the outcome; then close the logs."""
        self.after_tick()
        self.writer.plans(self.tree.context.plans)
        self.writer.outcome(self.tree.outcome())
        self.writer.close()

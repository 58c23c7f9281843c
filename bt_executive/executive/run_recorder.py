"""RunRecorder: one TaskTree recorded into its run directory while it runs.

::

    writer = RunWriter.create(default_runs_root(), task, planner="stub")
    tree = TaskTree(task, ..., listeners=[run_listener(writer)])   # events from the first one on
    recorder = RunRecorder(writer, tree)
    while tree.final_reason is None:
        tree.tick_once()
        snapshot = recorder.after_tick()     # a snapshot only when the tree changed; publish the same one
    recorder.finish()                        # last snapshot, plans, outcome; closes the logs

The executive node and the demo both do exactly this; the viewer replays
what it wrote.
"""

from __future__ import annotations

from bt_executive.executive.run_dir import RunWriter
from bt_executive.trees.snapshot import Snapshot, SnapshotTracker
from bt_executive.trees.task_tree import TaskTree


class RunRecorder:
    """Snapshots a task's tree into its run directory on change, and writes its ending."""

    def __init__(self, writer: RunWriter, tree: TaskTree) -> None:
        self.writer = writer
        self.tree = tree
        self.tracker = SnapshotTracker()
        self.last_snapshot: Snapshot | None = None

    def after_tick(self) -> Snapshot | None:
        """Record (and return) a snapshot if the tree changed since the last one, else None."""
        snapshot = self.tracker.snapshot_if_changed(self.tree.root, plans=self.tree.context.plans)
        if snapshot is not None:
            self.writer.snapshot(snapshot)
            self.last_snapshot = snapshot
        return snapshot

    def finish(self) -> None:
        """The final snapshot (if it changed), the plan history and the outcome; then close the logs."""
        self.after_tick()
        self.writer.plans(self.tree.context.plans)
        self.writer.outcome(self.tree.outcome())
        self.writer.close()

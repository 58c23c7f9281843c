"""RunRecorder: one TaskTree recorded into its run directory while it runs.

::

    writer = RunWriter.create(default_runs_root(), task, planner="stub")
    tree = TaskTree(task, ..., listeners=[run_listener(writer)])   # events from the first one on
    recorder = RunRecorder(writer, tree, frames)         # frames: a TaskFrames whose on_event is a listener
    while tree.final_reason is None:
        tree.tick_once()
        if recorder.after_tick():            # a snapshot only when the tree changed ...
            publish(recorder.live.json())    # ... and the topic sends the very same text
    recorder.finish()                        # last snapshot, plans, outcome; the logs close after the last frames
    recorder.wait_closed()                   # (not on the tick thread) the run directory is complete

The executive node and the demo both do exactly this; the viewer replays
what it wrote. ``live`` (a ``LiveSnapshot``) is the task's one snapshot:
the run directory, the ``~/tree`` topic (and so the web viewer) and any
other stream read it, so it is built and encoded once per change, for the
cost of the nodes that changed.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from bt_executive.executive.run_dir import RunWriter
from bt_executive.trees.live_snapshot import LiveSnapshot
from bt_executive.trees.snapshot import Snapshot
from bt_executive.trees.task_tree import TaskTree

if TYPE_CHECKING:  # frames come with rclpy (the executive's camera caches); a recorder without them needs none
    from bt_executive.executive.frame_recorder import TaskFrames


LAST_FRAMES_WAIT_S = 2.0
"""How long ``wait_closed`` waits for a task's last frames (taken without waiting for newer images)."""


class RunRecorder:
    """Snapshots a task's tree into its run directory on change, and writes its ending."""

    def __init__(self, writer: RunWriter, tree: TaskTree, frames: TaskFrames | None = None) -> None:
        self.writer = writer
        self.tree = tree
        self.frames = frames
        self.live = LiveSnapshot(tree)
        self.closed = threading.Event()
        """Set once the logs are closed: after the task's last frames, which ``finish`` leaves to the frame worker."""

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
        """The last snapshot (if it changed), the plan history and the outcome; the logs close after the last frames.

        Returns at once, also on the tick thread: with frames, the frame worker closes the logs once the
        task's last frames are written (``wait_closed`` waits for that).
        """
        self.after_tick()
        self.writer.plans(self.tree.context.plans)
        self.writer.outcome(self.tree.outcome())
        if self.frames is None:
            self._close()
        else:
            self.frames.finish(then=self._close)

    def wait_closed(self, timeout_s: float = LAST_FRAMES_WAIT_S) -> bool:
        """Wait until ``finish``'s last frames are in and the logs closed (closing them after ``timeout_s``); in time?

        A goal's answer waits here, so a client that reads the run directory then finds it complete.
        """
        if self.closed.wait(timeout_s):
            return True
        self._close()  # a frame the worker writes later is ignored by the closed writer
        return False

    def _close(self) -> None:
        self.writer.close()
        self.closed.set()

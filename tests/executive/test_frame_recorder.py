"""The frame recorder's worker: the tick that ends a task never waits for the task's last frames."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np

from bt_executive.executive.frame_cache import FrameCache
from bt_executive.executive.frame_recorder import FrameRecorder
from bt_executive.executive.run_dir import RunReader, RunWriter
from bt_executive.skills.sensor_msgs_conversion import image_message
from bt_executive.trees.task_context import TaskEvent


class HeldCamera:
    """A ``FrameCache`` stand-in whose frame comes only once the test lets it (a slow camera or encoder)."""

    def __init__(self) -> None:
        self.let_go = threading.Event()

    def subscribe(self) -> None:
        """Nothing to subscribe to."""

    def newest_after(
        self, moment: float, wait_s: float, hurry: Callable[[], bool] = lambda: False
    ) -> tuple[Any, float] | None:
        """A frame, once ``let_go`` is set."""
        self.let_go.wait(5.0)
        return image_message(np.zeros((24, 32, 3), np.uint8), 1.0, "front_camera"), time.monotonic()


def test_finishing_a_task_returns_at_once_and_its_logs_close_after_its_last_frame(tmp_path: Path) -> None:
    camera = HeldCamera()
    recorder = FrameRecorder({"front": cast(FrameCache, camera)}, max_bytes=1_000_000, max_width=320)
    writer = RunWriter.create(tmp_path, "look at the table", "stub")
    task = recorder.start_task(writer)
    closed = threading.Event()

    def close_logs() -> None:
        writer.close()
        closed.set()

    task.on_event(TaskEvent(kind="final", t=1.0))
    task.finish(then=close_logs)
    open_when_finish_returned = not closed.is_set()
    camera.let_go.set()
    closed_in_time = closed.wait(5.0)
    recorder.close()
    kinds = [e.kind for e in RunReader(writer.path).events()]
    assert (open_when_finish_returned, closed_in_time, kinds) == (True, True, ["frame"])


def test_a_recorder_nobody_closed_ends_its_worker_once_it_is_collected() -> None:
    camera = HeldCamera()
    camera.let_go.set()
    before = set(threading.enumerate())
    recorder = FrameRecorder({"front": cast(FrameCache, camera)}, max_bytes=1_000_000, max_width=320)
    workers = [t for t in set(threading.enumerate()) - before if t.name == "frame-recorder"]
    working = recorder.working
    del recorder
    gc.collect()
    for worker in workers:
        worker.join(timeout=5.0)
    assert (working, len(workers), [w for w in workers if w.is_alive()]) == (True, 1, [])

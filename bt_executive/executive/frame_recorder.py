"""FrameRecorder: what the robot's cameras saw at the moments of a task that matter, into its run directory.

::

    TaskTree events ──► TaskFrames.on_event (tick thread: notes the moment, no image work)
                             │ bounded queue
                             ▼
    FrameRecorder worker ──► FrameCache per camera: the first frame after the moment (or the newest)
                             ──► FrameStore: JPEG under <run>/frames/, within the run's byte budget
                             ──► RunWriter: a ``frame`` event naming the file (run_frames.py)

The moments: the task's start, each step's start and end, each retry,
recovery and replan, a refused plan, the goal check and the final event.
The tick never waits for a camera or an encoder: the listener only queues
the moment; one worker per executive (not per task) takes the first frame
that arrives after it, so a step's end shows the world after the step, or,
if none arrives within ``settle_s``, the newest before it. Moments of one
tick and step share one frame event; a moment whose image is the one already saved
(the camera showed nothing new) gets a frame event naming the same file.
When the task ends, ``TaskFrames.finish`` lets the worker take the remaining
moments' newest frames without waiting, and the worker then closes the run's
logs. The tick that ends the task does not wait for those frames (waiting
held it 17 ms median, up to 112 ms, over 40 tasks of ``benchmarks/soak.py``,
and a preempting task's start as long); the goal's answer does
(``RunRecorder.wait_closed``).

Frames go to disk, never into a per-task list: the executive holds one image
message per camera, whatever the number of tasks. The worker holds its
recorder only while it takes a frame: a recorder nobody closed (an executive a
test dropped) is collected, and its worker thread ends with it instead of
keeping the executive's node, and so its DDS participant, alive for good. A robot without cameras
(its profile lists none) or with ``record_frames: false`` subscribes to
nothing and records no frames; a camera that never publishes only leaves its
frames out.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bt_executive.executive.frame_cache import FrameCache
from bt_executive.executive.run_frames import FRAME_EVENT, FrameRecord, FrameStore, encode_jpeg, is_moment
from bt_executive.skills.sensor_msgs_conversion import BadImage, image_array
from bt_executive.trees.task_context import TaskEvent

if TYPE_CHECKING:
    from rclpy.node import Node

    from bt_executive.executive.params import ExecutiveParams
    from bt_executive.executive.run_dir import RunWriter

SETTLE_S = 0.3
"""How long a moment waits for a frame newer than itself (the sim renders at 10 Hz of sim time)."""
QUEUE_LIMIT = 64

_log = logging.getLogger("bt_executive.executive")


def _same_step(moment: _Moment, first: _Moment) -> bool:
    """Whether ``moment`` may be told in ``first``'s frame event (which carries one plan and step)."""
    return moment.task is first.task and (moment.event.plan, moment.event.step) == (first.event.plan, first.event.step)


@dataclass
class _Moment:
    task: TaskFrames
    event: TaskEvent
    at: float
    """monotonic time it happened"""
    run_t: float


class TaskFrames:
    """One task's share of the recorder: the listener for its events and the finish that flushes them."""

    def __init__(self, recorder: FrameRecorder, writer: RunWriter) -> None:
        self.recorder = recorder
        self.writer = writer
        self.store = FrameStore(writer.path, max_bytes=recorder.max_bytes, max_width=recorder.max_width)
        self.closing = False
        self.saved = 0
        self.last_frames: dict[str, tuple[tuple[int, int], FrameRecord]] = {}
        """Per camera: the header stamp of the last image saved, and its record (a repeat names its file)."""
        self._pending = 0
        self._then: Callable[[], None] | None = None
        self._lock = threading.Lock()

    def on_event(self, event: TaskEvent) -> None:
        """A TaskTree listener: queue a frame for the moments that matter (no image work on the tick)."""
        if self.closing or not self.recorder.cameras or not is_moment(event):
            return
        moment = _Moment(self, event, time.monotonic(), self.writer.elapsed())
        with self._lock:
            self._pending += 1
        if not self.recorder.submit(moment):
            self.processed(1)

    def processed(self, count: int) -> None:
        """The worker is done with ``count`` of this task's moments (after ``finish``, the last one calls ``then``)."""
        with self._lock:
            self._pending -= count
            then = self._then_once()
        if then is not None:
            then()

    def finish(self, then: Callable[[], None]) -> None:
        """Take the remaining moments' frames without waiting for newer ones, then call ``then``; returns at once.

        ``then`` (the run's logs closing) runs on the worker after this task's last frame, or here if
        none is pending: the tick that ends a task never waits for a JPEG.
        """
        with self._lock:
            self.closing = True
            self._then = then
            now = self._then_once()
        if now is not None:
            now()

    def _then_once(self) -> Callable[[], None] | None:
        """``finish``'s ``then``, once, when the task has finished and no moment is pending (lock held)."""
        if not self.closing or self._pending > 0:
            return None
        then, self._then = self._then, None
        return then


class _Inbox:
    """The moments queued for the worker and whether it should stop: all the worker holds while it waits."""

    def __init__(self) -> None:
        self.queue: deque[_Moment] = deque()
        self.ready = threading.Condition()
        self.stopping = False

    def stop(self) -> None:
        """End the worker after the moments queued (which it takes without waiting for newer frames)."""
        with self.ready:
            self.stopping = True
            for moment in self.queue:
                moment.task.closing = True
            self.ready.notify_all()


class FrameRecorder:
    """One per executive: the cameras' caches, a worker thread, and the moments queued for it."""

    def __init__(
        self,
        cameras: Mapping[str, FrameCache],
        *,
        max_bytes: int,
        max_width: int,
        settle_s: float = SETTLE_S,
        owned: tuple[FrameCache, ...] = (),
    ) -> None:
        self.cameras = dict(cameras)
        self.max_bytes = max_bytes
        self.max_width = max_width
        self.settle_s = settle_s
        self.dropped_moments = 0
        self._owned = owned
        self._inbox = _Inbox()
        self._thread: threading.Thread | None = None
        if self.cameras:
            for cache in self.cameras.values():
                cache.subscribe()
            # Pillow loads its plugins on the first save (~0.2 s with the GIL held): now, not in a task's tick.
            encode_jpeg(np.zeros((8, 8, 3), np.uint8))
            self._thread = threading.Thread(
                target=_work, args=(self._inbox, weakref.ref(self)), name="frame-recorder", daemon=True
            )
            self._thread.start()
            weakref.finalize(self, self._inbox.stop)  # collected without close(): the worker ends too

    @classmethod
    def for_robot(cls, node: Node, params: ExecutiveParams, front: FrameCache) -> FrameRecorder:
        """The cameras of the robot profile: ``front`` on the node's front-camera cache, the others on theirs."""
        from bt_executive.skills.capabilities import RobotCapabilities

        names = RobotCapabilities.from_yaml(params.capabilities_path()).cameras if params.record_frames else ()
        owned = {n: FrameCache(node, params.camera_topic.format(camera=n)) for n in names if n != "front"}
        cameras = {n: front if n == "front" else owned[n] for n in names}
        return cls(cameras, max_bytes=params.frames_max_bytes, max_width=params.frame_width, owned=(*owned.values(),))

    def start_task(self, writer: RunWriter) -> TaskFrames:
        """The listener and finish for one task recorded by ``writer``."""
        return TaskFrames(self, writer)

    def submit(self, moment: _Moment) -> bool:
        """Queue a moment; False (counted) if the queue is full or the recorder stopped."""
        inbox = self._inbox
        with inbox.ready:
            if inbox.stopping or len(inbox.queue) >= QUEUE_LIMIT:
                self.dropped_moments += 1
                return False
            inbox.queue.append(moment)
            inbox.ready.notify()
            return True

    def close(self) -> None:
        """Stop the worker (after the moments queued) and destroy the subscriptions this recorder made."""
        self._inbox.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for cache in self._owned:
            cache.destroy()

    @property
    def working(self) -> bool:
        """Whether the worker thread runs (it ends on ``close``, or when the recorder is collected)."""
        return self._thread is not None and self._thread.is_alive()

    # the worker -------------------------------------------------------------------------------------

    def _take(self, first: _Moment) -> int:
        """Record the frames of ``first`` and of the queued moments that would show the same images."""
        task = first.task
        wait_s = 0.0 if task.closing else self.settle_s
        images: dict[str, tuple[Any, float]] = {}
        for camera, cache in self.cameras.items():
            got = cache.newest_after(first.at, wait_s, hurry=lambda: task.closing or self._inbox.stopping)
            if got is not None:
                images[camera] = got
        if not images:
            return 1
        oldest = min(arrived for _, arrived in images.values())
        moments = [first]
        queue = self._inbox.queue
        # The same step's moments of one tick (a failed step_end, its retry, the restart) share one.
        with self._inbox.ready:
            while queue and _same_step(queue[0], first) and queue[0].at < oldest:
                moments.append(queue.popleft())
        kinds = [m.event.kind for m in moments]
        for camera, (message, _) in images.items():
            self._save(task, first, camera, message, kinds)
        return len(moments)

    def _save(self, task: TaskFrames, first: _Moment, camera: str, message: Any, kinds: list[str]) -> None:
        stamp = (int(message.header.stamp.sec), int(message.header.stamp.nanosec))
        last = task.last_frames.get(camera)
        if last is not None and last[0] == stamp:  # nothing new on this camera: name the same file again
            record = last[1].model_copy(update={"moments": tuple(kinds), "run_t": round(first.run_t, 4)})
        else:
            try:
                frame = image_array(message)
            except BadImage as err:
                _log.warning("camera %s: frame not recorded: %s", camera, err)
                return
            seconds = round(stamp[0] + stamp[1] * 1e-9, 4)
            record = task.store.save(camera, frame, moments=kinds, run_t=first.run_t, stamp=seconds)
            task.saved += 1
        task.last_frames[camera] = (stamp, record)
        event = first.event
        data = record.model_dump(mode="json")  # a writer closed meanwhile ignores the event
        task.writer.event(TaskEvent(kind=FRAME_EVENT, t=event.t, plan=event.plan, step=event.step, data=data))


def _work(inbox: _Inbox, owner: weakref.ref[FrameRecorder]) -> None:
    """The worker thread: take the queued moments' frames until the recorder stops or is collected."""
    while _take_next(inbox, owner):
        pass


def _take_next(inbox: _Inbox, owner: weakref.ref[FrameRecorder]) -> bool:
    """Wait for a moment and record it; False when the worker should end.

    The recorder is held only in this call, never while waiting: a queued moment holds it (through
    its task), an empty queue does not, so an idle recorder nobody closed can be collected.
    """
    with inbox.ready:
        inbox.ready.wait_for(lambda: bool(inbox.queue) or inbox.stopping)
        if not inbox.queue:
            return False
        first = inbox.queue.popleft()
    recorder = owner()
    if recorder is None:
        return False
    try:
        taken = recorder._take(first)
    except Exception:  # a frame must never end the recorder: the run goes on without it
        _log.exception("frame for %s not recorded", first.event.kind)
        taken = 1
    first.task.processed(taken)
    return True

"""Camera frames in a run directory: small JPEGs under ``frames/``, named in ``events.jsonl``, bounded in bytes.

::

    <run>/frames/0003-front.jpg        at most FRAME_WIDTH px wide (never enlarged), JPEG
    <run>/events.jsonl                 ... {"kind": "frame", "t": 2.41, "plan": 0, "step": 1,
                                            "data": {"camera": "front", "file": "frames/0003-front.jpg",
                                                     "moments": ["step_end", "retry", "step_start"],
                                                     "run_t": 2.43, ...}}

A frame is an event of its own (kind ``frame``) rather than a field on the
event it illustrates: the event log stays append-only while frames are encoded
off the tick thread, and a reader that does not know frames skips them as it
skips any kind it does not know. ``t`` and ``plan``/``step`` are those of the
first moment the frame shows (``data.moments`` names their kinds: the moments
of one tick, a failed step_end, its retry and the step_start after it, share
one image rather than storing it three times); ``data.run_t`` is on
the snapshots' clock (seconds since the run directory was made), so a replay
can put the frame nearest a snapshot beside it.

The total is bounded (``max_bytes``, 4 MB by default): when a new frame would
pass it, the oldest frames that are neither a camera's first nor its newest
are deleted first. Their ``frame`` events stay in the log (it is append-only);
``RunFrames`` lists only the frames whose file is still there, and counts the
dropped ones. A moment whose camera showed nothing new since the last frame
(the goal check right after the last step's end) names that frame's file
again instead of storing the same picture twice.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bt_executive.trees.task_context import TaskEvent

FRAMES_DIR = "frames"
FRAME_EVENT = "frame"
FRAME_WIDTH = 320
"""Frames wider than this are scaled down to it (aspect kept); narrower ones are kept as they are."""
MAX_RUN_FRAME_BYTES = 4_000_000
JPEG_QUALITY = 80
MOMENTS = frozenset(
    {
        "task",
        "step_start",
        "step_end",
        "retry",
        "recovery",
        "recovery_end",
        "plan_refused",
        "planner_refused",
        "goal_check",
        "final",
    }
)
"""Event kinds that get a frame; ``planning`` too when it is a replan."""


def is_moment(event: TaskEvent) -> bool:
    """Whether ``event`` is a moment worth a frame: the task's start, a step's start or end, a failure's handling..."""
    return event.kind in MOMENTS or (event.kind == "planning" and event.data.get("replan") is True)


class FrameRecord(BaseModel):
    """``data`` of a ``frame`` event: which camera, which file, which moment, on which clocks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    camera: str = Field(min_length=1)
    file: str = Field(description="path relative to the run directory, under frames/")
    moments: tuple[str, ...] = Field(
        min_length=1,
        description="kinds of the events it shows (task, step_end, retry, ...): the first is the event's own "
        "t/plan/step; moments of one tick share one image",
    )
    run_t: float = Field(ge=0.0, description="seconds since the run directory was made (the snapshots' clock)")
    stamp: float | None = Field(default=None, description="the image's own header stamp, seconds (sim or robot time)")
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    bytes: int = Field(ge=0)


def encode_jpeg(
    frame: npt.NDArray[np.uint8], *, max_width: int = FRAME_WIDTH, quality: int = JPEG_QUALITY
) -> tuple[bytes, int, int]:
    """A JPEG of an H x W x 3 uint8 frame, at most ``max_width`` wide; with its width and height."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected an H x W x 3 uint8 frame, got shape {frame.shape} dtype {frame.dtype}")
    from PIL import Image  # here, not at import: reading a run dir needs no imaging library

    image = Image.fromarray(np.ascontiguousarray(frame), "RGB")
    if image.width > max_width:
        height = max(1, round(image.height * max_width / image.width))
        image = image.resize((max_width, height), Image.Resampling.BILINEAR)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=quality)
    return out.getvalue(), image.width, image.height


@dataclass
class _Kept:
    name: str
    camera: str
    size: int


class FrameBudget:
    """Which frames to delete so that the kept ones stay within ``max_bytes``.

    Each camera's first frame (what the robot saw at the start) and newest
    frame (what it sees now) are kept; among the others the oldest goes first.
    If those alone pass the bound, nothing more can go: the bound is then
    exceeded by at most two frames per camera.
    """

    def __init__(self, max_bytes: int = MAX_RUN_FRAME_BYTES) -> None:
        if max_bytes <= 0:
            raise ValueError(f"max_bytes: must be > 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self.total = 0
        self.dropped = 0
        self._kept: list[_Kept] = []

    @property
    def kept(self) -> list[str]:
        """Names of the frames kept, oldest first."""
        return [k.name for k in self._kept]

    def add(self, name: str, camera: str, size: int) -> list[str]:
        """Count one new frame; the names of the older frames to delete now, oldest first."""
        self._kept.append(_Kept(name, camera, size))
        self.total += size
        drop: list[str] = []
        while self.total > self.max_bytes:
            victim = self._oldest_middle()
            if victim is None:
                break
            self._kept.remove(victim)
            self.total -= victim.size
            self.dropped += 1
            drop.append(victim.name)
        return drop

    def _oldest_middle(self) -> _Kept | None:
        firsts: dict[str, _Kept] = {}
        lasts: dict[str, _Kept] = {}
        for kept in self._kept:
            firsts.setdefault(kept.camera, kept)
            lasts[kept.camera] = kept
        protected = {id(k) for k in (*firsts.values(), *lasts.values())}
        return next((k for k in self._kept if id(k) not in protected), None)


class FrameStore:
    """Writes one run's frames into ``<run>/frames/`` within a byte budget; safe to call from any thread."""

    def __init__(self, run: Path, *, max_bytes: int = MAX_RUN_FRAME_BYTES, max_width: int = FRAME_WIDTH) -> None:
        self.run = run
        self.folder = run / FRAMES_DIR
        self.max_width = max_width
        self.budget = FrameBudget(max_bytes)
        self._lock = threading.Lock()
        self._count = 0

    def save(
        self,
        camera: str,
        frame: npt.NDArray[np.uint8],
        *,
        moments: Sequence[str],
        run_t: float,
        stamp: float | None = None,
    ) -> FrameRecord:
        """Encode and write one frame (deleting older ones past the budget); its record for the event log."""
        data, width, height = encode_jpeg(frame, max_width=self.max_width)
        with self._lock:
            self.folder.mkdir(exist_ok=True)
            name = f"{FRAMES_DIR}/{self._count:04d}-{camera}.jpg"
            self._count += 1
            (self.run / name).write_bytes(data)
            for old in self.budget.add(name, camera, len(data)):
                (self.run / old).unlink(missing_ok=True)
        return FrameRecord(
            camera=camera,
            file=name,
            moments=tuple(moments),
            run_t=round(run_t, 4),
            stamp=stamp,
            width=width,
            height=height,
            bytes=len(data),
        )


@dataclass(frozen=True)
class RunFrame:
    """One frame of a recorded run, as readers (``runs show``, the viewer, the report) list it."""

    t: float
    plan: int | None
    step: int | None
    record: FrameRecord

    @property
    def label(self) -> str:
        """``front 2.41s step_end+retry (plan 0 step 1)``."""
        where = " ".join(f"{k} {v}" for k, v in (("plan", self.plan), ("step", self.step)) if v is not None)
        moments = "+".join(self.record.moments)
        return f"{self.record.camera} {self.t:.2f}s {moments}" + (f" ({where})" if where else "")


@dataclass(frozen=True)
class RunFrames:
    """The frames a run kept (files present), in log order, and how many its budget dropped."""

    frames: tuple[RunFrame, ...]
    dropped: int

    @property
    def total_bytes(self) -> int:
        """Bytes of the kept frame files (a file named by several moments counts once)."""
        return sum({f.record.file: f.record.bytes for f in self.frames}.values())

    @property
    def files(self) -> int:
        """How many frame files the run kept."""
        return len({f.record.file for f in self.frames})


def run_frames(run: Path, events: Sequence[TaskEvent]) -> RunFrames:
    """The ``frame`` events of a run whose file is still in ``frames/``; ValueError naming a malformed one."""
    kept: list[RunFrame] = []
    dropped = 0
    for index, event in enumerate(events):
        if event.kind != FRAME_EVENT:
            continue
        try:
            record = FrameRecord.model_validate(event.data)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ValueError(f"{run / 'events.jsonl'}: frame event {index}: data.{where}: {first['msg']}") from None
        if not _inside(run, record.file):
            where = f"{run / 'events.jsonl'}: frame event {index}"
            raise ValueError(f"{where}: data.file {record.file!r} is not in {FRAMES_DIR}/") from None
        if (run / record.file).is_file():
            kept.append(RunFrame(event.t, event.plan, event.step, record))
        else:
            dropped += 1
    return RunFrames(tuple(kept), dropped)


def _inside(run: Path, file: str) -> bool:
    """Whether ``file`` names a file under ``<run>/frames/`` (a hand-edited log cannot point elsewhere)."""
    path = (run / file).resolve()
    return path.parent == (run / FRAMES_DIR).resolve()

"""LiveFrames: the newest camera frame of each camera, as a JPEG a browser asks for at most twice a second.

The viewer's camera subscription (``topic_bridge.LiveTopic``) or a test calls
``put`` with every frame (a view of the message's bytes: nothing is copied
or encoded there, however fast the camera publishes). ``jpeg`` encodes only
when a browser asks, and at most once per ``min_period_s`` per camera: a
second browser, or a page that asks too often, gets the cached picture.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bt_executive.executive.run_frames import FRAME_WIDTH, encode_jpeg

MIN_PERIOD_S = 0.5
"""2 Hz: enough to see the arm move, cheap enough to leave a viewer open all day."""


@dataclass(frozen=True)
class LiveJpeg:
    """One encoded frame: its bytes and the image's own stamp (seconds)."""

    data: bytes
    stamp: float


class LiveFrames:
    """Thread-safe latest frame per camera, encoded on demand and rate-limited."""

    def __init__(self, cameras: tuple[str, ...] = ("front",), *, min_period_s: float = MIN_PERIOD_S) -> None:
        self.cameras = cameras
        self.min_period_s = min_period_s
        self.encoded = 0
        self._lock = threading.Lock()
        self._latest: dict[str, tuple[npt.NDArray[np.uint8], float]] = {}
        self._cache: dict[str, tuple[float, LiveJpeg]] = {}

    def put(self, camera: str, frame: npt.NDArray[np.uint8], stamp: float) -> None:
        """Keep ``frame`` as ``camera``'s newest (not copied: do not change it afterwards)."""
        with self._lock:
            self._latest[camera] = (frame, stamp)

    def jpeg(self, camera: str) -> LiveJpeg | None:
        """The newest frame as JPEG, re-encoded at most every ``min_period_s``; None before the first."""
        with self._lock:
            latest = self._latest.get(camera)
            cached = self._cache.get(camera)
            if latest is None:
                return None
            now = time.monotonic()
            if cached is not None and (now - cached[0] < self.min_period_s or cached[1].stamp == latest[1]):
                return cached[1]
            data, _, _ = encode_jpeg(latest[0], max_width=FRAME_WIDTH)
            encoded = LiveJpeg(data, latest[1])
            self._cache[camera] = (now, encoded)
            self.encoded += 1
            return encoded

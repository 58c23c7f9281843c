"""numpy <-> ROS 2 sensor and command messages, for the robot side (sim) and the executive side (VLA loop).

Images are ``sensor_msgs/Image`` in ``rgb8`` (``bgr8`` is read too), rows
top to bottom as ROS defines them, ``step`` bytes per row. Times are
``builtin_interfaces/Time`` in seconds as a float. Message modules are
imported lazily: importing this module needs no ROS.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

RGB8 = "rgb8"
BGR8 = "bgr8"


class BadImage(ValueError):
    """An Image message this code cannot read as an HxWx3 uint8 frame (its encoding or sizes are wrong)."""


def stamp_to_seconds(stamp: Any) -> float:
    """A ``builtin_interfaces/Time`` as seconds."""
    return float(stamp.sec) + float(stamp.nanosec) * 1e-9


def seconds_to_stamp(seconds: float) -> Any:
    """Seconds as a ``builtin_interfaces/Time`` (non-negative)."""
    from builtin_interfaces.msg import Time

    nanoseconds = max(0, round(seconds * 1e9))
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def seconds_to_duration(seconds: float) -> Any:
    """Seconds as a ``builtin_interfaces/Duration``."""
    from builtin_interfaces.msg import Duration

    nanoseconds = max(0, round(seconds * 1e9))
    return Duration(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def image_message(frame: npt.NDArray[np.uint8], stamp_s: float, frame_id: str) -> Any:
    """An ``rgb8`` ``sensor_msgs/Image`` of an HxWx3 RGB frame whose row 0 is the top of the picture."""
    from sensor_msgs.msg import Image

    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise BadImage(f"expected an HxWx3 uint8 frame, got {frame.dtype} {frame.shape}")
    height, width, _ = frame.shape
    message = Image()
    message.header.stamp = seconds_to_stamp(stamp_s)
    message.header.frame_id = frame_id
    message.height = height
    message.width = width
    message.encoding = RGB8
    message.is_bigendian = 0
    message.step = width * 3
    message.data = np.ascontiguousarray(frame).tobytes()
    return message


def image_array(message: Any) -> npt.NDArray[np.uint8]:
    """The HxWx3 RGB frame of an ``rgb8`` or ``bgr8`` Image (a view when possible); ``BadImage`` otherwise."""
    encoding = str(message.encoding)
    if encoding not in (RGB8, BGR8):
        raise BadImage(f"encoding {encoding!r}: only rgb8 and bgr8 are read")
    height, width, step = int(message.height), int(message.width), int(message.step)
    if step < width * 3 or len(message.data) < step * height:
        raise BadImage(f"{width}x{height} with step {step} does not fit {len(message.data)} bytes")
    rows = np.frombuffer(message.data, dtype=np.uint8, count=step * height).reshape(height, step)
    frame = rows[:, : width * 3].reshape(height, width, 3)
    return frame[:, :, ::-1] if encoding == BGR8 else frame


def joint_positions(names: Sequence[str], positions: Sequence[float], wanted: Sequence[str]) -> list[float] | None:
    """``wanted`` joints' positions from a JointState's parallel name/position lists; None if one is missing."""
    index = {name: i for i, name in enumerate(names)}
    if any(name not in index or index[name] >= len(positions) for name in wanted):
        return None
    return [float(positions[index[name]]) for name in wanted]

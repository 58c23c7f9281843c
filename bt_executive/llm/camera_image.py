"""Camera frames as chat image content, for planners whose model takes images (a VLM).

A frame (H x W x 3 uint8, as ``SimBackend.render`` gives it) is encoded as a
PNG with zlib and struct only, so the planner needs no imaging library, and
sent as an OpenAI ``image_url`` content part holding a ``data:`` URL, the
form litellm passes to every vision provider.
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import numpy as np
import numpy.typing as npt

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(frame: npt.NDArray[np.uint8]) -> bytes:
    """A lossless RGB PNG of an H x W x 3 uint8 frame."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected an H x W x 3 uint8 frame, got shape {frame.shape} dtype {frame.dtype}")
    height, width = frame.shape[:2]
    # Filter type 0 (none) on every row: a zero byte before each scanline.
    rows = np.concatenate([np.zeros((height, 1), np.uint8), np.ascontiguousarray(frame).reshape(height, -1)], axis=1)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        _PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
        + _chunk(b"IEND", b"")
    )


def image_part(frame: npt.NDArray[np.uint8]) -> dict[str, Any]:
    """The chat content part carrying ``frame`` as a PNG data URL."""
    data = base64.b64encode(encode_png(frame)).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}

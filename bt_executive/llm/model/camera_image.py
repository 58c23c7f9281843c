"""Camera frames as chat image content, for planners whose model takes images (a VLM).

A frame (H x W x 3 uint8, as ``SimBackend.render`` gives it) is encoded as a
lossless PNG with Pillow, the one imaging library of the project (the run
record's JPEG frames use it too), and sent as an OpenAI ``image_url`` content
part holding a ``data:`` URL, the form litellm passes to every vision provider.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image


def encode_png(frame: npt.NDArray[np.uint8]) -> bytes:
    """A lossless RGB PNG of an H x W x 3 uint8 frame."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected an H x W x 3 uint8 frame, got shape {frame.shape} dtype {frame.dtype}")
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(frame), "RGB").save(out, format="PNG", compress_level=6)
    return out.getvalue()


def image_part(frame: npt.NDArray[np.uint8]) -> dict[str, Any]:
    """The chat content part carrying ``frame`` as a PNG data URL."""
    data = base64.b64encode(encode_png(frame)).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}

"""Camera frames become PNG data URLs a VLM can read (Pillow encodes; a reader written here checks them)."""

from __future__ import annotations

import base64
import struct
import zlib

import numpy as np
import pytest

from bt_executive.llm.model.camera_image import encode_png, image_part


def _unfilter(rows: np.ndarray, width: int) -> np.ndarray:
    """Undo the five PNG row filters (none, sub, up, average, Paeth) of 8-bit RGB scanlines."""
    stride, bpp = width * 3, 3
    out = np.zeros((rows.shape[0], stride), np.int32)
    for y, row in enumerate(rows):
        kind, line = int(row[0]), row[1:].astype(np.int32)
        up = out[y - 1] if y else np.zeros(stride, np.int32)
        for x in range(stride):
            left = out[y, x - bpp] if x >= bpp else 0
            corner = up[x - bpp] if x >= bpp and y else 0
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = left
            elif kind == 2:
                pred = up[x]
            elif kind == 3:
                pred = (left + up[x]) // 2
            else:
                p = left + up[x] - corner
                pa, pb, pc = abs(p - left), abs(p - up[x]), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else (up[x] if pb <= pc else corner)
            out[y, x] = (line[x] + pred) & 0xFF
    return out.astype(np.uint8)


def _decode(png: bytes) -> np.ndarray:
    """A minimal reader for the 8-bit RGB, non-interlaced PNGs encode_png writes (any row filter)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, width, height = 8, b"", 0, 0
    while offset < len(png):
        (length,) = struct.unpack(">I", png[offset : offset + 4])
        kind, data = png[offset + 4 : offset + 8], png[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", data[:8])
        elif kind == b"IDAT":
            idat += data
        offset += 12 + length
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * 3)
    return _unfilter(rows, width).reshape(height, width, 3)


def test_a_frame_round_trips_through_png() -> None:
    frame = np.random.default_rng(0).integers(0, 256, (24, 32, 3), dtype=np.uint8)
    assert np.array_equal(_decode(encode_png(frame)), frame)


def test_image_part_is_an_openai_image_url_with_a_png_data_url() -> None:
    part = image_part(np.zeros((4, 4, 3), np.uint8))
    url = part["image_url"]["url"]
    assert (part["type"], base64.b64decode(url.split(",", 1)[1])[:4]) == ("image_url", b"\x89PNG")


def test_a_frame_that_is_not_rgb_uint8_is_refused() -> None:
    with pytest.raises(ValueError, match="H x W x 3 uint8"):
        encode_png(np.zeros((4, 4), np.float32))

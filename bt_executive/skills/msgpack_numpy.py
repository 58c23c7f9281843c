"""The openpi policy-server wire encoding: msgpack with numpy arrays and scalars.

A real openpi server (``openpi_client/msgpack_numpy.py``) and this one must
agree byte for byte, so the encoding is the same:

- an ``ndarray`` becomes the map ``{b"__ndarray__": True, b"data": raw bytes,
  b"dtype": dtype.str, b"shape": shape}`` (keys are msgpack *bin*, not str);
- a numpy scalar becomes ``{b"__npgeneric__": True, b"data": item, b"dtype": dtype.str}``;
- object, void and complex dtypes are refused (they would need pickle).

Decoding turns those maps back into numpy values; everything else is plain
msgpack. A decoded array is a read-only view of the received bytes (no copy),
as in openpi. Unlike pickle, decoding runs no code.
"""

from __future__ import annotations

import functools
from typing import Any

import msgpack
import numpy as np

_ARRAY = b"__ndarray__"
_SCALAR = b"__npgeneric__"


def pack_array(obj: Any) -> Any:
    """msgpack ``default`` hook: numpy arrays and scalars as openpi's tagged maps."""
    if isinstance(obj, np.ndarray | np.generic) and obj.dtype.kind in ("V", "O", "c"):
        raise ValueError(f"Unsupported dtype: {obj.dtype}")
    if isinstance(obj, np.ndarray):
        return {_ARRAY: True, b"data": obj.tobytes(), b"dtype": obj.dtype.str, b"shape": obj.shape}
    if isinstance(obj, np.generic):
        return {_SCALAR: True, b"data": obj.item(), b"dtype": obj.dtype.str}
    return obj


def unpack_array(obj: dict[Any, Any]) -> Any:
    """msgpack ``object_hook``: openpi's tagged maps back into numpy arrays and scalars."""
    if _ARRAY in obj:
        return np.ndarray(buffer=obj[b"data"], dtype=np.dtype(obj[b"dtype"]), shape=obj[b"shape"])
    if _SCALAR in obj:
        return np.dtype(obj[b"dtype"]).type(obj[b"data"])
    return obj


Packer = functools.partial(msgpack.Packer, default=pack_array)
"""A reusable packer (openpi keeps one per connection)."""
packb = functools.partial(msgpack.packb, default=pack_array)
"""Encode one message."""
unpackb = functools.partial(msgpack.unpackb, object_hook=unpack_array)
"""Decode one message."""

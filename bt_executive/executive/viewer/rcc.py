"""A reader of Qt's compiled resources (``pyrcc5`` output) that needs no Qt.

``pyrcc5`` turns files into a Python module holding three byte strings:

- ``qt_resource_struct`` (v1: 14 bytes per entry; v2: 22, the extra 8 a
  modification time): name offset (u32), flags (u16: 1 zlib-compressed,
  2 directory, 4 zstd), then for a directory child count (u32) and first
  child index (u32), for a file country (u16), language (u16) and data
  offset (u32). Entry 0 is the root directory. All big-endian.
- ``qt_resource_name``: per name, length in UTF-16 units (u16), hash (u32),
  the UTF-16BE text.
- ``qt_resource_data``: per file, size (u32) then the bytes; compressed
  ones start with the uncompressed size (u32) before the zlib stream.

The module itself imports PyQt5 (346 MB we do not install), so it is never
imported: its byte-string literals are found in the source and evaluated
with ``ast.literal_eval`` (literals only, no code runs).
"""

from __future__ import annotations

import ast
import re
import struct
import zlib
from pathlib import Path

_COMPRESSED = 0x1
_DIRECTORY = 0x2
_COMPRESSED_ZSTD = 0x4


class ResourceError(ValueError):
    """The file is not pyrcc output this reader understands."""


def read_rcc_module(path: Path) -> dict[str, bytes]:
    """Every file in a pyrcc-generated Python module, by its resource path (``js/py_trees-0.6.js``)."""
    source = path.read_text(encoding="utf-8")
    data = _literal(source, "qt_resource_data", path)
    names = _literal(source, "qt_resource_name", path)
    version = 2 if re.search(r"^qt_resource_struct_v2 = ", source, re.M) else 1
    tree = _literal(source, "qt_resource_struct_v2" if version == 2 else "qt_resource_struct", path)
    return read_rcc_tables(tree, names, data, version=version)


def read_rcc_tables(tree: bytes, names: bytes, data: bytes, *, version: int = 2) -> dict[str, bytes]:
    """Decode the three tables (see the module docstring) into path -> file bytes."""
    entry_size = 22 if version >= 2 else 14
    files: dict[str, bytes] = {}

    def name_at(offset: int) -> str:
        (length,) = struct.unpack_from(">H", names, offset)
        return names[offset + 6 : offset + 6 + 2 * length].decode("utf-16-be")

    def walk(index: int, prefix: str, depth: int) -> None:
        if depth > 64:
            raise ResourceError("resource tree deeper than 64 levels (corrupt?)")
        base = index * entry_size
        name_offset, flags = struct.unpack_from(">IH", tree, base)
        name = name_at(name_offset) if index else ""
        if flags & _DIRECTORY:
            count, first = struct.unpack_from(">II", tree, base + 6)
            for child in range(first, first + count):
                walk(child, f"{prefix}{name}/" if index else "", depth + 1)
            return
        (offset,) = struct.unpack_from(">I", tree, base + 10)
        (size,) = struct.unpack_from(">I", data, offset)
        blob = data[offset + 4 : offset + 4 + size]
        if flags & _COMPRESSED_ZSTD:
            raise ResourceError(f"{prefix}{name}: zstd-compressed resources are not supported")
        if flags & _COMPRESSED:
            blob = zlib.decompress(blob[4:])
        files[prefix + name] = blob

    try:
        walk(0, "", 0)
    except (struct.error, zlib.error, UnicodeDecodeError) as err:
        raise ResourceError(f"corrupt resource tables: {err}") from None
    return files


def _literal(source: str, name: str, path: Path) -> bytes:
    match = re.search(rf'^{name} = (b".*?")\s*$', source, re.S | re.M)
    if match is None:
        raise ResourceError(f"{path}: no {name} (not a pyrcc5 resource module)")
    value = ast.literal_eval(match.group(1))
    if not isinstance(value, bytes):
        raise ResourceError(f"{path}: {name} is not a byte string")
    return value

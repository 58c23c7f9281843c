"""py_trees_js's files read out of the py-trees-js package's compiled Qt resources, without Qt."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from bt_executive.executive.viewer.assets import SCRIPTS, STYLESHEETS, py_trees_js_assets
from bt_executive.executive.viewer.rcc import ResourceError, read_rcc_module, read_rcc_tables


def test_every_script_and_stylesheet_the_page_loads_is_in_the_package() -> None:
    assets = py_trees_js_assets()
    assert all(assets[name] for name in (*SCRIPTS, *STYLESHEETS))


def test_the_compressed_py_trees_script_decompresses_to_the_library() -> None:
    assert b"var py_trees = (function()" in py_trees_js_assets()["js/py_trees-0.6.js"]


def _name(text: str) -> bytes:
    encoded = text.encode("utf-16-be")
    return struct.pack(">HI", len(text), 0) + encoded


def test_the_reader_walks_directories_and_both_storage_kinds() -> None:
    # root dir -> "d" dir -> files "a" (stored) and "b" (zlib), rcc v2 (22-byte entries).
    names = _name("d") + _name("a") + _name("b")
    plain, packed = b"hello", zlib.compress(b"world")
    data = struct.pack(">I", len(plain)) + plain
    data += struct.pack(">I", len(packed) + 4) + struct.pack(">I", 5) + packed
    pad = b"\0" * 8
    tree = (
        struct.pack(">IHII", 0, 2, 1, 1) + pad  # root: 1 child from index 1
        + struct.pack(">IHII", 0, 2, 2, 2) + pad  # d: 2 children from index 2
        + struct.pack(">IHHHI", 8, 0, 0, 0, 0) + pad  # a
        + struct.pack(">IHHHI", 16, 1, 0, 0, 4 + len(plain)) + pad  # b, compressed
    )  # fmt: skip
    assert read_rcc_tables(tree, names, data, version=2) == {"d/a": b"hello", "d/b": b"world"}


def test_a_module_that_is_not_pyrcc_output_is_refused_by_name(tmp_path: Path) -> None:
    module = tmp_path / "resources.py"
    module.write_text("x = 1\n")
    with pytest.raises(ResourceError, match="no qt_resource_data"):
        read_rcc_module(module)

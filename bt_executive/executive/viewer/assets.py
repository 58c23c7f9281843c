"""py_trees_js's JavaScript and CSS, read out of the installed ``py-trees-js`` package.

The package (0.7.0, installed ``--no-deps``: its PyQt5 dependency is only for
its own Qt viewer) ships the files only inside ``py_trees_js/resources.py``.
It is located through the import system without importing it (importing
would need PyQt5), read once, and served from memory.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from bt_executive.executive.viewer.rcc import read_rcc_module

PACKAGE = "py_trees_js"
INSTALL_HINT = "pip install --no-deps py-trees-js==0.7.0 (listed in requirements-nodeps.txt)"

SCRIPTS = (
    "js/jointjs/dagre-0.8.4.min.js",
    "js/jointjs/graphlib-2.1.7.min.js",
    "js/jointjs/jquery-3.4.1.min.js",
    "js/jointjs/lodash-4.17.11.min.js",
    "js/jointjs/backbone-1.4.0.js",
    "js/jointjs/joint-3.0.4.min.js",
    "js/py_trees-0.6.js",
)
"""In the order the page loads them (py_trees_js's own index.html order)."""

STYLESHEETS = ("js/py_trees-0.6.css", "js/jointjs/joint-3.0.4.min.css")


class AssetsMissing(FileNotFoundError):
    """py-trees-js is not installed (or is a version without these files)."""


def resource_module_path() -> Path:
    """``.../site-packages/py_trees_js/resources.py``, found without importing the package."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise AssetsMissing(f"the viewer needs the {PACKAGE} package: {INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / "resources.py"
    if not path.is_file():
        raise AssetsMissing(f"{path} is missing: {INSTALL_HINT}")
    return path


@functools.cache
def py_trees_js_assets() -> dict[str, bytes]:
    """Resource path -> bytes for every file the page needs; AssetsMissing naming what is absent."""
    files = read_rcc_module(resource_module_path())
    missing = [name for name in (*SCRIPTS, *STYLESHEETS) if name not in files]
    if missing:
        raise AssetsMissing(f"py_trees_js resources lack {', '.join(missing)}: {INSTALL_HINT}")
    return files

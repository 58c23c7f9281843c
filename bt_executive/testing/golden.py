"""Golden snapshots of trees: a tree's text rendering compared with a reviewed file.

::

    def test_pick_and_place_tree_shape(assert_golden):
        assert_golden(build_tree(plan), "pick_and_place")      # golden/pick_and_place.txt

A tree (a behaviour or a ``BehaviourTree``) renders with
``py_trees.display.unicode_tree`` (names and composite shapes; add
``show_status=True`` for statuses); text is compared as given. The file is
``<dir of the calling test>/golden/<name>.txt``, or under the ini option
``bt_executive_golden_dir`` (relative to the rootdir) where set. A missing or
different file fails the test with a diff; ``pytest --update-golden`` writes
the files instead, for a human to review in the commit.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any, Protocol

UPDATE_OPTION = "--update-golden"
DIR_INI = "bt_executive_golden_dir"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def render_tree(tree_or_text: Any, *, show_status: bool = False) -> str:
    """The text a snapshot compares: a tree's unicode rendering (no colour codes), or the text itself."""
    if isinstance(tree_or_text, str):
        text = tree_or_text
    else:
        from py_trees.display import unicode_tree
        from py_trees.trees import BehaviourTree

        root = tree_or_text.root if isinstance(tree_or_text, BehaviourTree) else tree_or_text
        text = unicode_tree(root, show_status=show_status)
    lines = [line.rstrip() for line in _ANSI.sub("", text).splitlines()]
    return "\n".join(lines).strip("\n") + "\n"


class GoldenAssert(Protocol):
    """What the ``assert_golden`` fixture gives: ``assert_golden(tree_or_text, name)``."""

    def __call__(self, tree_or_text: Any, name: str, *, show_status: bool = False) -> None:
        """Fail unless the rendering matches golden file ``name`` (or rewrite it under --update-golden)."""


class GoldenFiles:
    """Compares renderings with ``directory/<name>.txt``, or rewrites them when ``update`` is set."""

    def __init__(self, directory: Path, *, update: bool = False) -> None:
        self.directory = directory
        self.update = update

    def path(self, name: str) -> Path:
        """The file holding snapshot ``name``."""
        if not _NAME.match(name):
            raise ValueError(f"golden name {name!r}: use letters, digits, '_', '-', '.'")
        return self.directory / f"{name}.txt"

    def check(self, tree_or_text: Any, name: str, *, show_status: bool = False) -> None:
        """Fail (AssertionError with a diff) unless the rendering matches the file; or write it when updating."""
        actual = render_tree(tree_or_text, show_status=show_status)
        path = self.path(name)
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text(encoding="utf-8") != actual:
                path.write_text(actual, encoding="utf-8")
            return
        if not path.exists():
            raise AssertionError(f"no golden file {path}; run pytest {UPDATE_OPTION} to write it, then review it")
        expected = path.read_text(encoding="utf-8")
        if expected != actual:
            diff = "".join(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    actual.splitlines(keepends=True),
                    fromfile=str(path),
                    tofile="actual",
                )
            )
            raise AssertionError(f"tree differs from golden {path.name} ({UPDATE_OPTION} rewrites it):\n{diff}")

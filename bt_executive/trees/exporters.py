"""One entry point for every export format: ``export_tree(root, "dot")``.

=============  ==========================================================
``ascii``      py_trees' ascii rendering (``export_graph.ascii_text``)
``dot``        Graphviz source via py_trees.display (``export_graph``)
``svg``/``png``  the dot rendered by Debian's graphviz
``btcpp-xml``  BehaviorTree.CPP v4 XML with a TreeNodesModel (``export_btcpp``)
=============  ==========================================================

The tree is any py_trees tree: a compiled plan with placeholder leaves, a
YAML routine, or a recorded run's last snapshot rebuilt by
``inert_tree.tree_from_snapshot``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import py_trees

FORMATS = ("ascii", "dot", "svg", "png", "btcpp-xml")
"""What ``export_tree`` and ``bt-executive export --format`` accept."""

BINARY_FORMATS = frozenset({"png"})


def export_tree(root: py_trees.behaviour.Behaviour, fmt: str, *, show_status: bool = False) -> bytes:
    """The tree in format ``fmt`` (one of ``FORMATS``), as bytes ready to write; ValueError for others."""
    # Imported here: the CLI lists FORMATS in its parser without loading every exporter.
    from bt_executive.trees.export_btcpp import btcpp_xml
    from bt_executive.trees.export_graph import ascii_text, dot_text, render_graphviz

    if fmt == "ascii":
        return ascii_text(root, show_status=show_status).encode()
    if fmt == "dot":
        return dot_text(root, show_status=show_status).encode()
    if fmt in ("svg", "png"):
        return render_graphviz(dot_text(root, show_status=show_status), fmt)
    if fmt == "btcpp-xml":
        return btcpp_xml(root).encode()
    raise ValueError(f"unknown export format {fmt!r}: expected one of {', '.join(FORMATS)}")

"""Drawing a tree: ascii text, Graphviz dot, and SVG/PNG rendered from the dot by Debian's graphviz.

::

    {-} Task "put the red cube on the plate" [*]         ascii (py_trees.display.ascii_tree)
        {-} Plan #0 [*]
            {o} Step 1 · pick(red_cube) [o]
            ...

The dot comes from ``py_trees.display.dot_tree`` (its shapes and colours per
composite type), drawn from a copy of the tree with ``:`` taken out of the
names (graphviz reads ``a:b`` as node ``a``, port ``b``). Labels are set
here rather than by py_trees, so the output does not depend on whether the
terminal speaks unicode; with ``show_status`` each node's border is its
status colour and its tooltip the feedback.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import py_trees
from py_trees.common import Status

from bt_executive.trees.inert_tree import tree_from_snapshot, type_name
from bt_executive.trees.snapshot import STATUS_COLOURS, tree_snapshot

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def ascii_text(root: py_trees.behaviour.Behaviour, *, show_status: bool = False) -> str:
    """py_trees' ascii rendering, without terminal colour codes or trailing blanks."""
    text = py_trees.display.ascii_tree(root, show_status=show_status)
    return "\n".join(line.rstrip() for line in _ANSI.sub("", text).splitlines()) + "\n"


def sanitise_name(name: str) -> str:
    """A node name graphviz takes as a name: no ``:`` (port syntax), no line breaks."""
    return name.replace(": ", " - ").replace(":", "-").replace("\n", " ")


def dot_text(root: py_trees.behaviour.Behaviour, *, show_status: bool = False) -> str:
    """The tree as a Graphviz digraph (py_trees.display.dot_tree on a sanitised copy)."""
    copy = tree_from_snapshot(tree_snapshot(root))
    for node in copy.iterate():
        node.name = sanitise_name(node.name)
    graph = py_trees.display.dot_tree(copy)
    graph.set_name("bt_executive")
    # pydot quotes attribute values itself. dot_tree renames repeats "name*", "name**"... but adds
    # its nodes in pre-order, so they pair up with the tree's own pre-order.
    drawn = [n for n in graph.get_nodes() if n.get_name() not in ("node", "edge", "graph")]
    for dot_node, node in zip(drawn, _preorder(copy), strict=True):
        dot_node.set("label", _label(node))
        if show_status:
            dot_node.set("color", STATUS_COLOURS.get(node.status.value, "#555555"))
            dot_node.set("penwidth", "3" if node.status != Status.INVALID else "1")
            if node.feedback_message:
                dot_node.set("tooltip", sanitise_name(node.feedback_message))
    return str(graph.to_string())


def render_graphviz(dot: str, fmt: str) -> bytes:
    """Run graphviz ``dot -T<fmt>`` on dot source; a clear error when graphviz is not installed."""
    executable = shutil.which("dot")
    if executable is None:
        raise FileNotFoundError("graphviz's `dot` is not on PATH (Debian: apt-get install graphviz)")
    done = subprocess.run(  # noqa: S603 - a fixed executable, the format from a closed list
        [executable, f"-T{fmt}"], input=dot.encode(), capture_output=True, check=False, timeout=60
    )
    if done.returncode != 0:
        raise RuntimeError(f"dot -T{fmt} failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def _label(node: py_trees.behaviour.Behaviour) -> str:
    """The name, plus what kind of node it is when the shape alone does not say."""
    if isinstance(node, py_trees.composites.Sequence | py_trees.composites.Selector):
        return f"{node.name}\n({type_name(node)}{', memory' if node.memory else ''})"
    if isinstance(node, py_trees.composites.Parallel):
        return f"{node.name}\n(Parallel, {type(node.policy).__name__})"
    if isinstance(node, py_trees.composites.Composite | py_trees.decorators.Decorator):
        return f"{node.name}\n({type_name(node)})"
    return node.name


def _preorder(root: py_trees.behaviour.Behaviour) -> list[py_trees.behaviour.Behaviour]:
    out = [root]
    for child in root.children:
        out.extend(_preorder(child))
    return out

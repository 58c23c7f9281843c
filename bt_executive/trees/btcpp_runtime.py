"""Our BT.CPP export, loaded and ticked by BehaviorTree.CPP itself (through ``behaviortreepy``).

::

    xml = btcpp_xml(root)                                   # export_btcpp: builtins + declared Actions/Conditions
    loaded = load_btcpp_tree(xml, lambda node: NodeStatus.SUCCESS)
    loaded.tree.tick_while_running()                        # BT.CPP's own Sequence, Fallback, Retry...

Every Action and Condition the XML's ``TreeNodesModel`` declares is
registered with ``tick`` (a Python callback; ``node.uid()`` tells which node
it is, ``node.name()`` its name). behaviortreepy 0.1.4 registers Python nodes
*without* ports, and BT.CPP refuses a port attribute its registration did
not declare, so the port attributes are checked here against the model (the
check BT.CPP makes against ``providedPorts()``: an attribute the model does
not declare is a ValueError naming the node and the attribute) and then left
out of the copy BT.CPP loads. A C++ program that registers the same IDs with
those ports loads the export as written. ``behaviortreepy`` is imported only
when a tree is loaded.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bt_executive.trees.export_btcpp import BTCPP_BUILTINS

if TYPE_CHECKING:
    import behaviortreepy

TickCallback = Callable[[Any], Any]
"""Gets the BT.CPP node (``behaviortreepy.TreeNode``), returns a ``behaviortreepy.NodeStatus``."""

_NOT_PORTS = {"name", "ID"}


def declared_leaves(xml: str) -> dict[str, tuple[str, frozenset[str]]]:
    """The XML's TreeNodesModel: ID -> (``Action`` or ``Condition``, port names); ValueError on anything else."""
    document = ET.fromstring(xml)  # noqa: S314  # our own export, not untrusted input
    model = document.find("TreeNodesModel")
    leaves: dict[str, tuple[str, frozenset[str]]] = {}
    for entry in model if model is not None else ():
        node_id = entry.get("ID", "")
        if entry.tag not in ("Action", "Condition"):
            raise ValueError(f"TreeNodesModel: {entry.tag} {node_id!r}: only Actions and Conditions can be registered")
        ports = frozenset(port.get("name", "") for port in entry if port.tag.endswith("_port"))
        leaves[node_id] = (entry.tag, ports)
    return leaves


def without_port_attributes(xml: str) -> str:
    """The XML with each declared leaf's port attributes checked against its model, then left out."""
    document = ET.fromstring(xml)  # noqa: S314  # our own export, not untrusted input
    leaves = declared_leaves(xml)
    for tree in document.findall("BehaviorTree"):
        for element in tree.iter():
            if element is tree or element.tag in BTCPP_BUILTINS:
                continue
            if element.tag not in leaves:
                raise ValueError(f"<{element.tag} name={element.get('name')!r}>: not a builtin and not declared")
            _, ports = leaves[element.tag]
            for attribute in [a for a in element.attrib if a not in _NOT_PORTS]:
                if attribute not in ports:
                    raise ValueError(
                        f"<{element.tag} name={element.get('name')!r}>: attribute {attribute!r} "
                        f"is not a port of {element.tag} in TreeNodesModel"
                    )
                del element.attrib[attribute]
    return ET.tostring(document, encoding="unicode")


def btcpp_factory(xml: str, tick: TickCallback) -> behaviortreepy.BehaviorTreeFactory:
    """A factory with every declared Action and Condition of ``xml`` registered to ``tick``."""
    import behaviortreepy

    factory = behaviortreepy.BehaviorTreeFactory()
    for node_id, (tag, _ports) in declared_leaves(xml).items():
        if tag == "Condition":
            factory.register_simple_condition(node_id, tick)
        else:  # stateful: a skill may answer RUNNING (a simple action is a SyncActionNode, which must not)
            factory.register_simple_stateful_action(node_id, tick, tick)
    return factory


@dataclass(frozen=True)
class LoadedTree:
    """A BT.CPP tree and the factory holding its callbacks (kept together so neither outlives the other)."""

    tree: behaviortreepy.Tree
    factory: behaviortreepy.BehaviorTreeFactory


def load_btcpp_tree(xml: str, tick: TickCallback) -> LoadedTree:
    """BT.CPP's tree for our export, its leaves ticking ``tick``; BT.CPP's RuntimeError if it refuses the XML."""
    factory = btcpp_factory(xml, tick)
    return LoadedTree(factory.create_tree_from_text(without_port_attributes(xml)), factory)

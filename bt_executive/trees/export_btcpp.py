"""BehaviorTree.CPP v4 XML: a py_trees tree in the format Groot2 and Nav2 users open.

::

    <root BTCPP_format="4" main_tree_to_execute="MainTree">
      <BehaviorTree ID="MainTree">
        <Sequence name="Plan #0">
          <Fallback name="Step 1 · pick(red_cube)">
            ...
              <RetryUntilSuccessful name="Attempts · pick(red_cube)" num_attempts="3">
                <tabletop_pick name="pick(red_cube)" object="red_cube"/>
      ...
      <TreeNodesModel>
        <Action ID="tabletop_pick"><input_port name="object" type="std::string"/></Action>

How py_trees maps (py_trees has no exporter of its own):

==========================  ===================================================
py_trees                    BehaviorTree.CPP
==========================  ===================================================
Sequence(memory=True)       Sequence        (resumes at the running child)
Sequence(memory=False)      ReactiveSequence
Selector(memory=True)       Fallback
Selector(memory=False)      ReactiveFallback
Parallel                    Parallel success_count / failure_count
Retry(n)                    RetryUntilSuccessful num_attempts=n
Timeout(s)                  Timeout msec
Repeat(n) / Inverter        Repeat num_cycles / Inverter
StepAttempts                RetryUntilSuccessful num_attempts = 1 + the largest
                            retry budget of the step's policy (+ 1 per recovery
                            subtree); with recovery subtrees, its child is
                            ``Fallback(leaf, ForceFailure(recovery)...)``: a
                            failed attempt runs the recovery, then the leaf
                            again (see below)
skill leaf (has a call)     Action, ID = the skill id with ``/`` as ``_``,
                            one input port per argument (lists and objects as
                            JSON text)
conditions                  Condition (``EffectsHold``, ``PreconditionsHold``,
                            ``WorldCondition``) with a ``predicates`` port
anything else               Action / Control / Decorator named by its class
==========================  ===================================================

Only BT.CPP's own controls and decorators appear, so BehaviorTree.CPP loads
the XML once its Actions and Conditions are registered (every one is declared
with its ports in ``TreeNodesModel``, which is also what Groot2 draws without
the C++ plugins). A composite or decorator of a class this table does not
know becomes a ``Sequence`` (of one child, for a decorator: a pass-through).
An argument named like a reserved attribute (``name``, ``ID``, ``_...``)
becomes ``arg_<name>``.

**StepAttempts in builtins, and why.** In py_trees the step's policy picks,
per failure kind, one of retry (run the leaf again), recover (run the named
recovery subtree, then the leaf again) or give up (replan, abort). BT.CPP
can only branch on *why* a leaf failed with a custom Control node, or with an
output port the leaf writes plus a script condition; neither can be
registered through behaviortreepy (no custom controls, no ports from
Python), and a BT.CPP program loading our XML would need our C++ plugin for
the former. So the export uses builtins and states the bound rather than the
choice: ``RetryUntilSuccessful`` with the step's largest attempt count
(retries plus one per recovery), around ``Fallback(leaf,
ForceFailure(recovery))`` so that a failed attempt runs the recovery and
then tries the leaf again. It over-approximates: BT.CPP runs the recovery
after every failure and retries kinds the policy would hand to the replan
node; the replan itself stays visible as the step's ``PlanningNode`` Action.
A declared leaf (``StepAttempts`` as one Action) would be exact about the
semantics but hide the skill leaf and its recovery from Groot2.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import py_trees
from py_trees.common import ParallelPolicy
from pydantic import JsonValue

from bt_executive.trees.inert_tree import type_name
from bt_executive.trees.snapshot import node_kind, node_structure

BTCPP_BUILTINS = frozenset(
    {
        "AlwaysFailure", "AlwaysSuccess", "Delay", "Fallback", "ForceFailure", "ForceSuccess", "IfThenElse",
        "Inverter", "KeepRunningUntilFailure", "LoopBool", "LoopDouble", "LoopInt", "LoopString", "Parallel",
        "ParallelAll", "Precondition", "ReactiveFallback", "ReactiveSequence", "Repeat", "RetryUntilSuccessful",
        "RunOnce", "Script", "ScriptCondition", "Sequence", "SequenceWithMemory", "SetBlackboard", "Sleep",
        "SubTree", "Switch2", "Switch3", "Switch4", "Switch5", "Switch6", "Timeout", "UnsetBlackboard",
        "WasEntryUpdated", "WhileDoElse", "SkipUnlessUpdated", "WaitValueUpdate", "EntryUpdated",
    }
)  # fmt: skip
"""Node IDs BehaviorTree.CPP 4 registers itself: they need no TreeNodesModel entry."""

MAIN_TREE = "MainTree"
_RESERVED_PORTS = {"name", "ID", "main_tree_to_execute"}
_NOT_ID_CHAR = re.compile(r"[^A-Za-z0-9_]")
_Mapped = tuple[str, dict[str, str], dict[str, str]]
"""(element tag, attribute values, declared port types) for one node."""


@dataclass
class _Model:
    """The TreeNodesModel being collected: ID -> (model tag, port name -> type); Actions and Conditions only."""

    nodes: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)

    def declare(self, node_id: str, tag: str, ports: dict[str, str]) -> None:
        if node_id in BTCPP_BUILTINS:
            return
        _, known = self.nodes.setdefault(node_id, (tag, {}))
        for port, port_type in ports.items():
            known.setdefault(port, port_type)


@dataclass(frozen=True)
class BtcppExport:
    """The XML, and for each node of its tree in pre-order the py_trees node it stands for (None: added by us)."""

    xml: str
    sources: tuple[py_trees.behaviour.Behaviour | None, ...]


def btcpp_xml(root: py_trees.behaviour.Behaviour, *, tree_id: str = MAIN_TREE) -> str:
    """The tree as BehaviorTree.CPP v4 XML with a TreeNodesModel (indented, with an XML declaration)."""
    return btcpp_export(root, tree_id=tree_id).xml


def btcpp_export(root: py_trees.behaviour.Behaviour, *, tree_id: str = MAIN_TREE) -> BtcppExport:
    """The XML and which py_trees node each BT.CPP node mirrors (the Groot2 feed maps statuses with it)."""
    model = _Model()
    sources: list[py_trees.behaviour.Behaviour | None] = []
    document = ET.Element("root", {"BTCPP_format": "4", "main_tree_to_execute": tree_id})
    tree = ET.SubElement(document, "BehaviorTree", {"ID": tree_id})
    tree.append(_element(root, model, sources))
    nodes_model = ET.SubElement(document, "TreeNodesModel")
    for node_id, (tag, ports) in sorted(model.nodes.items()):
        entry = ET.SubElement(nodes_model, tag, {"ID": node_id})
        for port, port_type in sorted(ports.items()):
            ET.SubElement(entry, "input_port", {"name": port, "type": port_type})
    ET.indent(document)
    xml = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(document, encoding="unicode") + "\n"
    return BtcppExport(xml, tuple(sources))


def btcpp_id(text: str) -> str:
    """A node ID (also an XML element name): ``tabletop/pick`` -> ``tabletop_pick``."""
    ident = _NOT_ID_CHAR.sub("_", text)
    return f"_{ident}" if not ident or ident[0].isdigit() else ident


def port_name(arg: str) -> str:
    """A port for an argument: an identifier, never a reserved attribute."""
    ident = btcpp_id(arg)
    return f"arg_{ident.lstrip('_')}" if ident in _RESERVED_PORTS or ident.startswith("_") else ident


def _element(
    node: py_trees.behaviour.Behaviour, model: _Model, sources: list[py_trees.behaviour.Behaviour | None]
) -> ET.Element:
    tag, attrs, ports = _mapping(node)
    if tag not in BTCPP_BUILTINS:
        model.declare(tag, "Condition" if node_kind(node) == "condition" else "Action", ports)
    element = ET.Element(tag, {"name": node.name, **attrs})
    sources.append(node)
    if type_name(node) == "StepAttempts" and len(node.children) > 1:
        _attempts_with_recovery(node, element, model, sources)
        return element
    for child in node.children:
        element.append(_element(child, model, sources))
    return element


def _attempts_with_recovery(
    node: py_trees.behaviour.Behaviour,
    element: ET.Element,
    model: _Model,
    sources: list[py_trees.behaviour.Behaviour | None],
) -> None:
    """``Fallback(leaf, ForceFailure(recovery)...)`` under the step's RetryUntilSuccessful (module docstring)."""
    leaf, *recoveries = node.children
    attempt = ET.SubElement(element, "Fallback", {"name": f"Attempt · {leaf.name}"})
    sources.append(None)
    attempt.append(_element(leaf, model, sources))
    for recovery in recoveries:
        then = ET.SubElement(attempt, "ForceFailure", {"name": "then the leaf again"})
        sources.append(None)
        then.append(_element(recovery, model, sources))


def _mapping(node: py_trees.behaviour.Behaviour) -> _Mapped:
    """(element tag, attributes, declared ports) for one node."""
    kind = node_kind(node)
    structure = node_structure(node)
    if kind in ("sequence", "selector"):
        memory = bool(structure.get("memory", True))
        if kind == "sequence":
            return ("Sequence" if memory else "ReactiveSequence"), {}, {}
        return ("Fallback" if memory else "ReactiveFallback"), {}, {}
    if kind == "parallel":
        return "Parallel", _parallel_counts(node), {}
    if kind == "decorator":
        return _decorator(node, structure)
    if type_name(node) == "StepAttempts":
        attempts = structure.get("num_attempts", -1)
        recoveries = structure.get("recovery_subtrees")
        if isinstance(attempts, int) and attempts > 0 and isinstance(recoveries, list):
            attempts += len(recoveries)  # each recovery is followed by one more try of the leaf
        return "RetryUntilSuccessful", {"num_attempts": str(attempts)}, {}
    if kind == "composite":
        return "Sequence", {}, {}
    call = getattr(node, "call", None)
    if call is not None and hasattr(call, "skill"):
        values = {port_name(k): _port_value(v) for k, v in call.args.items()}
        if call.prompt:
            values["prompt"] = call.prompt
        types = {port_name(k): _port_type(v) for k, v in call.args.items()}
        if call.prompt:
            types["prompt"] = "std::string"
        return btcpp_id(call.skill), values, types
    return _plain_leaf(node, structure)


def _plain_leaf(node: py_trees.behaviour.Behaviour, structure: dict[str, JsonValue]) -> _Mapped:
    name = type_name(node)
    for key in ("predicate", "predicates"):
        value = structure.get(key)
        if value is not None:
            text = "; ".join(str(p) for p in value) if isinstance(value, list) else str(value)
            return btcpp_id(name), {key: text}, {key: "std::string"}
    if name == "PlanningNode":
        after = getattr(node, "after", None)
        number = structure.get("after_step", getattr(after, "number", 0))
        return "PlanningNode", {"after_step": str(number)}, {"after_step": "int"}
    if name == "Success":
        return "AlwaysSuccess", {}, {}
    if name == "Failure":
        return "AlwaysFailure", {}, {}
    return btcpp_id(name), {}, {}


def _decorator(node: py_trees.behaviour.Behaviour, structure: dict[str, JsonValue]) -> _Mapped:
    name = type_name(node)
    if name == "Retry":
        return "RetryUntilSuccessful", {"num_attempts": str(structure.get("num_failures", 1))}, {}
    if name == "Timeout":
        seconds = structure.get("duration_s", 0.0)
        msec = round(float(seconds) * 1000) if isinstance(seconds, int | float) else 0
        return "Timeout", {"msec": str(msec)}, {}
    if name == "Repeat":
        return "Repeat", {"num_cycles": str(structure.get("num_success", 1))}, {}
    if name == "Inverter":
        return "Inverter", {}, {}
    if name == "FailureIsSuccess":
        return "ForceSuccess", {}, {}
    if name == "SuccessIsFailure":
        return "ForceFailure", {}, {}
    return "Sequence", {}, {}  # one child: passes its status through


def _parallel_counts(node: py_trees.behaviour.Behaviour) -> dict[str, str]:
    """BT.CPP Parallel: succeed when ``success_count`` children succeed (-1: all), fail at ``failure_count``."""
    policy = getattr(node, "policy", None)
    count = len(node.children)
    if isinstance(policy, ParallelPolicy.SuccessOnOne):
        return {"success_count": "1", "failure_count": str(max(count, 1))}
    if isinstance(policy, ParallelPolicy.SuccessOnSelected):
        return {"success_count": str(len(policy.children)), "failure_count": "1"}
    return {"success_count": "-1", "failure_count": "1"}


def _port_value(value: JsonValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _port_type(value: JsonValue) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    return "std::string"

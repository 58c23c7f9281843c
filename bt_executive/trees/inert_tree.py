"""Inert trees: the shape of a tree without a robot behind it, for drawing and exporting.

Two ways in:

- ``PlaceholderLeafFactory``: a ``LeafFactory`` whose leaves carry their
  ``SkillCall`` but never move anything (ticking one fails it). The export
  command compiles a plan or loads a YAML tree with it.
- ``tree_from_snapshot``: a recorded py_trees_js snapshot (``trees.snapshot``)
  rebuilt as py_trees behaviours of the same shape: standard composites and
  decorators where the snapshot names one, ``InertComposite`` /
  ``InertDecorator`` / ``InertLeaf`` standing in for the project's own node
  classes (``StepAttempts``, skill leaves, conditions), each remembering its
  original ``type_name``, ``node_kind`` and ``structure``. Statuses and
  feedback messages are restored, so a text rendering shows where a run was.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import py_trees
from py_trees.common import ParallelPolicy, Status
from pydantic import JsonValue

from bt_executive.skills.call import SkillCall, SkillResult


class PlaceholderLeaf(py_trees.behaviour.Behaviour):
    """A skill leaf that only shows its call: nothing to drive, FAILURE if ever ticked."""

    node_kind = "action"

    def __init__(self, call: SkillCall, name: str) -> None:
        super().__init__(name)
        self.call = call
        self.result: SkillResult | None = None

    def update(self) -> Status:
        """Placeholders are for drawing; a tick means someone tried to run one."""
        self.feedback_message = "placeholder: not connected to a robot"
        return Status.FAILURE


class PlaceholderLeafFactory:
    """A ``LeafFactory`` of ``PlaceholderLeaf``: compile or load a tree with no ROS node or robot."""

    def __call__(self, call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        """The placeholder for ``call``."""
        return PlaceholderLeaf(call, name)


class InertLeaf(py_trees.behaviour.Behaviour):
    """A rebuilt leaf (an action or a condition); ``call`` is set for skill leaves."""

    def __init__(
        self, name: str, *, type_name: str, node_kind: str, structure: Mapping[str, JsonValue], call: SkillCall | None
    ) -> None:
        super().__init__(name)
        self.type_name = type_name
        self.node_kind = node_kind
        self.structure = dict(structure)
        self.call = call
        self.result: SkillResult | None = None

    def update(self) -> Status:
        """Rebuilt trees are for drawing, not running."""
        return Status.FAILURE


class InertComposite(py_trees.composites.Composite):
    """A rebuilt composite of a class py_trees does not have (``StepAttempts``)."""

    def __init__(
        self,
        name: str,
        *,
        type_name: str,
        structure: Mapping[str, JsonValue],
        children: list[py_trees.behaviour.Behaviour],
    ) -> None:
        super().__init__(name, children=children)
        self.type_name = type_name
        self.node_kind = "composite"
        self.structure = dict(structure)

    def tick(self) -> Any:
        """Rebuilt trees are for drawing, not running."""
        self.status = Status.FAILURE
        yield self


class InertDecorator(py_trees.decorators.Decorator):
    """A rebuilt decorator of a class the exporters do not map to a standard one."""

    def __init__(
        self, name: str, child: py_trees.behaviour.Behaviour, *, type_name: str, structure: Mapping[str, JsonValue]
    ) -> None:
        super().__init__(name=name, child=child)
        self.type_name = type_name
        self.structure = dict(structure)

    def update(self) -> Status:
        """Rebuilt trees are for drawing, not running."""
        return Status.FAILURE


def type_name(node: py_trees.behaviour.Behaviour) -> str:
    """The class a node is (or, for a rebuilt node, was): ``Sequence``, ``StepAttempts``, ``RosActionSkill``."""
    explicit = getattr(node, "type_name", None)
    return explicit if isinstance(explicit, str) else type(node).__name__


def tree_from_snapshot(snapshot: Mapping[str, Any]) -> py_trees.behaviour.Behaviour:
    """Rebuild the tree a py_trees_js snapshot shows; ValueError naming the field if it is not one."""
    behaviours = snapshot.get("behaviours")
    if not isinstance(behaviours, Mapping) or not behaviours:
        raise ValueError("snapshot: 'behaviours' must be a non-empty object")
    root_id = snapshot.get("root") or _find_root(behaviours)
    return _build(behaviours, str(root_id), set())


def _find_root(behaviours: Mapping[str, Any]) -> str:
    """Snapshots written without ``root``: the one behaviour nobody lists as a child."""
    children = {c for b in behaviours.values() for c in b.get("children", [])}
    roots = [key for key in behaviours if key not in children]
    if len(roots) != 1:
        raise ValueError(f"snapshot: expected one root behaviour, found {len(roots)}")
    return roots[0]


def _build(behaviours: Mapping[str, Any], node_id: str, seen: set[str]) -> py_trees.behaviour.Behaviour:
    where = f"snapshot: behaviours[{node_id!r}]"
    entry = behaviours.get(node_id)
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: missing (listed as a child but not present)")
    if node_id in seen:
        raise ValueError(f"{where}: appears twice (the snapshot is not a tree)")
    seen.add(node_id)
    name = entry.get("name")
    if not isinstance(name, str):
        raise ValueError(f"{where}.name: must be a string")
    data = entry.get("data") or {}
    children = [_build(behaviours, str(child), seen) for child in entry.get("children", [])]
    node = _make(name, data, children, where)
    status = entry.get("status", "INVALID")
    try:
        node.status = Status(status)
    except ValueError:
        raise ValueError(f"{where}.status: {status!r} is not a py_trees status") from None
    details = entry.get("details", "")
    node.feedback_message = "" if details == "..." else str(details)
    return node


def _make(
    name: str, data: Mapping[str, Any], children: list[py_trees.behaviour.Behaviour], where: str
) -> py_trees.behaviour.Behaviour:
    kind = str(data.get("kind", "composite" if children else "action"))
    type_ = str(data.get("type", kind))
    memory = bool(data.get("memory", True))
    if kind == "sequence":
        return py_trees.composites.Sequence(name, memory, children)
    if kind == "selector":
        return py_trees.composites.Selector(name, memory, children)
    if kind == "parallel":
        return py_trees.composites.Parallel(name, _policy(data, children), children)
    if kind == "decorator":
        if len(children) != 1:
            raise ValueError(f"{where}: a decorator needs exactly one child, has {len(children)}")
        return _decorator(name, type_, data, children[0])
    structure = {
        key: data[key]
        for key in ("num_attempts", "recovery_subtrees", "predicates", "predicate", "after_step")
        if key in data
    }
    if kind == "composite" or children:
        return InertComposite(name, type_name=type_, structure=structure, children=children)
    return InertLeaf(name, type_name=type_, node_kind=kind, structure=structure, call=_call(data, where))


def _policy(data: Mapping[str, Any], children: list[py_trees.behaviour.Behaviour]) -> ParallelPolicy.Base:
    synchronise = bool(data.get("synchronise", False))
    match data.get("policy"):
        case "SuccessOnOne":
            return ParallelPolicy.SuccessOnOne()
        case "SuccessOnSelected":
            selected = [children[i] for i in data.get("selected", []) if 0 <= i < len(children)]
            return ParallelPolicy.SuccessOnSelected(selected, synchronise=synchronise)
        case _:
            return ParallelPolicy.SuccessOnAll(synchronise=synchronise)


def _decorator(
    name: str, type_: str, data: Mapping[str, Any], child: py_trees.behaviour.Behaviour
) -> py_trees.behaviour.Behaviour:
    match type_:
        case "Retry":
            return py_trees.decorators.Retry(name, child, int(data.get("num_failures", 1)))
        case "Timeout":
            return py_trees.decorators.Timeout(name, child, float(data.get("duration_s", 0.0)))
        case "Repeat":
            return py_trees.decorators.Repeat(name, child, int(data.get("num_success", 1)))
        case "Inverter":
            return py_trees.decorators.Inverter(name, child)
    structure = {k: v for k, v in data.items() if k not in ("type", "kind")}
    return InertDecorator(name, child, type_name=type_, structure=structure)


def _call(data: Mapping[str, Any], where: str) -> SkillCall | None:
    skill = data.get("skill")
    if not isinstance(skill, str):
        return None
    try:
        args = json.loads(data.get("args") or "{}")
        return SkillCall(skill=skill, args=args, prompt=data.get("prompt"))
    except ValueError as err:  # json.JSONDecodeError and pydantic's ValidationError are both ValueErrors
        raise ValueError(f"{where}.data: not a skill call ({err})") from None

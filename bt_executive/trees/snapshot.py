"""Tree snapshots: a py_trees tree as the JSON the py_trees_js viewer renders, and when to send one.

::

    {"timestamp": 1718000000.1,                          seconds (wall clock)
     "root": "5b0c...",                                  the root behaviour's id
     "current": "9e1a...",                               the step running now (or the planning node), or null
     "changed": true,                                    structure/status/names changed since the last one
     "visited_path": ["5b0c...", ...],                   required by py_trees_js (it throws without it)
     "behaviours": {
       "9e1a...": {"id": "9e1a...", "name": "Step 2 · place_on(plate)", "status": "RUNNING",
                   "colour": "#FFC107", "details": "...", "children": ["..."],
                   "data": {"type": "Selector", "kind": "selector", "memory": true, "step": 2, ...}}}}

Ids are the behaviours' uuids, so a node keeps its id across snapshots while
it is in the tree. ``colour`` is the status colour (the current step has its
own); ``data`` is what the viewer's details panel shows: a skill leaf's
``args`` (compact JSON), its ``failure_kind``, ``reason`` and the step's
``retries``; a plan node's planner and notes. ``data`` also carries the
node's ``type``/``kind`` and structural parameters (``memory``,
``num_failures``, ``duration_s``...) so the exporters can rebuild the shape
from a recorded snapshot (``tree_from_snapshot`` in ``exporters``). Values
are strings, numbers, booleans or lists of strings: py_trees_js shows
nothing for a nested object.

Building one walks every node (~16 us a node), so a running task's
executive does not call ``tree_snapshot`` per change: ``live_snapshot``'s
``LiveSnapshot`` keeps the same snapshot up to date for the cost of the
nodes a tick touched, from the per-node pieces defined here (``NodeFacts``,
built once per graft, and ``node_entry``). ``tree_snapshot`` is for a tree
at rest (exporters, tests) and is the reference the live one is checked
against.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import py_trees
from py_trees.common import Status
from pydantic import JsonValue

from bt_executive.llm.plan import Plan
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.strategy import StrategyKind
from bt_executive.trees.inert_tree import type_name
from bt_executive.trees.replan import PlanningNode
from bt_executive.trees.step_nodes import EffectsHold, PreconditionsHold, StepAttempts
from bt_executive.trees.task_context import StepState, TaskContext
from bt_executive.trees.world_condition import WorldCondition

Snapshot = dict[str, Any]
"""One snapshot in the py_trees_js format (a JSON object)."""

STATUS_COLOURS: dict[str, str] = {
    "SUCCESS": "#43A047",
    "FAILURE": "#E53935",
    "RUNNING": "#1E88E5",
    "INVALID": "#555555",
}
"""Fill colour per status (py_trees_js adds its own glow per status on top)."""

CURRENT_STEP_COLOUR = "#FFC107"
"""The step (or planning node) the task is on now stands out from the other running nodes."""

_PLAN_NAME = re.compile(r"^Plan #(\d+)")
_STEP_NAME = re.compile(r"^Step (\d+) ·")
_DETAIL_CHARS = 200


def tree_snapshot(
    root: py_trees.behaviour.Behaviour,
    *,
    visited: set[str] | None = None,
    changed: bool = True,
    plans: Sequence[Plan] | None = None,
) -> Snapshot:
    """The tree under ``root`` in the py_trees_js snapshot format, built from scratch (walks every node).

    ``visited`` is the set of behaviour ids ticked on the last tick; by
    default every node with a status other than INVALID (what the task has
    reached so far), which is what a replay wants to show at full opacity.
    ``plans`` (the task's plan history) fills the ``Plan #k`` nodes' data;
    by default it is found on the task context the compiled nodes share.
    A running task's executive uses ``live_snapshot.LiveSnapshot`` instead,
    which gives the same snapshot for the cost of the nodes that changed.
    """
    nodes = list(walk(root))
    context = _find_context(nodes)
    if plans is None:
        plans = context.plans if context is not None else ()
    current = _current(nodes)
    behaviours: dict[str, dict[str, Any]] = {}
    for node in nodes:
        facts = NodeFacts.of(node, plans, is_root=node is root)
        behaviours[facts.id] = node_entry(node, facts, context, current=node is current)
    if visited is None:
        visited_path = [str(n.id) for n in nodes if n.status != Status.INVALID]
    else:
        visited_path = [str(n.id) for n in nodes if str(n.id) in visited]
    return {
        "timestamp": time.time(),
        "root": str(root.id),
        "current": str(current.id) if current is not None else None,
        "changed": changed,
        "visited_path": visited_path,
        "behaviours": behaviours,
    }


@dataclass(slots=True)
class NodeFacts:
    """What a node shows that only a graft can change: id, children, type, structure, call, plan; built once."""

    id: str
    name: str
    children: list[str]
    static_data: dict[str, JsonValue]
    attempts: StepAttempts | None
    """The step's attempts node, for a step selector or the attempts node itself (their data shows its retries)."""
    is_root: bool
    is_step: bool
    """A ``Step n`` node or a planning node: what ``current`` may point at."""

    @classmethod
    def of(cls, node: py_trees.behaviour.Behaviour, plans: Sequence[Plan], *, is_root: bool) -> NodeFacts:
        """The facts of ``node`` in a task with plan history ``plans``."""
        data: dict[str, JsonValue] = {"type": type_name(node), "kind": node_kind(node)}
        data.update(node_structure(node))
        call = getattr(node, "call", None)
        if call is not None and hasattr(call, "skill"):
            data["skill"] = call.skill
            data["args"] = json.dumps(call.args, separators=(",", ":"), sort_keys=True)
            if call.prompt:
                data["prompt"] = call.prompt
        match = _PLAN_NAME.match(node.name)
        if match and int(match.group(1)) < len(plans):
            plan = plans[int(match.group(1))]
            data["plan"] = int(match.group(1))
            data["planner"] = plan.planner
            data["steps"] = len(plan.steps)
            if plan.notes:
                data["notes"] = _clip(plan.notes)
        step_match = _STEP_NAME.match(node.name)
        attempts = node if isinstance(node, StepAttempts) else None
        if step_match:
            data["step"] = int(step_match.group(1))
            attempts = _step_attempts(node)
        return cls(
            id=str(node.id),
            name=node.name,
            children=[str(child.id) for child in node.children],
            static_data=data,
            attempts=attempts,
            is_root=is_root,
            is_step=bool(step_match) or isinstance(node, PlanningNode),
        )


def node_entry(
    node: py_trees.behaviour.Behaviour, facts: NodeFacts, context: TaskContext | None, *, current: bool
) -> dict[str, Any]:
    """One ``behaviours`` entry: the node's facts plus what a tick changes (status, colour, details, result)."""
    status = node.status.value
    data = dict(facts.static_data)
    result = getattr(node, "result", None)
    if result is not None and hasattr(result, "success"):
        data["result"] = "success" if result.success else "failure"
        if result.failure_kind is not None:
            data["failure_kind"] = result.failure_kind.value
        if result.reason:
            data["reason"] = result.reason
        if result.detail:
            data["detail"] = _clip(result.detail)
    if facts.attempts is not None:
        data.update(_step_data(facts.attempts.step))
    if facts.is_root and context is not None:
        data["task"] = context.task
        data["replans"] = context.replans
        if context.final_reason is not None:
            data["final_reason"] = context.final_reason
            if context.final_detail:
                data["final_detail"] = context.final_detail
    return {
        "id": facts.id,
        "name": facts.name,
        "status": status,
        "colour": CURRENT_STEP_COLOUR if current else STATUS_COLOURS.get(status, "#555555"),
        "details": _details(node),
        "children": facts.children,
        "data": data,
    }


def current_step(
    running: Iterable[py_trees.behaviour.Behaviour],
) -> py_trees.behaviour.Behaviour | None:
    """Of the running step and planning nodes (in pre-order), the one the task is on: the innermost step.

    A step's own replan node runs inside the (running) step: the step stays current.
    """
    current = None
    for node in running:
        if isinstance(node, PlanningNode) and current is not None and current is node.parent:
            continue
        current = node
    return current


# walking ------------------------------------------------------------------------------------------------


def walk(root: py_trees.behaviour.Behaviour) -> Iterator[py_trees.behaviour.Behaviour]:
    """Pre-order: a parent before its children, children in order (the viewer's layout order)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _find_context(nodes: Sequence[py_trees.behaviour.Behaviour]) -> TaskContext | None:
    for node in nodes:
        context = getattr(node, "context", None)
        if isinstance(context, TaskContext):
            return context
    return None


def _current(nodes: Sequence[py_trees.behaviour.Behaviour]) -> py_trees.behaviour.Behaviour | None:
    """The running step the task is on (the last one in pre-order: the innermost), else a running planner."""
    return current_step(n for n in nodes if n.status == Status.RUNNING and is_step_node(n))


def is_step_node(node: py_trees.behaviour.Behaviour) -> bool:
    """A ``Step n`` selector or a planning node: the nodes ``current`` may point at."""
    return bool(_STEP_NAME.match(node.name)) or isinstance(node, PlanningNode)


# what a node shows --------------------------------------------------------------------------------------


def _details(node: py_trees.behaviour.Behaviour) -> str:
    """The line under a node's name: its feedback, or how its skill call ended."""
    result = getattr(node, "result", None)
    if result is not None and node.status in (Status.SUCCESS, Status.FAILURE):
        if result.success:
            return _clip(f"ok: {result.reason}" if result.reason else "ok")
        kind = result.failure_kind.value if result.failure_kind is not None else "unknown"
        return _clip(f"{kind}: {result.reason}" if result.reason else kind)
    return _clip(node.feedback_message) or "..."


def _step_data(step: StepState) -> dict[str, JsonValue]:
    data: dict[str, JsonValue] = {"plan": step.plan_index, "step": step.number, "retries": step.retries}
    if step.recoveries:
        data["recoveries"] = list(step.recoveries)
    if step.last_failure is not None and step.last_failure.failure_kind is not None:
        data["last_failure"] = f"{step.last_failure.failure_kind.value}: {step.last_failure.reason}"
    return data


def _step_attempts(node: py_trees.behaviour.Behaviour) -> StepAttempts | None:
    for descendant in walk(node):
        if isinstance(descendant, StepAttempts):
            return descendant
    return None


def node_kind(node: py_trees.behaviour.Behaviour) -> str:
    """``sequence``, ``selector``, ``parallel``, ``decorator``, ``composite``, ``condition`` or ``action``."""
    explicit = getattr(node, "node_kind", None)
    if isinstance(explicit, str):
        return explicit
    if isinstance(node, py_trees.composites.Sequence):
        return "sequence"
    if isinstance(node, py_trees.composites.Selector):
        return "selector"
    if isinstance(node, py_trees.composites.Parallel):
        return "parallel"
    if isinstance(node, py_trees.decorators.Decorator):
        return "decorator"
    if isinstance(node, py_trees.composites.Composite):
        return "composite"
    if isinstance(node, EffectsHold | PreconditionsHold | WorldCondition):
        return "condition"
    return "action"


def node_structure(node: py_trees.behaviour.Behaviour) -> dict[str, JsonValue]:
    """The parameters that decide how a node behaves (memory, retries, predicates...), for the exporters."""
    explicit = getattr(node, "structure", None)
    if isinstance(explicit, dict):
        return dict(explicit)
    if isinstance(node, py_trees.composites.Sequence | py_trees.composites.Selector):
        return {"memory": bool(node.memory)}
    if isinstance(node, py_trees.composites.Parallel):
        policy = node.policy
        out: dict[str, JsonValue] = {"policy": type(policy).__name__, "synchronise": bool(policy.synchronise)}
        if isinstance(policy, py_trees.common.ParallelPolicy.SuccessOnSelected):
            out["selected"] = [node.children.index(c) for c in policy.children if c in node.children]
        return out
    if isinstance(node, py_trees.decorators.Retry):
        return {"num_failures": int(node.num_failures)}
    if isinstance(node, py_trees.decorators.Timeout):
        return {"duration_s": float(node.duration)}
    if isinstance(node, py_trees.decorators.Repeat):
        return {"num_success": int(node.num_success)}
    if isinstance(node, EffectsHold):
        return {"predicates": [str(e) for e in node.effects]}  # bound to the call, as the node checks them
    if isinstance(node, PreconditionsHold):
        return {"predicates": [str(p) for p in node.preconditions]}
    if isinstance(node, WorldCondition):
        return {"predicate": str(node.predicate)}
    if isinstance(node, PlanningNode):
        return {"after_step": node.after.number if node.after is not None else 0}
    if isinstance(node, StepAttempts):
        return {"num_attempts": max_attempts(node), "recovery_subtrees": list(node.recoveries)}
    return {}


def max_attempts(attempts: StepAttempts) -> int:
    """How often a step's leaf may run for one failure kind: 1 + the largest retry budget its policy gives."""
    budgets = [0]
    for kind in FailureKind:
        strategy = attempts.context.policy.strategy_for(kind, attempts.step.manifest)
        if strategy.kind is StrategyKind.RETRY:
            budgets.append(strategy.attempts)
    return 1 + max(budgets)


def _clip(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 1] + "…"

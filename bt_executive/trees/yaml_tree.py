"""Hand-written trees: a YAML routine becomes a py_trees tree, and a tree built from one becomes YAML again.

The routine in ``tree_spec``'s docstring, loaded and drawn::

    root = load_tree("config/trees/home_then_pick.yaml", SkillLeafFactory(registry, node=node, world=world))

    {-} Home, then pick the red cube          (py_trees.display.unicode_tree)
        --> home()
        -^- Retry (3 attempts)
            --> pick(red_cube)
        --> holding(red_cube)?

The format (``tree_spec``) is what a robot integrator writes for test
fixtures and fixed routines, the way Nav2 users write BehaviorTree.CPP XML:
the wiring is data, the leaves are code. Loading is all or nothing: the file
is read with the project's strict YAML loader (safe, no aliases, no
duplicate keys), validated by pydantic, and every skill call is checked
against the registry (an unknown id comes with close matches; bad arguments
with their JSON path) before a single leaf is built. Every problem is
reported at once, as a ``ManifestError`` naming the file and the path in the
tree: ``routine.yaml: root.sequence.children[2].retry.attempts: ...``.

``dump_tree`` / ``dump_yaml`` go the other way for trees made of the
format's node kinds (whatever built them): loading the dump gives a tree
with the same rendering. A name equal to the default the loader would give
is left out of the dump.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import py_trees
import yaml

from bt_executive.skills.builtin_skills import BUILTIN_IDS, builtin_argument_errors
from bt_executive.skills.call import SkillCall
from bt_executive.skills.errors import ManifestError, Problem
from bt_executive.skills.leaf import SkillLeaf, WorldStateSource
from bt_executive.skills.loader import read_yaml_mapping
from bt_executive.skills.manifest import SkillKind
from bt_executive.skills.parameters import argument_errors
from bt_executive.skills.predicates import parse_predicate
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.trees.leaf_factory import LeafFactory
from bt_executive.trees.tree_spec import (
    CompositeFields,
    ConditionNode,
    InverterNode,
    Node,
    ParallelNode,
    RepeatNode,
    RetryNode,
    SelectorNode,
    SequenceNode,
    SkillNode,
    TimeoutNode,
    TreeSpec,
    node_kind,
    parse_tree_spec,
)
from bt_executive.trees.world_condition import WorldCondition, default_condition_name

MAPPING_SOURCE = "<tree>"
"""How errors name a tree given as a mapping rather than a file."""

Behaviour = py_trees.behaviour.Behaviour


def load_tree(
    source: Path | str | Mapping[str, Any],
    leaf_factory: LeafFactory,
    *,
    world: WorldStateSource | None = None,
    registry: SkillRegistry | None = None,
) -> Behaviour:
    """Build the py_trees tree a YAML file (or an already-parsed mapping) describes; ManifestError if it is wrong.

    ``world`` feeds ``condition`` nodes; ``registry`` checks skill calls before
    anything is built. Either defaults to the leaf factory's own attribute of
    that name when it has one (``SkillLeafFactory`` does). Without a registry
    the calls are checked by the factory as it builds each leaf.
    """
    return build_tree(read_tree_spec(source), leaf_factory, world=world, registry=registry, source=_label(source))


def read_tree_spec(source: Path | str | Mapping[str, Any]) -> TreeSpec:
    """Read and validate a tree file (or mapping) into its spec, building nothing."""
    if isinstance(source, Mapping):
        return parse_tree_spec(dict(source), MAPPING_SOURCE)
    path = Path(source)
    return parse_tree_spec(read_yaml_mapping(path), str(path))


def build_tree(
    spec: TreeSpec,
    leaf_factory: LeafFactory,
    *,
    world: WorldStateSource | None = None,
    registry: SkillRegistry | None = None,
    source: str = MAPPING_SOURCE,
) -> Behaviour:
    """Check every call of a validated spec, then build its tree (``load_tree`` without the reading)."""
    if world is None:
        world = getattr(leaf_factory, "world", None)
    if registry is None:
        found = getattr(leaf_factory, "registry", None)
        registry = found if isinstance(found, SkillRegistry) else None
    builder = _Builder(source, leaf_factory, world, registry)
    builder.check(spec.root, "root")
    if builder.problems:
        raise ManifestError(builder.problems)
    return builder.build(spec.root, "root")


# defaults for names ----------------------------------------------------------------------------------


def default_name(node: Node) -> str:
    """The name a node gets when its YAML gives none: what a viewer shows for it."""
    match node:
        case SequenceNode():
            return "Sequence"
        case SelectorNode():
            return "Selector"
        case ParallelNode():
            return "Parallel"
        case RetryNode(retry=fields):
            return f"Retry ({fields.attempts} attempt{'s' if fields.attempts != 1 else ''})"
        case TimeoutNode(timeout=fields):
            return f"Timeout ({fields.seconds:g} s)"
        case InverterNode():
            return "Inverter"
        case RepeatNode(repeat=fields):
            return f"Repeat ({fields.count} time{'s' if fields.count != 1 else ''})"
        case ConditionNode(condition=text):
            return default_condition_name(parse_predicate(text))
        case SkillNode():
            return _call(node).label()
    raise TypeError(f"not a tree node: {type(node).__name__}")


def _call(node: SkillNode) -> SkillCall:
    return SkillCall(skill=node.skill, args=node.args, prompt=node.prompt)


# loading -------------------------------------------------------------------------------------------------


@dataclass
class _Builder:
    """Walks a spec twice: ``check`` collects every problem, ``build`` makes behaviours (only if none)."""

    source: str
    factory: LeafFactory
    world: WorldStateSource | None
    registry: SkillRegistry | None
    problems: list[Problem] = field(default_factory=list)
    _keys: dict[str, int] = field(default_factory=dict)

    def check(self, node: Node, path: str) -> None:
        """Record every problem under ``node`` that validation alone cannot see."""
        kind = node_kind(node)
        if isinstance(node, SkillNode):
            self._check_call(node, path)
        elif isinstance(node, ConditionNode):
            if self.world is None:
                self._problem(path, "a condition needs a world state source: pass world= to load_tree")
        else:
            fields = getattr(node, kind)
            if hasattr(fields, "children"):
                for index, child in enumerate(fields.children):
                    self.check(child, f"{path}.{kind}.children[{index}]")
            else:
                self.check(fields.child, f"{path}.{kind}.child")

    def _check_call(self, node: SkillNode, path: str) -> None:
        if self.registry is None:
            return
        try:
            manifest = self.registry.get(node.skill)
        except UnknownSkill as err:
            self._problem(f"{path}.skill", str(err))
            return
        if manifest.kind is SkillKind.BUILTIN:
            if manifest.id not in BUILTIN_IDS:
                self._problem(f"{path}.skill", f"no builtin leaf implements {manifest.id}")
                return
            errors = builtin_argument_errors(manifest, node.args)
        else:
            errors = argument_errors(manifest.parameters, node.args)
        for json_path, reason in errors:
            self._problem(f"{path}.args{json_path.removeprefix('$')}", reason)
        if node.prompt is not None and manifest.kind is not SkillKind.VLA:
            self._problem(f"{path}.prompt", f"{manifest.id} is a {manifest.kind.value} skill; only VLA skills take one")

    def _problem(self, path: str, reason: str) -> None:
        self.problems.append(Problem(self.source, path, reason))

    def build(self, node: Node, path: str) -> Behaviour:
        """The behaviour for ``node`` and everything under it."""
        name = _name_of(node) or default_name(node)
        match node:
            case SequenceNode(sequence=fields):
                return py_trees.composites.Sequence(name, fields.memory, self._children(fields, path, "sequence"))
            case SelectorNode(selector=fields):
                return py_trees.composites.Selector(name, fields.memory, self._children(fields, path, "selector"))
            case ParallelNode(parallel=fields):
                policy: py_trees.common.ParallelPolicy.Base = (
                    py_trees.common.ParallelPolicy.SuccessOnAll(synchronise=True)
                    if fields.policy == "success_on_all"
                    else py_trees.common.ParallelPolicy.SuccessOnOne()
                )
                return py_trees.composites.Parallel(name, policy, self._children(fields, path, "parallel"))
            case RetryNode(retry=fields):
                child = self.build(fields.child, f"{path}.retry.child")
                return py_trees.decorators.Retry(name, child, fields.attempts)
            case TimeoutNode(timeout=fields):
                child = self.build(fields.child, f"{path}.timeout.child")
                return py_trees.decorators.Timeout(name, child, fields.seconds)
            case InverterNode(inverter=fields):
                return py_trees.decorators.Inverter(name, self.build(fields.child, f"{path}.inverter.child"))
            case RepeatNode(repeat=fields):
                child = self.build(fields.child, f"{path}.repeat.child")
                return py_trees.decorators.Repeat(name, child, fields.count)
            case ConditionNode(condition=text):
                assert self.world is not None  # check() refused conditions without a world
                return WorldCondition(text, self.world, name=name)
            case SkillNode():
                return self._leaf(node, name, path)
        raise TypeError(f"not a tree node: {type(node).__name__}")

    def _children(self, fields: Any, path: str, kind: str) -> list[Behaviour]:
        return [self.build(child, f"{path}.{kind}.children[{i}]") for i, child in enumerate(fields.children)]

    def _leaf(self, node: SkillNode, name: str, path: str) -> Behaviour:
        call = _call(node)
        try:
            return self.factory(call, name=name, key=self._key(node.skill))
        except (ValueError, KeyError) as err:
            # Without a registry to check against, this is where a bad call shows up.
            raise ManifestError.single(self.source, f"{path}.skill", str(err).strip("'\"")) from None

    def _key(self, skill: str) -> str:
        """A blackboard key per leaf: the skill's name, then ``_2``, ``_3``... for repeats in the tree."""
        base = skill.split("/", 1)[1].replace("-", "_")
        count = self._keys.get(base, 0) + 1
        self._keys[base] = count
        return base if count == 1 else f"{base}_{count}"


def _name_of(node: Node) -> str | None:
    if isinstance(node, ConditionNode | SkillNode):
        return node.name
    fields = getattr(node, node_kind(node))
    name: str | None = fields.name
    return name


def _label(source: Path | str | Mapping[str, Any]) -> str:
    return MAPPING_SOURCE if isinstance(source, Mapping) else str(source)


# dumping -------------------------------------------------------------------------------------------------


def dump_tree(root: Behaviour) -> dict[str, Any]:
    """The tree-format mapping of a tree made of the format's node kinds; ValueError naming any other node."""
    return {"root": _dump(root)}


def dump_yaml(root: Behaviour) -> str:
    """``dump_tree`` as YAML text that ``load_tree`` reads back."""
    return yaml.dump(dump_tree(root), Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True, width=100)


class _NoAliasDumper(yaml.SafeDumper):
    """The strict loader refuses aliases, so the dumper never writes one (equal values are written twice)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _dump(behaviour: Behaviour) -> dict[str, Any]:
    """One node, its name kept only when it differs from the default the loader would give."""
    node = _spec_of(behaviour)
    if isinstance(node, ConditionNode | SkillNode):
        kind = node_kind(node)
        fields = node.model_dump(exclude_defaults=True)
        named = {"name": behaviour.name} if behaviour.name != default_name(node) else {}
        return {kind: fields.pop(kind), **named, **fields}
    kind = node_kind(node)
    fields = getattr(node, kind).model_dump(exclude={"name", "children", "child"})
    if isinstance(fields.get("seconds"), float) and fields["seconds"].is_integer():
        fields["seconds"] = int(fields["seconds"])
    named = {"name": behaviour.name} if behaviour.name != default_name(node) else {}
    children: dict[str, Any]
    if isinstance(behaviour, py_trees.composites.Composite):
        children = {"children": [_dump(child) for child in behaviour.children]}
    else:
        children = {"child": _dump(behaviour.children[0])}
    return {kind: {**named, **fields, **children}}


_PLACEHOLDER = SkillNode(skill="builtin/say", args={"text": "placeholder"})
"""A stand-in child, so a decorator's or composite's own fields can be checked by the spec models."""


def _spec_of(behaviour: Behaviour) -> Node:
    """The spec a behaviour corresponds to (children stood in for): the dump's source of truth."""
    decorators = py_trees.decorators
    composites = py_trees.composites
    kids = (_PLACEHOLDER,)
    match behaviour:
        case composites.Sequence():
            return SequenceNode(sequence=CompositeFields(memory=behaviour.memory, children=kids))
        case composites.Selector():
            return SelectorNode(selector=CompositeFields(memory=behaviour.memory, children=kids))
        case composites.Parallel():
            return ParallelNode.model_validate(
                {"parallel": {"policy": _policy_name(behaviour), "children": kids}},
            )
        case decorators.Retry():
            return RetryNode.model_validate({"retry": {"attempts": behaviour.num_failures, "child": _PLACEHOLDER}})
        case decorators.Timeout():
            return TimeoutNode.model_validate({"timeout": {"seconds": behaviour.duration, "child": _PLACEHOLDER}})
        case decorators.Inverter():
            return InverterNode.model_validate({"inverter": {"child": _PLACEHOLDER}})
        case decorators.Repeat():
            return RepeatNode.model_validate({"repeat": {"count": behaviour.num_success, "child": _PLACEHOLDER}})
        case WorldCondition():
            return ConditionNode(condition=str(behaviour.predicate))
        case SkillLeaf():
            call: SkillCall = behaviour.call
            return SkillNode(skill=call.skill, args=call.args, prompt=call.prompt)
    raise ValueError(
        f"cannot write node {behaviour.name!r} ({type(behaviour).__module__}.{type(behaviour).__qualname__}) "
        "in the tree format; it has sequence, selector, parallel, retry, timeout, inverter, repeat, "
        "condition and skill nodes"
    )


def _policy_name(parallel: py_trees.composites.Parallel) -> str:
    policy = parallel.policy
    if isinstance(policy, py_trees.common.ParallelPolicy.SuccessOnOne):
        return "success_on_one"
    if isinstance(policy, py_trees.common.ParallelPolicy.SuccessOnAll) and policy.synchronise:
        return "success_on_all"
    raise ValueError(
        f"cannot write parallel {parallel.name!r} in the tree format: its policy is "
        f"{type(policy).__name__}(synchronise={policy.synchronise}); the format has "
        "success_on_all (synchronised) and success_on_one"
    )

"""``bt-executive export``: a tree as ascii, dot, svg, png or BehaviorTree.CPP XML.

::

    bt-executive export --format btcpp-xml --plan-file plan.json -o plan.xml     # a plan, compiled
    bt-executive export --format svg --tree-yaml config/trees/tidy_red_cube.yaml -o tidy.svg
    bt-executive export --format ascii --run latest                           # a run's last tree, with statuses

A plan file is a ``Plan`` (JSON or YAML: ``steps``, ``notes``, ``planner``),
or ``{task: ..., plan: {...}}``; it is compiled by the same compiler the
executive uses, into the whole task tree. Leaves are placeholders: nothing
needs a robot, a ROS node or a model to be drawn. Without ``-o`` text goes
to stdout (png needs ``-o``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bt_executive.runtime.paths import default_runs_root
from bt_executive.trees.exporters import BINARY_FORMATS, FORMATS, export_tree

if TYPE_CHECKING:  # the rest is imported where it is used: every command's --help stays fast
    import py_trees

    from bt_executive.llm.plan import Plan
    from bt_executive.skills.world_state import WorldState


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``export``."""
    export = commands.add_parser("export", help="export a tree: ascii, dot, svg, png or BehaviorTree.CPP v4 XML")
    export.add_argument("--format", required=True, choices=FORMATS, help="output format")
    source = export.add_mutually_exclusive_group(required=True)
    source.add_argument("--run", metavar="RUN", help="a run's last tree: directory, part of its name, or 'latest'")
    source.add_argument("--plan-file", type=Path, metavar="FILE", help="a plan (JSON or YAML), compiled")
    source.add_argument("--tree-yaml", type=Path, metavar="FILE", help="a hand-written YAML tree")
    export.add_argument(
        "--root", type=Path, metavar="DIR", help=f"runs root for --run (default: {default_runs_root()})"
    )
    export.add_argument("--task", help="the task text for --plan-file (default: the file's 'task', or its name)")
    export.add_argument("-o", "--output", type=Path, metavar="FILE", help="write here instead of stdout")
    export.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    """Build the tree from the chosen source and write it in the chosen format."""
    if args.format in BINARY_FORMATS and args.output is None:
        sys.stderr.write(f"error: --format {args.format} is binary: give -o FILE\n")
        return 2
    from bt_executive.executive.run_dir import resolve_run

    try:
        if args.run is not None:
            root, show_status = run_tree(resolve_run(args.run, args.root)), True
        elif args.plan_file is not None:
            root, show_status = plan_tree(args.plan_file, args.task), False
        else:
            root, show_status = yaml_tree(args.tree_yaml), False
    except ValueError as err:
        sys.stderr.write(f"error: {err}\n")
        return 2
    data = export_tree(root, args.format, show_status=show_status)
    if args.output is None:
        sys.stdout.write(data.decode())
    else:
        args.output.write_bytes(data)
        print(f"wrote {args.output} ({len(data)} bytes)")
    return 0


def run_tree(path: Path) -> py_trees.behaviour.Behaviour:
    """The last tree a run recorded, rebuilt from its snapshot."""
    from bt_executive.executive.run_dir import RunReader
    from bt_executive.trees.inert_tree import tree_from_snapshot

    snapshots = RunReader(path).snapshots()
    if not snapshots:
        raise ValueError(f"{path}: the run recorded no tree snapshot")
    return tree_from_snapshot(snapshots[-1].tree)


class _NoPlanner:
    """The export compiles a given plan; nothing may ask for another."""

    def plan(self, task: str, world_state: WorldState, prior_attempts: Any = ()) -> Plan:
        from bt_executive.llm.plan import PlannerError

        raise PlannerError("export does not plan")


def plan_tree(path: Path, task: str | None = None) -> py_trees.behaviour.Behaviour:
    """The task tree the executive would build for the plan in ``path`` (placeholder leaves)."""
    from pydantic import ValidationError

    from bt_executive.llm.plan import Plan
    from bt_executive.skills.dirs import default_skill_dirs
    from bt_executive.skills.registry import SkillRegistry
    from bt_executive.trees.inert_tree import PlaceholderLeafFactory
    from bt_executive.trees.task_tree import TaskTree

    raw = _read_mapping(path)
    if "plan" in raw and isinstance(raw["plan"], dict):
        task = task or str(raw.get("task") or path.stem)
        raw = raw["plan"]
    task = task or path.stem
    try:
        plan = Plan.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise ValueError(f"{path}: {where}: {first['msg']}") from None
    registry = SkillRegistry.discover(default_skill_dirs())
    for index, call in enumerate(plan.steps):
        if call.skill not in registry:
            raise ValueError(f"{path}: steps[{index}].skill: unknown skill {call.skill!r}")
    tree = TaskTree(task, planner=_NoPlanner(), registry=registry, leaf_factory=PlaceholderLeafFactory(), plan=plan)
    tree.shutdown()  # no ticks: only the shape is wanted; lets the planner worker go
    return tree.root


def yaml_tree(path: Path) -> py_trees.behaviour.Behaviour:
    """A hand-written YAML tree with placeholder leaves; conditions see no world (they are only drawn)."""
    from bt_executive.skills.dirs import default_skill_dirs
    from bt_executive.skills.errors import ManifestError
    from bt_executive.skills.registry import SkillRegistry
    from bt_executive.trees.inert_tree import PlaceholderLeafFactory
    from bt_executive.trees.yaml_tree import load_tree

    registry = SkillRegistry.discover(default_skill_dirs())
    try:
        return load_tree(path, PlaceholderLeafFactory(), world=lambda: None, registry=registry)
    except ManifestError as err:
        raise ValueError(str(err)) from None


def _read_mapping(path: Path) -> dict[str, Any]:
    from bt_executive.skills.errors import ManifestError
    from bt_executive.skills.loader import read_yaml_mapping

    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not JSON ({err.msg}, line {err.lineno})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object with 'steps'")
        return data
    try:
        return read_yaml_mapping(path)
    except ManifestError as err:
        raise ValueError(str(err)) from None

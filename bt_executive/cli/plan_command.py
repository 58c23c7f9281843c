"""``bt-executive plan "task" --planner PROFILE --dry-run``: see what a planner would do, moving nothing.

By default it plans the task against the embedded tabletop's world state (the
MuJoCo scene loaded in this process, or its state cached from an earlier call:
``scene_world``; no ROS, no robot) and the shipped skills. For a robot of your
own, offline: ``--skills DIR...`` replaces the shipped skill directories
(loaded by the registry ``serve`` uses, so a manifest that plans here loads
there) and ``--world FILE`` is the world state, a YAML or JSON ``WorldState``
validated like every other config file; with it no simulator is started. It
then prints the plan and the task tree the executive would compile from it,
with placeholder leaves. With the ``local`` profile this runs the real local
model (started in this process when nothing serves it yet). Exit 0 with a
plan, 1 on ``planner_error`` or ``planner_refused`` (the planner refused, or
its plan asks an object for what it does not afford: ``pick(table)``) or
``plan_refused`` (a step could never start where it runs, the executive's own
check), printed with the reason; 2 on bad input (a skill directory or world
file that is missing or invalid, each problem named with its file and field).
Executing a task goes through a running executive (``bt-executive run``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bt_executive.skills.world_state import WorldState


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``plan``."""
    plan = commands.add_parser("plan", help="plan a task and print the plan and its compiled tree (moves nothing)")
    plan.add_argument("task", help='the task, e.g. "put the red cube on the green plate"')
    plan.add_argument("--planner", default="auto", metavar="PROFILE", help="planner profile of config/llm.yaml")
    plan.add_argument("--dry-run", action="store_true", help="plan and compile only (the only mode: nothing moves)")
    plan.add_argument(
        "--skills",
        type=Path,
        nargs="+",
        default=None,
        metavar="DIR",
        help="skill directories to plan with, instead of the shipped config/skills",
    )
    world = plan.add_mutually_exclusive_group()
    world.add_argument("--scene", type=Path, default=None, help="scene YAML for the world state (default: tabletop)")
    world.add_argument(
        "--world",
        type=Path,
        default=None,
        metavar="FILE",
        help="world-state YAML or JSON to plan in (no simulator is started)",
    )
    plan.add_argument("--seed", type=int, default=None, help="layout seed of --scene (default: the scene's)")
    plan.add_argument("--llm-config", type=Path, default=None, metavar="FILE", help="profiles file (config/llm.yaml)")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON instead of the tree")
    plan.set_defaults(func=run_plan)


def run_plan(args: argparse.Namespace) -> int:
    """Plan, compile and print."""
    from bt_executive.executive.planner_factory import make_planner
    from bt_executive.llm.plan import ClosablePlanner, PlannerError, PlannerRefused
    from bt_executive.skills.dirs import default_skill_dirs
    from bt_executive.skills.registry import SkillRegistry
    from bt_executive.trees.exporters import export_tree
    from bt_executive.trees.inert_tree import PlaceholderLeafFactory
    from bt_executive.trees.plan_check import PlanRefused, require_runnable
    from bt_executive.trees.task_tree import TaskTree

    if args.world is not None and args.seed is not None:
        sys.stderr.write("error: --seed lays out a --scene; a --world file is planned in as written\n")
        return 2
    registry = SkillRegistry.discover(args.skills or default_skill_dirs())  # serve's loader: same errors
    world = _world_state(args)
    try:
        planner = make_planner(args.planner, registry, args.llm_config)
    except KeyError as err:
        sys.stderr.write(f"error: {err.args[0]}\n")
        return 2
    try:
        # The executive's own check before anything moves: pick(table) is refused (not_afforded), and a plan
        # whose step could never start (pick(plate) while holding the cube) is refused with the step named.
        plan = require_runnable(planner.plan(args.task, world), registry, world)
    except PlannerRefused as err:
        if any(" " in c for c in err.candidates):  # whole sentences (several meanings): one a line, to say again
            listed = "".join(f"\n  {c}" for c in err.candidates)
            listed = f"\nsay one of these to have it planned:{listed}"
        else:
            listed = f" (candidates: {', '.join(err.candidates)})" if err.candidates else ""
        sys.stderr.write(f"planner_refused ({err.kind.value}): {err.reason}{listed}\n")
        return 1
    except PlanRefused as err:
        sys.stderr.write(f"plan_refused: {err}\n")  # the executive would ask the planner again with this
        return 1
    except PlannerError as err:
        sys.stderr.write(f"planner_error: {err}\n")
        return 1
    finally:
        if isinstance(planner, ClosablePlanner):
            planner.close()  # a local model this planner started
    if args.json:
        print(plan.model_dump_json(indent=2))
        return 0
    notes = f"  ({plan.notes})" if plan.notes else ""
    print(f"task: {args.task}\nplanner: {plan.planner or args.planner}{notes}")
    if plan.goal:
        print(f"goal: {', '.join(plan.goal)}")
    for number, call in enumerate(plan.steps, start=1):
        print(f"  {number}. {call.skill} {json.dumps(call.args, sort_keys=True)}")
    if plan.is_done:
        print("  (empty plan: already done)")
    tree = TaskTree(args.task, planner=planner, registry=registry, leaf_factory=PlaceholderLeafFactory(), plan=plan)
    tree.shutdown()  # only the shape is wanted
    print()
    print(export_tree(tree.root, "ascii").decode())
    return 0


def _world_state(args: argparse.Namespace) -> WorldState:
    """The world to plan in: the ``--world`` file as written, else the scene's start state.

    A world file goes through ``load_model`` like every other input, so a bad
    one is a ``ManifestError`` naming the file and field (exit 2), and JSON
    reads as the YAML subset it is.
    """
    if args.world is not None:
        from bt_executive.skills.loader import load_model
        from bt_executive.skills.world_state import WorldState

        return load_model(args.world, WorldState)  # no simulator: the file is the robot's belief
    from bt_executive.cli.scene_world import scene_world_state

    return scene_world_state(args.scene, args.seed)  # MuJoCo loads only when the cache has no such state

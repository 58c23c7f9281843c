"""``bt-executive plan "task" --planner PROFILE --dry-run``: see what a planner would do, moving nothing.

Plans the task against the embedded tabletop's world state (the MuJoCo scene
loaded in this process, or its state cached from an earlier call:
``scene_world``; no ROS, no robot), then prints the plan and the task
tree the executive would compile from it, with placeholder leaves. With the
``local`` profile this runs the real local model (started in this process
when nothing serves it yet). Exit 0 with a plan, 1 on ``planner_error`` or
``planner_refused`` (the planner refused, or its plan asks an object for what
it does not afford: ``pick(table)``) or ``plan_refused`` (a step could never
start where it runs, the executive's own check), printed with the reason.
Executing a task goes through a running executive (``bt-executive run``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``plan``."""
    plan = commands.add_parser("plan", help="plan a task and print the plan and its compiled tree (moves nothing)")
    plan.add_argument("task", help='the task, e.g. "put the red cube on the green plate"')
    plan.add_argument("--planner", default="auto", metavar="PROFILE", help="planner profile of config/llm.yaml")
    plan.add_argument("--dry-run", action="store_true", help="plan and compile only (the only mode: nothing moves)")
    plan.add_argument("--scene", type=Path, default=None, help="scene YAML for the world state (default: tabletop)")
    plan.add_argument("--seed", type=int, default=None, help="layout seed (default: the scene's)")
    plan.add_argument("--llm-config", type=Path, default=None, metavar="FILE", help="profiles file (config/llm.yaml)")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON instead of the tree")
    plan.set_defaults(func=run_plan)


def run_plan(args: argparse.Namespace) -> int:
    """Plan, compile and print."""
    from bt_executive.cli.scene_world import scene_world_state
    from bt_executive.executive.planner_factory import make_planner
    from bt_executive.llm.plan import PlannerError, PlannerRefused
    from bt_executive.resources import default_skill_dirs
    from bt_executive.skills.registry import SkillRegistry
    from bt_executive.trees.exporters import export_tree
    from bt_executive.trees.inert_tree import PlaceholderLeafFactory
    from bt_executive.trees.plan_check import PlanRefused, require_runnable
    from bt_executive.trees.task_tree import TaskTree

    registry = SkillRegistry.discover(default_skill_dirs())
    world = scene_world_state(args.scene, args.seed)  # MuJoCo loads only when the cache has no such state
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
        close = getattr(planner, "close", None)
        if callable(close):
            close()  # a local model this planner started
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

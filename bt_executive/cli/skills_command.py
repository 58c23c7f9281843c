"""``bt-executive skills ...``: list, validate and export the skill catalogue.

These commands are how a robot integrator checks a skill bundle before it
goes on a robot: ``validate`` reports every problem in every file and exits
non-zero if there is any; ``list`` shows what a given robot profile can run.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.manifest_schema import SCHEMA_PATH, render_manifest_schema
from bt_executive.skills.registry import SkillRegistry, collect


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``skills`` and its subcommands."""
    skills = commands.add_parser("skills", help="list, validate and export skill manifests")
    sub = skills.add_subparsers(dest="skills_command", required=True, metavar="COMMAND")

    list_cmd = sub.add_parser("list", help="show the skills available to a robot")
    list_cmd.add_argument("--capabilities", type=Path, metavar="FILE", help="robot profile YAML to filter by")
    list_cmd.add_argument("--json", action="store_true", help="print JSON instead of a table")
    _add_sources(list_cmd)
    list_cmd.set_defaults(func=run_list)

    validate = sub.add_parser("validate", help="check manifest files or directories; non-zero exit on any problem")
    validate.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    validate.set_defaults(func=run_validate)

    schema = sub.add_parser("schema", help="print the manifest JSON Schema")
    mode = schema.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"rewrite {SCHEMA_PATH.name} in the package")
    mode.add_argument("--check", action="store_true", help="exit 1 if the committed schema is stale")
    schema.set_defaults(func=run_schema)

    route = sub.add_parser("route", help="rank the skills (and site knowledge) a task would be routed to")
    route.add_argument("task", help='e.g. "wipe the kitchen table"')
    route.add_argument("-k", type=int, default=5, help="how many to show (default 5)")
    route.add_argument("--catalog", action="store_true", help="route over the fleet catalog too (config/catalog)")
    route.add_argument("--lexical", action="store_true", help="cheap links only (no embedding model)")
    route.set_defaults(func=run_route)


def _add_sources(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--skills-dir",
        type=Path,
        action="append",
        metavar="DIR",
        help="manifest directory (repeatable; default: the shipped config/skills)",
    )
    parser.add_argument("--no-entry-points", action="store_true", help="ignore installed skill bundles")


def _registry(args: argparse.Namespace) -> SkillRegistry:
    dirs = args.skills_dir or default_skill_dirs()
    return SkillRegistry.discover(dirs, use_entry_points=not args.no_entry_points)


def run_list(args: argparse.Namespace) -> int:
    """Print the skill table (or JSON) for the chosen robot profile."""
    out = sys.stdout
    registry = _registry(args)
    excluded: dict[str, str] = {}
    robot = None
    if args.capabilities is not None:
        robot = RobotCapabilities.from_yaml(args.capabilities)
        registry, excluded = registry.available_for(robot)
    if args.json:
        payload = {
            "robot": robot.name if robot else None,
            "skills": [m.model_dump(mode="json") | {"source": registry.source(m.id)} for m in registry],
            "excluded": excluded,
        }
        out.write(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        return 0
    out.write(format_table(list(registry)) if len(registry) else "(no skills)\n")
    if robot is not None:
        out.write(f"\n{len(registry)} skill(s) available to {robot.name}")
        out.write(f"; {len(excluded)} excluded:\n" if excluded else ".\n")
        for skill_id, reason in excluded.items():
            out.write(f"  {skill_id}: {reason}\n")
    else:
        out.write(f"\n{len(registry)} skill(s).\n")
    return 0


def format_table(manifests: list[SkillManifest], width: int = 50) -> str:
    """A fixed-width table of id, kind, verbs, timeout and a shortened description."""
    rows = [("ID", "KIND", "ACTIONS", "TIMEOUT", "DESCRIPTION")]
    for m in manifests:
        summary = textwrap.shorten(" ".join(m.description.split()), width=width, placeholder="…")
        rows.append((m.id, m.kind.value, ",".join(v.value for v in m.actions), f"{m.timeout_s:g}s", summary))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1] for row in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def run_validate(args: argparse.Namespace) -> int:
    """Check every file under the given paths and report every problem."""
    out = sys.stdout
    report = collect(args.paths, use_entry_points=False)
    for skill in report.skills:
        out.write(f"ok      {skill.source}  ({skill.manifest.id})\n")
    for problem in report.problems:
        out.write(f"invalid {problem}\n")
    bad_files = len({p.source for p in report.problems})
    out.write(f"\n{len(report.skills)} valid, {bad_files} invalid\n")
    return 1 if report.problems else 0


def run_schema(args: argparse.Namespace) -> int:
    """Print, write or check the committed manifest JSON Schema."""
    out = sys.stdout
    text = render_manifest_schema()
    if args.write:
        SCHEMA_PATH.write_text(text, encoding="utf-8")
        out.write(f"wrote {SCHEMA_PATH}\n")
        return 0
    if args.check:
        current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
        if current != text:
            out.write(f"{SCHEMA_PATH} is stale; run: bt-executive skills schema --write\n")
            return 1
        out.write(f"{SCHEMA_PATH} is up to date\n")
        return 0
    out.write(text)
    return 0


def handle_errors(error: ManifestError) -> int:
    """Print a ManifestError's problems one per line; exit status 2 (bad config)."""
    for problem in error.problems:
        sys.stderr.write(f"error: {problem}\n")
    return 2


def run_route(args: argparse.Namespace) -> int:
    """Print the router's ranking for a task: id, score, the link that decided it, tool or knowledge."""
    from bt_executive.llm.embedding.embedder import default_embedder
    from bt_executive.llm.routing.router import Router
    from bt_executive.skills.dirs import catalog_skill_dirs, knowledge_dirs
    from bt_executive.skills.knowledge import discover_knowledge

    dirs = catalog_skill_dirs() if args.catalog else default_skill_dirs()
    registry = SkillRegistry.discover(dirs)
    items = [*registry, *discover_knowledge(knowledge_dirs())]
    router = Router(items, embedder=None if args.lexical else default_embedder())
    out = sys.stdout
    out.write(f"{'rank':<5} {'skill':<32} {'kind':<10} {'score':>6}  decided by\n")
    for rank, hit in enumerate(router.route(args.task, args.k), start=1):
        out.write(f"{rank:<5} {hit.id:<32} {hit.kind:<10} {hit.score:>6.3f}  {hit.link}\n")
    return 0

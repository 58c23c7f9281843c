"""``bt-executive runs list|show``: what recorded runs there are, and what happened in one.

::

    $ bt-executive runs list
    run                                            task                 final_reason  steps  retries  replans  duration
    20250101-120000-put-the-red-cube-on-the-plate  put the red cube...  done              2        1        0     12.3s

    $ bt-executive runs show latest
    task      put the red cube on the plate
    ...
    plan #0 (stub): pick(red_cube), place_on(plate)
      step 1 pick(red_cube)     failed missed_grasp: no object between the fingers
      step 1 pick(red_cube)     ok
    final     done

A run is named by its directory, a unique part of its name, or ``latest``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bt_executive.executive.runs_root import default_runs_root

if TYPE_CHECKING:  # the run-dir models are imported when a command runs, not for its --help
    from bt_executive.executive.run_dir import RunReader, RunSummary
    from bt_executive.trees.task_context import TaskEvent


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``runs list`` and ``runs show``."""
    runs = commands.add_parser("runs", help="recorded task runs: list them, show one")
    sub = runs.add_subparsers(dest="runs_command", required=True, metavar="ACTION")
    listing = sub.add_parser("list", help="one line per run: task, final reason, steps, retries, replans, duration")
    _add_root(listing)
    listing.add_argument("--json", action="store_true", help="one JSON array instead of the table")
    listing.set_defaults(func=run_list)
    show = sub.add_parser("show", help="one run: its plans, every attempt with kinds and reasons, the ending")
    show.add_argument("run", help="run directory, a unique part of its name under the root, or 'latest'")
    _add_root(show)
    show.add_argument("--json", action="store_true", help="info, plans, events and outcome as one JSON object")
    show.set_defaults(func=run_show)


def _add_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root", type=Path, default=None, metavar="DIR", help=f"runs root (default: {default_runs_root()})"
    )


def run_list(args: argparse.Namespace) -> int:
    """Print the runs under the root, oldest first."""
    from bt_executive.executive.run_dir import list_runs

    runs = list_runs(args.root)
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in runs], indent=2))
        return 0
    if not runs:
        print(f"no runs under {args.root or default_runs_root()}")
        return 0
    sys.stdout.write(format_runs(runs))
    return 0


def format_runs(runs: list[RunSummary], task_width: int = 40) -> str:
    """The ``runs list`` table."""
    header = ("run", "task", "final_reason", "steps", "retries", "replans", "duration")
    rows = [
        (
            r.run,
            r.task if len(r.task) <= task_width else r.task[: task_width - 1] + "…",
            r.final_reason,
            str(r.steps),
            str(r.retries),
            str(r.replans),
            f"{r.duration_s:.1f}s",
        )
        for r in runs
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    numeric = {3, 4, 5, 6}
    lines = [
        "  ".join(cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i]) for i, cell in enumerate(row))
        for row in [header, *rows]
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def run_show(args: argparse.Namespace) -> int:
    """Print one run: its task, plans, attempts and ending."""
    from bt_executive.executive.run_dir import RunReader, resolve_run

    reader = RunReader(resolve_run(args.run, args.root))
    if args.json:
        outcome = reader.outcome()
        print(
            json.dumps(
                {
                    "path": str(reader.path),
                    "info": reader.info().model_dump(mode="json"),
                    "summary": reader.summary().model_dump(mode="json"),
                    "plans": [p.model_dump(mode="json") for p in reader.plans()],
                    "events": [e.model_dump(mode="json") for e in reader.events()],
                    "outcome": outcome.model_dump(mode="json") if outcome is not None else None,
                },
                indent=2,
            )
        )
        return 0
    sys.stdout.write(format_run(reader))
    return 0


def format_run(reader: RunReader) -> str:
    """The ``runs show`` text: header, then the event log as a story, then the ending."""
    summary = reader.summary()
    info = reader.info()
    lines = [
        f"run       {summary.run}",
        f"path      {reader.path}",
        f"task      {info.task}",
        f"started   {info.started:%Y-%m-%d %H:%M:%S} UTC   planner {info.planner}",
        "",
    ]
    for event in reader.events():
        line = _event_line(event)
        if line:
            lines.append(line)
    outcome = reader.outcome()
    lines.append("")
    lines.append(
        f"final     {summary.final_reason}" + (f" ({outcome.detail})" if outcome is not None and outcome.detail else "")
    )
    if outcome is not None and outcome.goal:
        held = {True: "holds", False: "DOES NOT HOLD", None: "not checked"}[outcome.goal_held]
        lines.append(f"goal      {', '.join(outcome.goal)}: {held}")
    lines.append(
        f"counts    {summary.steps} step(s), {summary.attempts} attempt(s), {summary.retries} retr"
        f"{'y' if summary.retries == 1 else 'ies'}, {summary.replans} replan(s), {summary.duration_s:.1f}s"
    )
    snapshots = len(reader.snapshots())
    lines.append(f"replay    bt-executive view --run {reader.path}   ({snapshots} snapshot(s))")
    return "\n".join(lines) + "\n"


def _event_line(event: TaskEvent) -> str | None:
    """One line per event worth reading; step_start and recovery_end fold into their neighbours."""
    data = event.data
    at = f"{event.t:7.2f}s"
    match event.kind:
        case "planning":
            doing = "replanning" if data.get("replan") else "planning"
            return f"{at}  {doing} ({data.get('attempts', 0)} attempt(s) so far)"
        case "plan":
            labels = [_label(step) for step in data.get("steps") or []]  # type: ignore[union-attr]
            shown = ", ".join(labels) if labels else "(nothing to do)"
            notes = f"  -- {data['notes']}" if data.get("notes") else ""
            return f"{at}  plan #{event.plan} ({data.get('planner') or '?'}): {shown}{notes}"
        case "plan_refused":
            problems = "; ".join(str(p) for p in data.get("problems") or [])  # type: ignore[union-attr]
            return f"{at}  plan #{event.plan} refused: {problems}"
        case "step_end":
            result = data.get("result") or {}
            assert isinstance(result, dict)
            if result.get("success"):
                verdict = "ok"
            else:
                verdict = f"failed {result.get('failure_kind')}: {result.get('reason', '')}"
            return f"{at}    step {event.step} {data.get('label', '')}  {verdict}"
        case "planner_refused":
            return f"{at}  planner refused ({data.get('refusal')}): {data.get('reason', '')}"
        case "goal_check":
            goal = ", ".join(str(g) for g in data.get("goal") or [])  # type: ignore[union-attr]
            verdict = "holds" if data.get("held") else f"NOT MET: {data.get('unmet', '')}"
            return f"{at}  goal {goal}: {verdict}"
        case "step_skipped":
            return f"{at}    step {event.step} skipped: its effects already hold"
        case "retry":
            return f"{at}    retry {data.get('attempt')}/{data.get('of')} after {data.get('failure_kind')}"
        case "recovery":
            return f"{at}    recovery {data.get('recovery')} after {data.get('failure_kind')}"
        case "recovery_end":
            return f"{at}    recovery {'done' if data.get('success') else 'failed'}"
        case "final":
            return f"{at}  final: {data.get('final_reason')}" + (f" ({data['detail']})" if data.get("detail") else "")
    return None


def _label(step: object) -> str:
    """``pick(red_cube)``, as the tree names it; a step that is not a valid call shows as it was logged."""
    from pydantic import ValidationError

    from bt_executive.skills.call import SkillCall

    try:
        return SkillCall.model_validate(step).label()
    except ValidationError:
        return str(step)

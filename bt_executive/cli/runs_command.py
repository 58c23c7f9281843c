"""``bt-executive runs list|show|report``: what recorded runs there are, what happened in one, a page to share.

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
    frames    10 file(s), 54 kB, cameras front, wrist
       0.00s  front  task                             frames/0000-front.jpg
       ...

    $ bt-executive runs report latest -o report.html    # one self-contained page: open it anywhere

A run is named by its directory, a unique part of its name, or ``latest``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bt_executive.runtime.paths import default_runs_root

if TYPE_CHECKING:  # the run-dir models are imported when a command runs, not for its --help
    from bt_executive.executive.run_dir import RunReader, RunSummary


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``runs list``, ``runs show`` and ``runs report``."""
    runs = commands.add_parser("runs", help="recorded task runs: list them, show one, write a report")
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
    report = sub.add_parser(
        "report", help="one self-contained HTML page: task, plans, outcome, the tree and frames at each moment, events"
    )
    report.add_argument("run", help="run directory, a unique part of its name under the root, or 'latest'")
    _add_root(report)
    report.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="the HTML file to write")
    report.set_defaults(func=run_report)


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
                    "frames": [
                        {"t": f.t, "plan": f.plan, "step": f.step, **f.record.model_dump(mode="json")}
                        for f in reader.frames().frames
                    ],
                },
                indent=2,
            )
        )
        return 0
    sys.stdout.write(format_run(reader))
    return 0


def format_run(reader: RunReader) -> str:
    """The ``runs show`` text: header, then the event log as a story, then the ending and the frames."""
    from bt_executive.executive.run_story import event_line

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
        line = event_line(event)
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
    lines.extend(_frame_lines(reader))
    return "\n".join(lines) + "\n"


def _frame_lines(reader: RunReader) -> list[str]:
    """``frames`` and one line per frame kept: when, which camera, which moments, which file."""
    frames = reader.frames()
    if not frames.frames:
        dropped = f" ({frames.dropped} dropped)" if frames.dropped else ""
        return [f"frames    none{dropped}"]
    cameras = ", ".join(dict.fromkeys(f.record.camera for f in frames.frames))
    dropped = f", {frames.dropped} dropped to stay within the run's bound" if frames.dropped else ""
    lines = [f"frames    {frames.files} file(s), {frames.total_bytes / 1000:.0f} kB, cameras {cameras}{dropped}"]
    for frame in frames.frames:
        where = " ".join(f"{k} {v}" for k, v in (("plan", frame.plan), ("step", frame.step)) if v is not None)
        moments = "+".join(frame.record.moments) + (f" ({where})" if where else "")
        lines.append(f"  {frame.t:7.2f}s  {frame.record.camera:<6} {moments:<40} {frame.record.file}")
    return lines


def run_report(args: argparse.Namespace) -> int:
    """Write one run's self-contained HTML report."""
    from bt_executive.executive.run_dir import RunReader, resolve_run
    from bt_executive.executive.run_report import write_report

    reader = RunReader(resolve_run(args.run, args.root))
    size = write_report(reader, args.output)
    print(f"wrote {args.output} ({size / 1000:.0f} kB): open it in any browser, nothing else needed")
    return 0

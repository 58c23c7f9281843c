"""A run as one self-contained HTML page, to send to someone who has nothing installed.

::

    bt-executive runs report latest -o report.html

    ┌ Task "put the red cube on the green plate"   done · goal on(red_cube, plate) holds
    ├ Plans        #0 (stub): pick(red_cube), place_on(plate)
    ├ Moments      0.19 s  step 1 pick(red_cube) failed missed_grasp   [front] [wrist]   ▸ tree
    │              0.89 s  step 2 place_on(plate) ok; goal holds       [front] [wrist]   ▸ tree
    └ Events       every event of events.jsonl, one row each

Frames are inlined as ``data:`` URIs and the style sheet is in the page:
it loads nothing from anywhere, so it opens from a mail attachment or a
temporary folder with the network off. Each moment (the task's start, a
step's start and end, a retry, a replan, the goal check, the end) shows the
frame of each camera nearest to it in time and the tree as the snapshot after
it recorded it; moments that show the same frames are told together, so a
picture is embedded once where the run kept it once.
"""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bt_executive.executive.run_dir import RunReader, SnapshotRecord
from bt_executive.executive.run_frames import FRAME_EVENT, RunFrame, is_moment
from bt_executive.executive.run_story import event_line, step_label
from bt_executive.trees.task_context import TaskEvent

_STATUS = {"SUCCESS": "ok", "FAILURE": "failed", "RUNNING": "running", "INVALID": "idle"}
_STYLE = """
body { font-family: sans-serif; margin: 16px 24px; color: #222; background: #fafafa; }
h1 { font-size: 20px; margin: 0 0 8px 0; } h2 { font-size: 16px; margin-top: 24px; border-bottom: 1px solid #ccc; }
table.facts td { padding: 2px 10px 2px 0; vertical-align: top; } table.facts td:first-child { color: #666; }
.done { color: #2e7d32; font-weight: bold; } .failed { color: #c62828; font-weight: bold; }
.refused { color: #ef6c00; font-weight: bold; }
section.moment { display: flex; gap: 16px; align-items: flex-start; border-bottom: 1px solid #e0e0e0;
                 padding: 10px 0; }
section.moment .frames { display: flex; gap: 8px; flex: 0 0 auto; }
figure { margin: 0; width: min-content; } figure img { display: block; max-width: 320px; border: 1px solid #999; }
figcaption { font-size: 11px; color: #555; font-family: monospace; }
.what { flex: 1 1 auto; min-width: 0; } .what pre { margin: 0 0 6px 0; white-space: pre-wrap; }
ul.tree, ul.tree ul { list-style: none; padding-left: 16px; margin: 0; font-size: 12px; }
ul.tree .ok { color: #2e7d32; } ul.tree .failed { color: #c62828; } ul.tree .running { color: #b8860b; }
ul.tree .idle { color: #888; } ul.tree .details { color: #777; font-size: 11px; margin-left: 6px; }
table.events { border-collapse: collapse; font-size: 12px; } table.events td { padding: 1px 8px 1px 0; }
table.events td.t { font-family: monospace; text-align: right; }
.none { color: #888; }
"""


@dataclass
class _Moment:
    """Consecutive moments that show the same frames: their lines, frames and the tree after the last."""

    events: list[tuple[int, TaskEvent]] = field(default_factory=list)
    frames: tuple[RunFrame, ...] = ()


def write_report(reader: RunReader, output: Path) -> int:
    """Write the report of ``reader``'s run to ``output``; its size in bytes."""
    page = render_report(reader).encode("utf-8")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(page)
    return len(page)


def render_report(reader: RunReader) -> str:
    """The whole page as text."""
    info = reader.info()
    events = reader.events()
    frames = reader.frames()
    snapshots = reader.snapshots()
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>bt_executive run: {_e(info.task)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>Task &ldquo;{_e(info.task)}&rdquo;</h1>",
        _facts(reader, frames.files, frames.total_bytes, frames.dropped),
        "<h2>Plans</h2>",
        _plans(reader),
        "<h2>Moments: what the robot saw, and the tree</h2>",
    ]
    moments = _moments(events, frames.frames)
    if not moments:
        parts.append('<p class="none">no moments recorded</p>')
    parts.extend(_moment_html(n, moment, reader.path, snapshots) for n, moment in enumerate(moments))
    parts.append("<h2>Events</h2>")
    parts.append(_events_table(events))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _facts(reader: RunReader, files: int, frame_bytes: int, dropped: int) -> str:
    info = reader.info()
    summary = reader.summary()
    outcome = reader.outcome()
    reason = summary.final_reason
    rows = [
        ("run", _e(summary.run)),
        ("started", f"{info.started:%Y-%m-%d %H:%M:%S} UTC, planner {_e(info.planner)}"),
        ("outcome", f'<span id="final" class="{_verdict_class(reason)}">{_e(reason)}</span>'),
    ]
    if outcome is not None and outcome.detail:
        rows.append(("detail", _e(outcome.detail)))
    if outcome is not None and outcome.goal:
        held = {True: "holds", False: "DOES NOT HOLD", None: "not checked"}[outcome.goal_held]
        rows.append(("goal check", f'<span id="goal">{_e(", ".join(outcome.goal))}: {held}</span>'))
    rows.append(
        (
            "counts",
            f"{summary.steps} step(s), {summary.attempts} attempt(s), {summary.retries} retry(-ies), "
            f"{summary.replans} replan(s), {summary.duration_s:.1f} s",
        )
    )
    kept = f"{files} frame file(s), {frame_bytes / 1000:.0f} kB" if files else "none"
    rows.append(("frames", kept + (f", {dropped} dropped to stay within the run's bound" if dropped else "")))
    body = "".join(f"<tr><td>{name}</td><td>{value}</td></tr>" for name, value in rows)
    return f'<table class="facts">{body}</table>'


def _plans(reader: RunReader) -> str:
    plans = reader.plans()
    if not plans:
        return '<p class="none">no plan was made</p>'
    items = []
    for index, plan in enumerate(plans):
        steps = ", ".join(step_label(s.model_dump(mode="json")) for s in plan.steps) or "(nothing to do)"
        notes = f" <i>{_e(plan.notes)}</i>" if plan.notes else ""
        goal = f"<br>goal: {_e(', '.join(plan.goal))}" if plan.goal else ""
        items.append(f"<li>#{index} ({_e(plan.planner or '?')}): {_e(steps)}{notes}{goal}</li>")
    return f'<ul class="plans">{"".join(items)}</ul>'


def _moments(events: list[TaskEvent], frames: tuple[RunFrame, ...]) -> list[_Moment]:
    """Each moment with each camera's nearest frame; neighbours that show the same files are merged (not frameless)."""
    cameras = list(dict.fromkeys(f.record.camera for f in frames))
    moments: list[_Moment] = []
    for index, event in enumerate(events):
        if not is_moment(event) or event.kind == FRAME_EVENT:
            continue
        nearest = tuple(
            min(of_camera, key=lambda f: abs(f.t - event.t))
            for camera in cameras
            if (of_camera := [f for f in frames if f.record.camera == camera])
        )
        files = [f.record.file for f in nearest]
        if files and moments and [f.record.file for f in moments[-1].frames] == files:
            moments[-1].events.append((index, event))
        else:
            moments.append(_Moment(events=[(index, event)], frames=nearest))
    return moments


def _moment_html(number: int, moment: _Moment, run: Path, snapshots: list[SnapshotRecord]) -> str:
    first = moment.events[0][1]
    lines = [event_line(event) or f"{event.t:7.2f}s  {event.kind}" for _, event in moment.events]
    figures = "".join(_figure(frame, run) for frame in moment.frames)
    last_index = moment.events[-1][0]
    snapshot = next((s for s in snapshots if s.event_index >= last_index), snapshots[-1] if snapshots else None)
    tree = _tree(snapshot.tree) if snapshot is not None else '<p class="none">no snapshot</p>'
    label = f"tree at {snapshot.t:.2f} s (snapshot {snapshot.index + 1})" if snapshot is not None else "tree"
    kinds = " ".join(event.kind for _, event in moment.events)
    opened = " open" if any(e.kind in ("step_end", "goal_check", "final") for _, e in moment.events) else ""
    return (
        f'<section class="moment" id="moment-{number}" data-t="{first.t}" data-kinds="{_e(kinds)}">'
        f'<div class="frames">{figures or "<span class=none>no frame</span>"}</div>'
        f'<div class="what"><pre>{_e(chr(10).join(line.strip() for line in lines))}</pre>'
        f"<details{opened}><summary>{_e(label)}</summary>{tree}</details></div></section>"
    )


def _figure(frame: RunFrame, run: Path) -> str:
    data = base64.b64encode((run / frame.record.file).read_bytes()).decode("ascii")
    record = frame.record
    stamp = f" · stamp {record.stamp:.2f}" if record.stamp is not None else ""
    caption = f"{record.camera} · t={frame.t:.2f} s{stamp} · {'+'.join(record.moments)}"
    return (
        f'<figure data-camera="{_e(record.camera)}" data-file="{_e(record.file)}">'
        f'<img src="data:image/jpeg;base64,{data}" width="{record.width}" height="{record.height}" '
        f'alt="{_e(record.camera)} camera at {frame.t:.2f} s"><figcaption>{_e(caption)}</figcaption></figure>'
    )


def _tree(tree: dict[str, Any]) -> str:
    """A snapshot (py_trees_js format) as nested lists, names and statuses as the viewer shows them."""
    behaviours = tree.get("behaviours")
    root = tree.get("root")
    if not isinstance(behaviours, dict) or root not in behaviours:
        return '<p class="none">snapshot without a tree</p>'

    def node(key: str, depth: int) -> str:
        entry = behaviours.get(key) or {}
        status = _STATUS.get(str(entry.get("status")), "idle")
        details = str(entry.get("details") or "")
        shown = f'<span class="details">{_e(details)}</span>' if details and details != "..." else ""
        children = entry.get("children") or []
        inner = "".join(node(child, depth + 1) for child in children if depth < 64)
        nested = f"<ul>{inner}</ul>" if inner else ""
        return f'<li><span class="{status}">{_e(str(entry.get("name", key)))}</span>{shown}{nested}</li>'

    return f'<ul class="tree">{node(str(root), 0)}</ul>'


def _events_table(events: list[TaskEvent]) -> str:
    rows = []
    for event in events:
        if event.kind == FRAME_EVENT:
            continue
        line = event_line(event)
        text = line.split("s", 1)[1].strip() if line else json.dumps(event.data, separators=(",", ":"))[:200]
        rows.append(f'<tr><td class="t">{event.t:.2f}s</td><td>{_e(event.kind)}</td><td>{_e(text)}</td></tr>')
    return f'<table class="events">{"".join(rows)}</table>'


def _verdict_class(reason: str) -> str:
    return "done" if reason == "done" else ("refused" if reason == "planner_refused" else "failed")


def _e(text: str) -> str:
    return html.escape(text, quote=True)

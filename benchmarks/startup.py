"""How long until a command is useful: ``serve`` ready, ``plan --dry-run`` done, and where the time goes.

In the same run, each ``--repeat`` times as fresh processes
(``python -m bt_executive.cli.main``, what the ``bt-executive`` script runs):

- ``python -c pass``: the interpreter's own floor;
- ``bt-executive --help``: building the parser (every command module imported);
- ``plan --dry-run`` with the stub planner, with an empty world-state cache
  (MuJoCo loads the scene) and with a warm one (``cli/scene_world.py``), and
  with the default ``auto`` planner (warm);
- ``serve``: launch to its ``executive ready`` line (action server up,
  skills discovered), in a ROS domain of its own.

Then one ``python -X importtime`` run of the warm ``plan`` and of ``serve``:
the slowest top-level imports (cumulative) and whether the heavy modules
(MuJoCo, litellm, the embedder's runtimes, numpy) were imported at all.
A module's figure includes what it was first to import (pydantic, say).
Targets (issue 16): ``serve`` ready <= 1.5 s, warm ``plan --dry-run`` <= 0.5 s.

    .venv/bin/python benchmarks/startup.py [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bt_executive.testing.ros_domain import reserve_domain_id

CLI = [sys.executable, "-m", "bt_executive.cli.main"]
TASK = "put the red cube on the plate"
HEAVY = ("mujoco", "litellm", "onnxruntime", "tokenizers", "torch", "numpy", "rclpy")
TARGET_SERVE_S = 1.5
TARGET_PLAN_S = 0.5


def _run_s(command: list[str], env: dict[str, str], stderr: Any = subprocess.DEVNULL) -> tuple[float, str]:
    """Wall seconds of one process to its exit (which must be 0), and its stderr if asked for."""
    started = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr, text=True, check=False)  # noqa: S603 (our CLI)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[2:])} exited {done.returncode}")
    return elapsed, done.stderr or ""


def _serve_ready_s(env: dict[str, str], run_dir: str, flags: tuple[str, ...] = ()) -> tuple[float, str]:
    """Seconds from launching ``serve`` to its ready line, and its stderr; then it is stopped with SIGINT."""
    command = [CLI[0], *flags, *CLI[1:], "serve", "--run-dir", run_dir]
    with tempfile.TemporaryFile("w+") as err:  # a file, not a pipe: -X importtime writes more than a pipe holds
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=err, text=True)  # noqa: S603
        assert process.stdout is not None
        line = process.stdout.readline()
        elapsed = time.perf_counter() - started
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
        err.seek(0)
        stderr = err.read()
    if not line.startswith("executive ready"):
        raise SystemExit(f"serve did not get ready: {line!r} {stderr[-500:]}")
    return elapsed, stderr


def _imports(stderr: str, top: int = 6) -> dict[str, Any]:
    """From ``-X importtime`` output: the slowest top-level imports (ms, cumulative) and which heavy ones ran."""
    rows: list[tuple[str, int]] = []
    loaded: set[str] = set()
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|", 2)
        if not cumulative.strip().isdigit():
            continue
        module = name.rstrip()
        loaded.add(module.strip().split(".")[0])
        if not module.startswith("  "):  # one space: imported by the program itself, not by another module
            rows.append((module.strip(), int(cumulative)))
    rows.sort(key=lambda row: -row[1])
    return {
        "slowest_ms": {name: round(us / 1e3, 1) for name, us in rows[:top]},
        "heavy_loaded": sorted(m for m in HEAVY if m in loaded),
    }


def main() -> None:
    """Time the commands and print the table (and JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST", LITELLM_LOCAL_MODEL_COST_MAP="True")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH")]))
    keys = ("python", "help", "plan_cold", "plan_warm", "plan_auto_warm", "serve")
    samples: dict[str, list[float]] = {k: [] for k in keys}
    with tempfile.TemporaryDirectory() as tmp, reserve_domain_id() as domain_id:
        env["ROS_DOMAIN_ID"] = str(domain_id)
        plan = [*CLI, "plan", TASK, "--dry-run", "--planner", "stub"]
        for index in range(args.repeat):
            samples["python"].append(_run_s([sys.executable, "-c", "pass"], env)[0])
            samples["help"].append(_run_s([*CLI, "--help"], env)[0])
            cold = dict(env, BT_EXECUTIVE_CACHE=f"{tmp}/cache-cold-{index}")
            samples["plan_cold"].append(_run_s(plan, cold)[0])
            warm = dict(env, BT_EXECUTIVE_CACHE=f"{tmp}/cache-warm")
            if index == 0:
                _run_s(plan, warm)  # fills the cache
            samples["plan_warm"].append(_run_s(plan, warm)[0])
            samples["plan_auto_warm"].append(_run_s([*CLI, "plan", TASK, "--dry-run"], warm)[0])
            samples["serve"].append(_serve_ready_s(env, f"{tmp}/runs")[0])
        _, plan_imports = _run_s(
            [sys.executable, "-X", "importtime", *CLI[1:], "plan", TASK, "--dry-run"], warm, stderr=subprocess.PIPE
        )
        _, serve_imports = _serve_ready_s(env, f"{tmp}/runs", ("-X", "importtime"))
    figures: dict[str, Any] = {"repeat": args.repeat}
    for key, values in samples.items():
        figures[f"{key}_median_s"] = round(statistics.median(values), 3)
        figures[f"{key}_min_s"] = round(min(values), 3)
    figures["imports_plan_warm"] = _imports(plan_imports)
    figures["imports_serve"] = _imports(serve_imports)
    figures["target_serve_s"] = TARGET_SERVE_S
    figures["target_plan_s"] = TARGET_PLAN_S
    labels = {
        "python": "python -c pass (floor)",
        "help": "bt-executive --help",
        "plan_cold": "plan --dry-run, stub, cold cache",
        "plan_warm": "plan --dry-run, stub, warm cache",
        "plan_auto_warm": "plan --dry-run, auto (default), warm",
        "serve": "serve: launch to 'executive ready'",
    }
    print(f"start-up, {args.repeat} fresh processes each")
    print(f"  {'':38s} {'median':>8s} {'min':>8s}")
    for key, label in labels.items():
        print(f"  {label:38s} {figures[f'{key}_median_s']:6.2f} s {figures[f'{key}_min_s']:6.2f} s")
    for name, key in (("plan (warm)", "imports_plan_warm"), ("serve", "imports_serve")):
        found = figures[key]
        slowest = ", ".join(f"{m} {ms:.0f} ms" for m, ms in found["slowest_ms"].items())
        print(
            f"\n{name}: slowest imports {slowest}\n  heavy modules loaded: {', '.join(found['heavy_loaded']) or 'none'}"
        )
    serve_ok = figures["serve_median_s"] <= TARGET_SERVE_S
    plan_ok = figures["plan_warm_median_s"] <= TARGET_PLAN_S
    print(
        f"\ntargets: serve ready <= {TARGET_SERVE_S} s: {'met' if serve_ok else 'MISSED'}; "
        f"plan --dry-run <= {TARGET_PLAN_S} s (warm): {'met' if plan_ok else 'MISSED'}"
    )
    if args.json:
        print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()

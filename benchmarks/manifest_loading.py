"""How much does safe, validated manifest loading cost over a bare ``yaml.safe_load``?

Writes N copies of the shipped tabletop manifests (distinct ids) to a temp
directory and times, in the same run: the baseline (read + ``yaml.safe_load``
of every file) against ``registry.collect`` (strict loader, pydantic model,
JSON Schema check of each parameter schema, predicate parsing). Prints a
table; with ``--json`` the last line is one JSON object of the figures.

    .venv/bin/python benchmarks/manifest_loading.py [--skills 500] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.registry import collect, manifest_files


def _write_catalog(root: Path, count: int) -> list[Path]:
    sources = [p.read_text(encoding="utf-8") for p in manifest_files(default_skill_dirs()[0])]
    paths = []
    for i in range(count):
        text = sources[i % len(sources)]
        owner_line = next(line for line in text.splitlines() if line.startswith("id: "))
        path = root / f"skill_{i:05d}.yaml"
        path.write_text(text.replace(owner_line, f"{owner_line}_{i:05d}"), encoding="utf-8")
        paths.append(path)
    return paths


def _best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Run the benchmark and print its table (and JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        paths = _write_catalog(Path(tmp), args.skills)
        baseline = _best_of(args.repeat, lambda: [yaml.safe_load(p.read_text(encoding="utf-8")) for p in paths])
        report = collect([Path(tmp)], use_entry_points=False)
        if report.problems or len(report.skills) != args.skills:
            raise SystemExit(f"catalogue did not load cleanly: {report.problems[:3]}")
        ours = _best_of(args.repeat, lambda: collect([Path(tmp)], use_entry_points=False))

    figures = {
        "skills": args.skills,
        "baseline_safe_load_ms": round(baseline * 1e3, 2),
        "registry_collect_ms": round(ours * 1e3, 2),
        "ms_per_manifest": round(ours / args.skills * 1e3, 3),
        "ratio_vs_safe_load": round(ours / baseline, 2),
    }
    print(f"manifest loading, {args.skills} manifests, best of {args.repeat}")
    print(f"  {'yaml.safe_load (baseline)':32s} {figures['baseline_safe_load_ms']:10.1f} ms")
    print(f"  {'registry.collect (ours)':32s} {figures['registry_collect_ms']:10.1f} ms")
    print(f"  {'per manifest':32s} {figures['ms_per_manifest']:10.3f} ms")
    print(f"  {'ratio ours / baseline':32s} {figures['ratio_vs_safe_load']:10.2f} x")
    if args.json:
        print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()

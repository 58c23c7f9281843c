"""Scripted-skill benchmark of the embedded MuJoCo robot.

Over N seeded random layouts (seeds 0..N-1) it runs pick(cube) ->
place_on(plate) -> home and checks the result from sim state (the cube rests
on the plate, the arm is home). It reports:

- pick-and-place success rate without faults (target >= 98%);
- the lockstep real-time factor: sim seconds per wall second while skills
  run, planning included (target >= 10x);
- milliseconds per 224x224 RGB frame from the front camera;
- the same layouts with the 20% missed-grasp fault: how many grasps were
  spoiled, and how failures were reported. Every failure must come back as
  ``missed_grasp``: failures reported as success and failures of another kind
  must both be 0.

Usage::

    python benchmarks/sim_skills.py                 # 100 layouts, readable table
    python benchmarks/sim_skills.py --layouts 20 --json   # ... and one JSON object as the last line
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import bt_executive.sim  # noqa: F401 - selects the OpenGL platform before mujoco is imported
from bt_executive.runtime.paths import config_dir
from bt_executive.sim.backend import SimBackend
from bt_executive.sim.camera import RenderingUnavailable
from bt_executive.sim.faults import FaultConfig
from bt_executive.sim.scene import Scene
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind

CUBES = ("red_cube", "green_cube", "blue_cube")
SUCCESS_TARGET = 0.98
RTF_TARGET = 10.0


@dataclass
class Trial:
    """One layout: which cube, what each skill reported, and whether the cube ended on the plate."""

    seed: int
    cube: str
    results: list[tuple[str, SkillResult]]
    on_plate: bool
    fault_fired: bool
    sim_s: float
    wall_s: float

    @property
    def reported_success(self) -> bool:
        """Whether every skill said it succeeded."""
        return all(r.success for _, r in self.results)

    @property
    def failure(self) -> tuple[str, SkillResult] | None:
        """The first skill that reported a failure, if any."""
        return next(((name, r) for name, r in self.results if not r.success), None)


@dataclass
class Run:
    """All layouts of one configuration."""

    trials: list[Trial] = field(default_factory=list)

    @property
    def successes(self) -> int:
        """Layouts where the cube ended on the plate and every skill said so."""
        return sum(t.on_plate and t.reported_success for t in self.trials)

    @property
    def rtf(self) -> float:
        """Sim seconds per wall second over every trial."""
        wall = sum(t.wall_s for t in self.trials)
        return sum(t.sim_s for t in self.trials) / wall if wall > 0 else 0.0


def run_layouts(backend: SimBackend, layouts: int) -> Run:
    """pick -> place_on(plate) -> home on seeds 0..layouts-1, stopping a layout at its first failure."""
    run = Run()
    for seed in range(layouts):
        backend.reset(seed)
        cube = CUBES[seed % len(CUBES)]
        results: list[tuple[str, SkillResult]] = []
        sim0, wall0 = backend.sim_time, time.perf_counter()
        for name, args in (("pick", {"object": cube}), ("place_on", {"target": "plate"}), ("home", {})):
            result = backend.run_skill(name, args)
            results.append((name, result))
            if not result.success:
                break
        wall = time.perf_counter() - wall0
        state = backend.world_state()
        obj = state.object(cube)
        run.trials.append(
            Trial(
                seed=seed,
                cube=cube,
                results=results,
                on_plate=obj is not None and obj.supported_by == "plate" and state.at_home,
                fault_fired=any(e.kind == "missed_grasp" for e in backend.fault_events),
                sim_s=backend.sim_time - sim0,
                wall_s=wall,
            )
        )
    return run


def frame_ms(backend: SimBackend, frames: int) -> float | None:
    """Mean milliseconds per 224x224 front-camera frame, or None when this machine cannot render."""
    try:
        backend.render("front")  # warm-up: context and scene creation
    except RenderingUnavailable as err:
        print(f"rendering unavailable: {err}", file=sys.stderr)
        return None
    start = time.perf_counter()
    for _ in range(frames):
        backend.render("front")
    return (time.perf_counter() - start) / frames * 1000.0


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit status 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--layouts", type=int, default=100, help="seeded random layouts (default 100)")
    parser.add_argument("--frames", type=int, default=50, help="frames to time for ms/frame (default 50)")
    parser.add_argument("--scene", type=Path, default=config_dir() / "scenes" / "tabletop.yaml")
    parser.add_argument("--fault", type=Path, default=config_dir() / "faults" / "missed_grasp.yaml")
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures as the last line")
    args = parser.parse_args(argv)

    scene = Scene.from_yaml(args.scene)
    clean_backend = SimBackend(scene)
    clean = run_layouts(clean_backend, args.layouts)
    ms = frame_ms(clean_backend, args.frames)
    clean_backend.close()

    fault = FaultConfig.from_yaml(args.fault)
    faulty = run_layouts(SimBackend(scene, faults=fault), args.layouts)
    failed = [t for t in faulty.trials if not t.on_plate]
    as_success = sum(t.reported_success for t in failed)
    wrong_kind = [t for t in failed if (f := t.failure) is not None and f[1].failure_kind != FailureKind.MISSED_GRASP]
    fired = sum(t.fault_fired for t in faulty.trials)

    n = args.layouts
    rate = clean.successes / n if n else 0.0
    rows = [
        ("layouts", f"{n}"),
        ("pick-and-place success (no faults)", f"{clean.successes}/{n} = {rate:.1%}  (target >= {SUCCESS_TARGET:.0%})"),
        ("lockstep real-time factor", f"{clean.rtf:.1f}x  (target >= {RTF_TARGET:.0f}x)"),
        ("ms per 224x224 front frame", "unavailable" if ms is None else f"{ms:.1f} ms"),
        (f"with {fault.name} fault: grasps spoiled", f"{fired}/{n}"),
        ("  successes", f"{faulty.successes}/{n}"),
        ("  failures", f"{len(failed)}"),
        ("  failures reported as success", f"{as_success}  (must be 0)"),
        ("  failures with another kind", f"{len(wrong_kind)}  (must be 0)"),
        ("  lockstep real-time factor", f"{faulty.rtf:.1f}x"),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    for t in [t for t in clean.trials if not (t.on_plate and t.reported_success)] + wrong_kind:
        f = t.failure
        print(f"  seed {t.seed} {t.cube}: " + (f"{f[0]} {f[1].failure_kind} {f[1].reason}" if f else "not on plate"))

    ok = rate >= SUCCESS_TARGET and clean.rtf >= RTF_TARGET and as_success == 0 and not wrong_kind
    if args.json:
        figures = {
            "layouts": n,
            "pick_place_success_rate": round(rate, 4),
            "pick_place_successes": clean.successes,
            "rtf_lockstep": round(clean.rtf, 2),
            "ms_per_frame_224": None if ms is None else round(ms, 2),
            "missed_grasp_fault": {
                "fault_file": fault.name,
                "grasps_spoiled": fired,
                "successes": faulty.successes,
                "failures": len(failed),
                "failures_reported_as_success": as_success,
                "failures_with_wrong_kind": len(wrong_kind),
                "rtf_lockstep": round(faulty.rtf, 2),
            },
            "targets_met": ok,
        }
        print(json.dumps(figures))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

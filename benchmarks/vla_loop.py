"""The VLA control loop over ROS 2 topics against the same loop in process, in one run.

(a) **ROS loop**: ``bt-executive sim`` runs in a child process (lockstep,
``--record``); this process drives it with a ``VlaSkill`` over a ``RosRobot``
(camera and joint-state topics in, ``JointTrajectory`` commands out), the
oracle policy in process so the robot transport is the only difference.
(b) **in-process loop**: the same skill, layout and policy on a
``SimBackend`` in this process through ``SimRobot``, paced to wall time
(``realtime``) so both loops are asked for the same rate.

Each loop runs ``--runs`` episodes of "put the blue_cube on the bowl" at
``--rate`` Hz and reports:

- control rate achieved over requested (wall time, first to last action);
- observation age at inference, median and p99 (ROS: wall time since the
  oldest of its messages arrived; in process: since the scene was captured
  for rendering), and the same in frame periods;
- command latency from the policy's answer to the robot receiving the
  chunk's first action (ROS: the sim's own arrival time from its record,
  matched by the command's header stamp; in process: until ``act`` starts).
  It includes the loop's wait for the action's slot (up to one period);
  the publish-to-arrival part alone is shown below it;
- camera frames per second per camera (ROS: received on the front camera
  topic; in process: rendered for observations).

Targets (issue 13): ROS rate ratio >= 0.95 and observation age p99 <= 2
frame periods. Prints a table; ``--json`` adds one JSON object as the last line.

    .venv/bin/python benchmarks/vla_loop.py [--runs 2] [--rate 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import py_trees

from bt_executive.sim.backend import default_scene_path
from bt_executive.sim.oracle_policy import OraclePolicy
from bt_executive.sim.scene import Scene
from bt_executive.skills import SkillCall, SkillManifest, SkillRegistry
from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.vla_skill import VlaOptions, VlaSkill

SKILL = "tabletop/vla_manipulate"
CALL = SkillCall(skill=SKILL, args={"object": "blue_cube", "target": "bowl"})
SEED = 1
RATE_TARGET = 0.95
AGE_TARGET_FRAMES = 2.0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _run_leaf(leaf: VlaSkill, timeout_s: float = 120.0) -> py_trees.common.Status:
    leaf.tick_once()
    deadline = time.monotonic() + timeout_s
    while leaf.status is py_trees.common.Status.RUNNING and time.monotonic() < deadline:
        time.sleep(0.02)
        leaf.tick_once()
    leaf.join()
    return leaf.status


def _summarise(stats: list[Any], rate_hz: float, latencies_s: list[float], frames_per_s: float) -> dict[str, Any]:
    rates = [s.achieved_rate_hz() for s in stats if s.achieved_rate_hz() is not None]
    ages = [a for s in stats for a in s.observation_ages_s]
    frame_period = 1.0 / Scene.from_yaml(default_scene_path()).camera_streams.rate_hz
    return {
        "rate_ratio": round(statistics.median(rates) / rate_hz, 4) if rates else None,
        "achieved_hz": round(statistics.median(rates), 3) if rates else None,
        "obs_age_ms_median": round(statistics.median(ages) * 1e3, 2) if ages else None,
        "obs_age_ms_p99": round(_percentile(ages, 0.99) * 1e3, 2) if ages else None,
        "obs_age_p99_frames": round(_percentile(ages, 0.99) / frame_period, 3) if ages else None,
        "command_latency_ms_median": round(statistics.median(latencies_s) * 1e3, 2) if latencies_s else None,
        "command_latency_ms_p99": round(_percentile(latencies_s, 0.99) * 1e3, 2) if latencies_s else None,
        "frames_per_s": round(frames_per_s, 2),
        "steps": sum(s.steps for s in stats),
        "queries": sum(s.queries for s in stats),
    }


def in_process_loop(manifest: SkillManifest, runs: int, rate_hz: float) -> dict[str, Any]:
    """The loop on a SimBackend in this process, paced to wall time."""
    from bt_executive.sim.backend import SimBackend
    from bt_executive.sim.vla_robot import SimRobot

    backend = SimBackend.from_files(seed=SEED)
    backend.render("front")  # the GL context is made once, before timing (the sim process makes it at start)
    stats: list[Any] = []
    latencies: list[float] = []
    frames = 0
    wall = 0.0
    outcomes = []
    try:
        for _ in range(runs):
            backend.reset(SEED)
            leaf = VlaSkill(manifest, CALL, SimRobot(backend), OraclePolicy(rate_hz), VlaOptions(realtime=True))
            started = time.monotonic()
            outcomes.append(_run_leaf(leaf).name)
            wall += time.monotonic() - started
            assert leaf.last_stats is not None
            stats.append(leaf.last_stats)
            latencies += [acted - answered for answered, acted in leaf.last_stats.answers if acted]
            frames += leaf.last_stats.queries  # one frame per camera per observation
    finally:
        backend.close()
    summary = _summarise(stats, rate_hz, latencies, frames / wall if wall else 0.0)
    summary["command_transport_ms_median"] = summary["command_transport_ms_p99"] = 0.0  # a function call
    summary["outcomes"] = outcomes
    return summary


def _sensing(world: Any, robot: Any) -> Any:
    """Whether the world state and the front camera have arrived (a predicate for ``wait_until``)."""
    return lambda: world.latest() is not None and "front" in robot.received


def ros_loop(manifest: SkillManifest, runs: int, rate_hz: float) -> dict[str, Any]:
    """The loop over the sim's topics, the sim in a child process."""
    from bt_executive.cli.process_group import ProcessGroup
    from bt_executive.executive.world_cache import WorldStateCache
    from bt_executive.skills.ros_robot import RosRobot
    from bt_executive.testing import RosHarness
    from bt_executive.testing.ros_domain import reserve_domain_id

    assert manifest.vla is not None
    stats: list[Any] = []
    latencies: list[float] = []
    frames_per_s: list[float] = []
    transport: list[float] = []
    outcomes = []
    with tempfile.TemporaryDirectory() as tmp, reserve_domain_id() as domain_id:
        namespace = f"/vla_bench_{os.getpid()}"
        for run in range(runs):
            record = Path(tmp) / f"commands_{run}.jsonl"
            env = {**os.environ, "ROS_DOMAIN_ID": str(domain_id)}
            with ProcessGroup(echo=None, env=env) as group:
                sim = group.start(
                    "sim",
                    ["sim", "--namespace", namespace, "--seed", str(SEED), "--record", str(record)],
                    ready=r"^sim ready",
                )
                group.wait_ready(sim, 120)
                with RosHarness.open(domain_id, namespace) as harness:
                    node = harness.node("vla_bench")
                    world = WorldStateCache(node, "world_state")
                    robot = RosRobot(node, manifest.vla.robot, world.latest)
                    leaf = VlaSkill(manifest, CALL, robot, OraclePolicy(rate_hz), VlaOptions(realtime=True))
                    harness.start()
                    harness.wait_until(_sensing(world, robot), 30, "sensors")
                    before, started = robot.received.get("front", 0), time.monotonic()
                    outcomes.append(_run_leaf(leaf).name)
                    frames_per_s.append((robot.received.get("front", 0) - before) / (time.monotonic() - started))
                    assert leaf.last_stats is not None
                    stats.append(leaf.last_stats)
            received = [json.loads(line) for line in record.read_text().splitlines()]
            transport += [r["received_wall"] - r["stamp"] for r in received]
            by_stamp = sorted((r["stamp"], r["received_wall"]) for r in received)
            for answered, acted in leaf.last_stats.answers:
                # the chunk's first command is the first the sim got stamped at or after the hand-over
                match = next((wall for stamp, wall in by_stamp if stamp >= acted - 1e-6), None) if acted else None
                if match is not None:
                    latencies.append(match - answered)
    summary = _summarise(stats, rate_hz, latencies, statistics.median(frames_per_s) if frames_per_s else 0.0)
    summary["command_transport_ms_median"] = round(statistics.median(transport) * 1e3, 2) if transport else None
    summary["command_transport_ms_p99"] = round(_percentile(transport, 0.99) * 1e3, 2) if transport else None
    summary["outcomes"] = outcomes
    return summary


def main() -> int:
    """Run both loops and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="episodes per loop")
    parser.add_argument("--rate", type=float, default=10.0, help="control rate, Hz (the manifest's is 10)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    os.environ.setdefault("MUJOCO_GL", "egl")
    manifest = SkillRegistry.discover(default_skill_dirs()).get(SKILL)
    assert manifest.vla is not None
    manifest = manifest.model_copy(update={"vla": manifest.vla.model_copy(update={"control_rate_hz": args.rate})})
    ros = ros_loop(manifest, args.runs, args.rate)
    local = in_process_loop(manifest, args.runs, args.rate)
    rows = [
        ("control rate / requested", "rate_ratio", ""),
        ("achieved rate", "achieved_hz", " Hz"),
        ("observation age median", "obs_age_ms_median", " ms"),
        ("observation age p99", "obs_age_ms_p99", " ms"),
        ("observation age p99 / frame period", "obs_age_p99_frames", ""),
        ("command latency median", "command_latency_ms_median", " ms"),
        ("command latency p99", "command_latency_ms_p99", " ms"),
        ("  of which publish -> sim, median", "command_transport_ms_median", " ms"),
        ("  of which publish -> sim, p99", "command_transport_ms_p99", " ms"),
        ("frames per second per camera", "frames_per_s", ""),
        ("actions / policy queries", "steps", ""),
    ]
    print(f"VLA loop at {args.rate:g} Hz, {args.runs} episode(s) each, seed {SEED}")
    print(f"{'':38} {'ROS topics':>14} {'in process':>14}")
    for label, key, unit in rows:
        if key == "steps":
            print(f"{label:38} {ros['steps']:>8}/{ros['queries']:<5} {local['steps']:>8}/{local['queries']:<5}")
        else:
            print(f"{label:38} {str(ros[key]) + unit:>14} {str(local[key]) + unit:>14}")
    print(f"{'outcomes':38} {','.join(ros['outcomes']):>14} {','.join(local['outcomes']):>14}")
    rate_ok = ros["rate_ratio"] is not None and ros["rate_ratio"] >= RATE_TARGET
    age_ok = ros["obs_age_p99_frames"] is not None and ros["obs_age_p99_frames"] <= AGE_TARGET_FRAMES
    print(
        f"targets: rate >= {RATE_TARGET} x requested: {'met' if rate_ok else 'NOT met'}; "
        f"observation age p99 <= {AGE_TARGET_FRAMES:g} frame periods: {'met' if age_ok else 'NOT met'}"
    )
    if args.json:
        print(
            json.dumps(
                {
                    "rate_hz": args.rate,
                    "runs": args.runs,
                    "ros": ros,
                    "in_process": local,
                    "rate_target_met": rate_ok,
                    "age_target_met": age_ok,
                }
            )
        )
    return 0 if all(o == "SUCCESS" for o in ros["outcomes"] + local["outcomes"]) else 1


if __name__ == "__main__":
    sys.exit(main())

"""What does a skill leaf add to a ROS 2 action round trip, over a bare rclpy ActionClient?

One fake skill server process (zero delay, no feedback) serves
``skills/pick``; in the same run, alternating goal by goal, this process times
(a) a ``RosActionSkill`` in a py_trees Sequence ticked every ``--period-ms``
from the first tick (validate, build, send) to the tick that sees the result,
and (b) a bare ``ActionClient`` on the same node: ``send_goal_async``, wait for
the goal handle, ``get_result_async``, wait for the result, woken by
done-callbacks (rclpy's idiom; the callback is a task the executor runs on
its next cycle), (c) the same bare client polling ``future.done()`` at the
tree's period (what the leaf does), and (d) the leaf of (a) whose tree is
also ticked as soon as a goal response or result arrives (its ``wake``, as
the executive node's guard condition does). The target compares (a) with
(b); at the executive's 20 Hz (``--period-ms 50``) (a) is ~2 periods while
(d) stays near (b).

Then the VLA transport: one real sim observation (224x224x3 front and wrist
frames, 7-D state, privileged world state) is sent ``--policy-queries``
times to the oracle policy, (d) called in process and (e) through
``bt-executive policy-server`` in a child process over a loopback websocket
(``PolicyClient``: msgpack-numpy pack, send, server infer, pack, receive,
unpack), alternating query by query; the ratio is (e) over (d), and the
difference is what the wire costs per query.

Then the executors side by side (``executor_matrix.py``): for every pair of
client executor (the executive's side) and server executor (the sim's skill
servers' side) among SingleThreadedExecutor, MultiThreadedExecutor with 2 and
8 threads (8: what ``RosProcess`` runs today) and
``rclpy.experimental.EventsExecutor``, a lean RunSkill server process and a
client process exchange ``--matrix-goals`` goals, and each round trip is
split into legs by timestamps both processes take on the one system
monotonic clock: ``request`` (middleware + server executor), ``accept``
(server executor), ``response`` (middleware + client executor) and
``result`` (server executor, middleware both ways, client executor).

Prints medians, p99s and their ratios; with ``--json`` the last line is one
JSON object of the figures.

    .venv/bin/python benchmarks/dispatch.py [--goals 300] [--period-ms 1] [--policy-queries 300]
                                            [--matrix-goals 150] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import py_trees
from py_trees.common import Status
from rclpy.action.client import ActionClient

from bt_executive.skills import SkillCall, SkillManifest
from bt_executive.skills.action_skill import RosActionSkill
from bt_executive.testing import FakeSkillServer, Outcome, RosHarness
from bt_executive.testing.ros_domain import reserve_domain_id

ACTION = "skills/pick"
TARGET_RATIO = 1.3
MANIFEST = {
    "id": "bench/pick",
    "description": "Pick, for the dispatch benchmark.",
    "kind": "ros_action",
    "actions": ["PICK"],
    "parameters": {"type": "object", "properties": {"object": {"type": "string"}}, "required": ["object"]},
    "ros": {
        "action_type": "bt_executive_interfaces/action/RunSkill",
        "action_name": ACTION,
        "field_mapping": {"skill_id": "$skill", "args_json": "$args_json", "prompt": "$prompt"},
    },
}


def _leaf_round_trip(
    root: py_trees.behaviour.Behaviour, period_s: float, woken: threading.Event | None = None
) -> float:
    """Seconds from the first tick of a fresh run to the tick that ends it.

    Ticks every ``period_s``; with ``woken`` (the leaf's ``wake`` sets it) also as soon as a goal
    response or a result arrives, as the executive node does.
    """
    started = time.perf_counter()
    while True:
        if woken is not None:
            woken.clear()
        root.tick_once()
        if root.status in (Status.SUCCESS, Status.FAILURE):
            if root.status is not Status.SUCCESS:
                raise SystemExit(f"the leaf failed: {root.children[0].result}")  # type: ignore[attr-defined]
            return time.perf_counter() - started
        if woken is None:
            time.sleep(period_s)
        else:
            woken.wait(period_s)


def _wait(future: Any, timeout_s: float = 10.0) -> Any:
    done = threading.Event()
    future.add_done_callback(lambda _future: done.set())
    if not done.wait(timeout_s):
        raise SystemExit("the bare client got no answer within 10 s")
    return future.result()


def _poll(future: Any, period_s: float, timeout_s: float = 10.0) -> Any:
    deadline = time.perf_counter() + timeout_s
    while not future.done():
        if time.perf_counter() > deadline:
            raise SystemExit("the bare client got no answer within 10 s")
        time.sleep(period_s)
    return future.result()


def _bare_round_trip(client: ActionClient[Any, Any, Any], goal: Any, poll_period_s: float | None = None) -> float:
    """Seconds from send_goal_async to the result, with rclpy alone (woken by callbacks, or polling)."""
    started = time.perf_counter()
    if poll_period_s is None:
        handle = _wait(client.send_goal_async(goal))
        response = _wait(handle.get_result_async())
    else:
        handle = _poll(client.send_goal_async(goal), poll_period_s)
        response = _poll(handle.get_result_async(), poll_period_s)
    if not response.result.success:
        raise SystemExit("the bare client's goal failed")
    return time.perf_counter() - started


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.99 * len(ordered)) - 1)]


def _policy_round_trips(queries: int, warmup: int) -> dict[str, float | int]:
    """Oracle queries in process and through a policy-server process, alternating; figures in ms."""
    import re
    import subprocess
    import sys

    from bt_executive.sim.backend import SimBackend
    from bt_executive.sim.oracle_policy import OraclePolicy
    from bt_executive.sim.vla_robot import SimRobot
    from bt_executive.skills.policy import PolicyObservation
    from bt_executive.skills.policy_client import PolicyClient

    backend = SimBackend.from_files(seed=1)
    try:
        seen = SimRobot(backend).observe(("front", "wrist"))
    finally:
        backend.close()
    observation = PolicyObservation(
        images=seen.images, state=seen.state, prompt="put the blue cube in the bowl", privileged=seen.privileged
    )
    local = OraclePolicy()
    command = [sys.executable, "-m", "bt_executive.cli.main", "policy-server", "--policy", "oracle", "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # noqa: S603 (our own CLI)
    try:
        assert process.stdout is not None
        ready = re.search(r"ws://\S+", process.stdout.readline())
        if ready is None:
            raise SystemExit("the policy server did not start")
        client = PolicyClient(ready.group(0))
        times: dict[str, list[float]] = {"inproc": [], "websocket": []}
        server_ms: list[float] = []
        for index in range(warmup + queries):
            for side in ("inproc", "websocket") if index % 2 else ("websocket", "inproc"):
                started = time.perf_counter()
                chunk = local.infer(observation) if side == "inproc" else client.infer(observation)
                elapsed = time.perf_counter() - started
                if chunk.shape != (local.horizon, 7):
                    raise SystemExit(f"{side} returned a {chunk.shape} chunk")
                if index >= warmup:
                    times[side].append(elapsed)
                    if side == "websocket":
                        server_ms.append(float(client.server_timing.get("infer_ms", 0.0)))
        client.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
    medians = {side: statistics.median(values) for side, values in times.items()}
    figures: dict[str, float | int] = {
        "policy_queries": queries,
        "observation_bytes": sum(int(image.nbytes) for image in observation.images.values()),
        "policy_server_infer_median_ms": round(statistics.median(server_ms), 3),
    }
    for side, values in times.items():
        figures[f"policy_{side}_median_ms"] = round(medians[side] * 1e3, 3)
        figures[f"policy_{side}_p99_ms"] = round(_p99(values) * 1e3, 3)
    figures["policy_ratio_median"] = round(medians["websocket"] / medians["inproc"], 2)
    figures["policy_wire_overhead_median_ms"] = round((medians["websocket"] - medians["inproc"]) * 1e3, 3)
    return figures


def main() -> None:
    """Run the benchmark and print its table (and JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--goals", type=int, default=300, help="timed goals per side (>= 200 for a stable p99)")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--period-ms", type=float, default=1.0, help="tick period of the tree")
    parser.add_argument("--policy-queries", type=int, default=300, help="timed policy queries per transport")
    parser.add_argument("--client-threads", type=int, default=4, help="the tree's executor threads (harness)")
    parser.add_argument("--server-threads", type=int, default=16, help="the fake skill server's executor threads")
    parser.add_argument("--matrix-goals", type=int, default=150, help="timed goals per executor pair (0: skip)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    period_s = args.period_ms / 1e3

    from bt_executive_interfaces.action import RunSkill

    manifest = SkillManifest.model_validate(MANIFEST)
    call = SkillCall(skill="bench/pick", args={"object": "red_cube"})
    with tempfile.TemporaryDirectory() as tmp, reserve_domain_id() as domain_id:
        server = FakeSkillServer(
            Path(tmp), domain_id, "/dispatch_bench", result_timeout_s=1, threads=args.server_threads
        )
        server.serve(ACTION, default=Outcome(feedback_hz=0.0))
        server.start()
        try:
            with RosHarness.open(domain_id, "/dispatch_bench", num_threads=args.client_threads) as harness:
                node = harness.node("bench")
                leaf = RosActionSkill(manifest, call, node)
                root = py_trees.composites.Sequence("dispatch", memory=True, children=[leaf])
                woken = threading.Event()
                woken_leaf = RosActionSkill(manifest, call, node, wake=woken.set)
                woken_root = py_trees.composites.Sequence("woken", memory=True, children=[woken_leaf])
                bare: ActionClient[Any, Any, Any] = ActionClient(node, RunSkill, ACTION)
                harness.start()
                harness.wait_until(lambda: leaf.server_is_ready() and bare.server_is_ready(), 20.0, "discovery")
                goal = RunSkill.Goal(skill_id="bench/pick", args_json='{"object": "red_cube"}')
                sides: dict[str, Callable[[], float]] = {
                    "leaf": lambda: _leaf_round_trip(root, period_s),
                    "woken": lambda: _leaf_round_trip(woken_root, period_s, woken),
                    "bare": lambda: _bare_round_trip(bare, goal),
                    "polled": lambda: _bare_round_trip(bare, goal, period_s),
                }
                times: dict[str, list[float]] = {side: [] for side in sides}
                for _ in range(args.warmup):
                    for run in sides.values():
                        run()
                order = list(sides)
                for _ in range(args.goals):
                    order = order[1:] + order[:1]  # rotate who goes first, so drift hits every side alike
                    for side in order:
                        times[side].append(sides[side]())
                goals_on_server = len(server.goals())
        finally:
            server.stop()

    medians = {side: statistics.median(values) for side, values in times.items()}
    p99s = {side: _p99(values) for side, values in times.items()}
    figures: dict[str, Any] = {"goals": args.goals, "tick_period_ms": args.period_ms}
    for side in times:
        figures[f"{side}_median_ms"] = round(medians[side] * 1e3, 2)
        figures[f"{side}_p99_ms"] = round(p99s[side] * 1e3, 2)
    figures["ratio_median"] = round(medians["leaf"] / medians["bare"], 2)
    figures["ratio_p99"] = round(p99s["leaf"] / p99s["bare"], 2)
    figures["ratio_median_vs_polled"] = round(medians["leaf"] / medians["polled"], 2)
    figures["ratio_p99_vs_polled"] = round(p99s["leaf"] / p99s["polled"], 2)
    figures["target_ratio"] = TARGET_RATIO
    figures["ratio_woken_vs_bare"] = round(medians["woken"] / medians["bare"], 2)
    figures["extra_goals_on_server"] = goals_on_server - len(sides) * (args.goals + args.warmup)
    labels = {
        "bare": "bare ActionClient (callbacks)",
        "polled": "bare ActionClient (polled)",
        "leaf": "RosActionSkill in a tree",
        "woken": "... also ticked when an answer comes",
    }
    print(f"goal -> result round trip, {args.goals} goals each, tree ticked every {args.period_ms:g} ms")
    print(f"  {'':34s} {'median':>11s} {'p99':>11s}")
    for side, label in labels.items():
        print(f"  {label:34s} {figures[f'{side}_median_ms']:8.2f} ms {figures[f'{side}_p99_ms']:8.2f} ms")
    print(f"  {'ratio leaf / bare (callbacks)':34s} {figures['ratio_median']:8.2f} x  {figures['ratio_p99']:8.2f} x")
    print(
        f"  {'ratio leaf / bare (polled)':34s} {figures['ratio_median_vs_polled']:8.2f} x  "
        f"{figures['ratio_p99_vs_polled']:8.2f} x"
    )
    print(f"  {'ratio woken leaf / bare (callbacks)':34s} {figures['ratio_woken_vs_bare']:8.2f} x")
    print(f"  target: ratio <= {TARGET_RATIO} x; goal requests resent: {figures['extra_goals_on_server']}")
    policy = _policy_round_trips(args.policy_queries, args.warmup)
    figures.update(policy)
    print(
        f"\npolicy round trip, oracle, {args.policy_queries} queries each, "
        f"observation {policy['observation_bytes']} bytes of frames (2 x 224x224x3)"
    )
    print(f"  {'':34s} {'median':>11s} {'p99':>11s}")
    for side, label in (("inproc", "in-process policy.infer"), ("websocket", "policy server over websocket")):
        print(f"  {label:34s} {policy[f'policy_{side}_median_ms']:8.3f} ms {policy[f'policy_{side}_p99_ms']:8.3f} ms")
    print(f"  {'ratio websocket / in-process':34s} {policy['policy_ratio_median']:8.2f} x")
    print(
        f"  wire cost per query (median): {policy['policy_wire_overhead_median_ms']:.3f} ms; "
        f"server-side infer {policy['policy_server_infer_median_ms']:.3f} ms"
    )
    if args.matrix_goals > 0:
        figures["executors"] = _executor_matrix(args.matrix_goals, args.warmup)
    if args.json:
        print(json.dumps(figures, sort_keys=True))


def _executor_matrix(goals: int, warmup: int) -> list[dict[str, Any]]:
    """Every (client, server) executor pair's round trip and its legs; prints the table."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find the benchmarks package
    from benchmarks.executor_matrix import EXECUTORS, measure_pair

    rows = []
    with reserve_domain_id() as domain_id:
        for client in EXECUTORS:
            for server in EXECUTORS:
                rows.append(measure_pair(client, server, domain_id, goals, warmup, timeout_s=2.0))
    print(f"\nexecutors side by side, lean RunSkill server, {goals} goals per pair (medians, ms)")
    print(
        f"  {'client (executive)':>18s} {'server (sim)':>12s} {'total':>7s} {'p99':>7s} {'request':>8s} "
        f"{'accept':>7s} {'response':>9s} {'result':>7s} {'server cpu':>10s}"
    )
    for r in rows:
        head = f"  {r['client']:>18s} {r['server']:>12s}"
        if "error" in r:
            print(f"{head}  no round trip: {r['error']} (server cpu {r.get('server_cpu_percent', '?')}%)")
            continue
        print(
            f"{head} {r['total_ms']:7.2f} {r['total_p99_ms']:7.2f} {r['request_ms']:8.2f} {r['accept_ms']:7.2f} "
            f"{r['response_ms']:9.2f} {r['result_ms']:7.2f} {r['server_cpu_percent']:9d}%"
        )
    return rows


if __name__ == "__main__":
    main()

"""Where an action goal's round trip goes, per rclpy executor on the client and on the server side.

``dispatch.py`` runs this: for each (client executor, server executor) pair
it starts a RunSkill server process and a client process (the client stands
for the executive, the server for the sim's skill servers), sends
``goals`` goals one after another (each answered at once: no skill time),
and reads back per-goal timestamps. Both processes stamp with
``time.monotonic()`` (CLOCK_MONOTONIC: one clock for the whole machine), so
each goal splits into legs:

- ``request``: client send -> the server's goal callback runs
  (middleware + the server executor taking the request);
- ``accept``: goal callback -> execute callback starts (the server executor
  scheduling the execute task after sending the goal response);
- ``response``: goal callback -> the client's goal-response callback runs
  (middleware + the client executor taking the response, then its future's
  done-callback task);
- ``result``: the later of (execute done, result requested) -> the client's
  result callback runs (request, the server executor answering it, middleware,
  the client executor).

An executor that never answers within ``timeout_s`` gets a row saying so,
with the server process's CPU use while it was waited for. Each process is
run with ``python benchmarks/executor_matrix.py --child client|server ...``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

EXECUTORS = ("single", "multi2", "multi8", "events")
"""``single``: SingleThreadedExecutor; ``multiN``: MultiThreadedExecutor(num_threads=N); ``events``:
rclpy.experimental.EventsExecutor."""

ACTION = "matrix_bench"


def _executor(kind: str, context: Any) -> Any:
    from rclpy.executors import MultiThreadedExecutor, SingleThreadedExecutor

    if kind == "single":
        return SingleThreadedExecutor(context=context)
    if kind.startswith("multi"):
        return MultiThreadedExecutor(num_threads=int(kind[5:]), context=context)
    if kind == "events":
        from rclpy.experimental.events_executor import EventsExecutor

        return EventsExecutor(context=context)
    raise ValueError(f"unknown executor {kind!r}: expected one of {', '.join(EXECUTORS)}")


def _context(domain_id: int) -> Any:
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain_id, signal_handler_options=SignalHandlerOptions.NO)
    return context


def serve(kind: str, domain_id: int, namespace: str) -> None:
    """The server child: answers every goal at once, its stamps in the result's evidence_json."""
    from rclpy.action.server import ActionServer, GoalResponse
    from rclpy.callback_groups import ReentrantCallbackGroup
    from rclpy.node import Node

    from bt_executive_interfaces.action import RunSkill

    context = _context(domain_id)
    node = Node("matrix_server", namespace=namespace, context=context)
    received: dict[bytes, float] = {}

    def on_goal(goal: Any) -> Any:
        received[goal.skill_id.encode()] = time.monotonic()
        return GoalResponse.ACCEPT

    def execute(handle: Any) -> Any:
        started = time.monotonic()
        handle.succeed()
        stamps = {"goal": received.pop(handle.request.skill_id.encode(), 0.0), "exec": started}
        stamps["done"] = time.monotonic()
        return RunSkill.Result(success=True, evidence_json=json.dumps(stamps))

    # As the sim's servers: a reentrant group, a short result timeout.
    ActionServer(
        node,
        RunSkill,
        ACTION,
        execute_callback=execute,
        goal_callback=on_goal,
        callback_group=ReentrantCallbackGroup(),
        result_timeout=2,
    )
    executor = _executor(kind, context)
    executor.add_node(node)
    print("ready", flush=True)
    executor.spin()  # until the parent kills this process


def client(kind: str, domain_id: int, namespace: str, goals: int, warmup: int, timeout_s: float) -> None:
    """The client child: one goal at a time, woken by done-callbacks; prints one JSON line of stamps."""
    from rclpy.action.client import ActionClient
    from rclpy.node import Node

    from bt_executive_interfaces.action import RunSkill

    context = _context(domain_id)
    node = Node("matrix_client", namespace=namespace, context=context)
    action_client: ActionClient[Any, Any, Any] = ActionClient(node, RunSkill, ACTION)
    executor = _executor(kind, context)
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    deadline = time.monotonic() + 20.0
    while not action_client.server_is_ready():
        if time.monotonic() > deadline:
            print(json.dumps({"error": "no server discovered in 20 s"}), flush=True)
            os._exit(0)
        time.sleep(0.02)
    rows: list[dict[str, float]] = []
    for index in range(warmup + goals):
        done = threading.Event()
        stamps: dict[str, float] = {}

        def on_result(future: Any, stamps: dict[str, float] = stamps, done: threading.Event = done) -> None:
            stamps["result"] = time.monotonic()
            stamps.update({f"server_{k}": v for k, v in json.loads(future.result().result.evidence_json).items()})
            done.set()

        def on_goal(future: Any, stamps: dict[str, float] = stamps) -> None:
            stamps["accepted"] = time.monotonic()
            future.result().get_result_async().add_done_callback(on_result)

        stamps["send"] = time.monotonic()
        action_client.send_goal_async(RunSkill.Goal(skill_id=f"g{index}")).add_done_callback(on_goal)
        if not done.wait(timeout_s):
            print(json.dumps({"error": f"goal {index} not answered in {timeout_s:g} s", "answered": index}), flush=True)
            os._exit(0)  # a stuck executor thread would keep a clean exit waiting
        if index >= warmup:
            rows.append(stamps)
    print(json.dumps({"goals": rows}), flush=True)
    os._exit(0)


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_pair(
    client_kind: str, server_kind: str, domain_id: int, goals: int, warmup: int, timeout_s: float
) -> dict[str, Any]:
    """One row: the medians of every leg (ms) for this pair, or why there are none."""
    from bt_executive.skills.action_skill import with_short_lease

    namespace = f"/matrix_{os.getpid()}_{client_kind}_{server_kind}"
    env = with_short_lease()  # the Fast DDS profile the executive and the sim run with
    me = [sys.executable, os.path.abspath(__file__), "--domain", str(domain_id), "--namespace", namespace]
    server = subprocess.Popen(  # noqa: S603 (this file)
        [*me, "--child", "server", "--executor", server_kind], stdout=subprocess.PIPE, text=True, env=env
    )
    row: dict[str, Any] = {"client": client_kind, "server": server_kind}
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            return {**row, "error": "the server did not start"}
        cpu_before, wall_before = _cpu_s(server.pid), time.monotonic()
        command = [*me, "--child", "client", "--executor", client_kind]
        command += ["--goals", str(goals), "--warmup", str(warmup), "--timeout", str(timeout_s)]
        try:
            out = subprocess.run(  # noqa: S603 (this file)
                command, capture_output=True, text=True, timeout=60 + goals * timeout_s, check=False, env=env
            ).stdout
        except subprocess.TimeoutExpired:
            return {**row, "error": "the client process hung"}
        row["server_cpu_percent"] = round(
            100 * (_cpu_s(server.pid) - cpu_before) / max(1e-6, time.monotonic() - wall_before)
        )
    finally:
        server.kill()
        server.wait(timeout=10)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    report: dict[str, Any] = json.loads(lines[-1]) if lines else {"error": "the client printed nothing (crashed?)"}
    if "error" in report:
        return {**row, "error": report["error"]}
    legs: dict[str, list[float]] = {"total": [], "request": [], "accept": [], "response": [], "result": []}
    for g in report["goals"]:
        legs["total"].append(g["result"] - g["send"])
        legs["request"].append(g["server_goal"] - g["send"])
        legs["accept"].append(g["server_exec"] - g["server_goal"])
        legs["response"].append(g["accepted"] - g["server_goal"])
        legs["result"].append(g["result"] - max(g["server_done"], g["accepted"]))
    for leg, values in legs.items():
        row[f"{leg}_ms"] = round(statistics.median(values) * 1e3, 3)
    ordered = sorted(legs["total"])
    row["total_p99_ms"] = round(ordered[max(0, round(0.99 * len(ordered)) - 1)] * 1e3, 3)
    return row


def main() -> None:
    """Entry point of the child processes."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", choices=("client", "server"), required=True)
    parser.add_argument("--executor", required=True, help="single, multiN (N threads) or events")
    parser.add_argument("--domain", type=int, required=True)
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--goals", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=2.0)
    args = parser.parse_args()
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    if args.child == "server":
        serve(args.executor, args.domain, args.namespace)
    else:
        client(args.executor, args.domain, args.namespace, args.goals, args.warmup, args.timeout)


if __name__ == "__main__":
    main()

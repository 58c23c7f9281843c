"""The sim's skills over real ROS 2: action clients in this process, `bt-executive sim` in another."""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import rclpy
from rclpy.action.client import ActionClient
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from bt_executive.skills.action_skill import with_short_lease
from bt_executive.skills.world_state import WorldState
from bt_executive.skills.world_state_msg import from_msg

pytestmark = [pytest.mark.sim, pytest.mark.ros]

SKILLS = ("pick", "place_on", "home")


@dataclass
class SimClient:
    """Action clients for the sim's skills and a world-state client, spun by one executor thread."""

    node: Node
    clients: dict[str, ActionClient[Any, Any, Any]]
    world: Any
    events: list[str] = field(default_factory=list)

    def run(self, skill: str, args: dict[str, Any], cancel_after_s: float | None = None) -> Any:
        """Send one goal and wait for its result (optionally cancelling it mid-motion)."""
        from bt_executive_interfaces.action import RunSkill

        goal = RunSkill.Goal(skill_id=f"tabletop/{skill}", args_json=json.dumps(args))
        handle = _wait(self.clients[skill].send_goal_async(goal), 10.0)
        assert handle.accepted, f"{skill} goal rejected"
        result_future = handle.get_result_async()
        if cancel_after_s is not None:
            time.sleep(cancel_after_s)
            _wait(handle.cancel_goal_async(), 5.0)
        return _wait(result_future, 60.0)

    def world_state(self) -> WorldState:
        """Ask the sim for its world state."""
        from bt_executive_interfaces.srv import GetWorldState

        return from_msg(_wait(self.world.call_async(GetWorldState.Request()), 10.0).state)


def _wait(future: Any, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while not future.done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no answer within {timeout_s} s")
        time.sleep(0.005)
    return future.result()


@pytest.fixture(scope="module")
def sim_client(ros_domain_id: int) -> Iterator[SimClient]:
    """`bt-executive sim --seed 0` in a child process, and clients for it in this one."""
    yield from _sim_client(ros_domain_id, [])


@pytest.fixture
def crashing_sim_client(ros_domain_id: int) -> Iterator[SimClient]:
    """A sim whose pick server crashes mid-goal after three goals (config/faults/server_crash.yaml)."""
    faults = Path(__file__).resolve().parents[2] / "config" / "faults" / "server_crash.yaml"
    yield from _sim_client(ros_domain_id, ["--faults", str(faults)], namespace="crashing")


def _sim_client(domain: int, extra_args: list[str], namespace: str = "") -> Iterator[SimClient]:
    from bt_executive_interfaces.action import RunSkill
    from bt_executive_interfaces.srv import GetWorldState

    env = with_short_lease() | {"ROS_DOMAIN_ID": str(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
    exe = shutil.which("bt-executive", path=str(Path(sys.executable).parent))
    assert exe is not None
    command = [exe, "sim", "--seed", "0", "--namespace", namespace, *extra_args]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    ready = proc.stdout.readline()
    assert ready.startswith("sim ready"), ready
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    node = rclpy.create_node("sim_client", namespace=namespace or None, context=context)
    clients: dict[str, ActionClient[Any, Any, Any]] = {
        name: ActionClient(node, RunSkill, f"skills/{name}") for name in SKILLS
    }
    world: Any = node.create_client(GetWorldState, "get_world_state")
    executor = MultiThreadedExecutor(num_threads=2, context=context)
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    try:
        for client in clients.values():
            assert client.wait_for_server(timeout_sec=15.0)
        assert world.wait_for_service(timeout_sec=15.0)
        yield SimClient(node, clients, world)
    finally:
        executor.shutdown(timeout_sec=2.0)
        thread.join(timeout=5.0)
        for client in clients.values():
            client.destroy()
        node.destroy_node()
        context.try_shutdown()
        gc.collect()
        proc.terminate()
        proc.wait(timeout=15)


def test_pick_place_home_over_ros_puts_the_red_cube_on_the_plate(sim_client: SimClient) -> None:
    outcomes = [
        sim_client.run("pick", {"object": "red_cube"}).result.success,
        sim_client.run("place_on", {"target": "plate"}).result.success,
        sim_client.run("home", {}).result.success,
    ]
    red_cube = sim_client.world_state().object("red_cube")
    assert (outcomes, red_cube is not None and red_cube.supported_by) == ([True, True, True], "plate")


def test_unknown_object_comes_back_as_not_found_with_evidence(sim_client: SimClient) -> None:
    result = sim_client.run("pick", {"object": "purple_cube"}).result
    assert (result.success, result.failure_kind, "purple_cube" in result.evidence_json) == (False, "not_found", True)


def test_cancel_mid_motion_is_honoured_and_reported_as_preempted(sim_client: SimClient) -> None:
    from action_msgs.msg import GoalStatus

    answer = sim_client.run("pick", {"object": "blue_cube"}, cancel_after_s=0.02)
    assert (answer.status, answer.result.failure_kind) == (GoalStatus.STATUS_CANCELED, "preempted")


def test_server_crash_fault_takes_the_server_down_mid_goal_and_restarts_it(crashing_sim_client: SimClient) -> None:
    from bt_executive_interfaces.action import RunSkill

    for _ in range(3):  # the first three goals are answered (quick invalid_params failures)
        crashing_sim_client.run("pick", {})
    pick = crashing_sim_client.clients["pick"]
    goal = RunSkill.Goal(skill_id="tabletop/pick", args_json=json.dumps({"object": "red_cube"}))
    handle = _wait(pick.send_goal_async(goal), 10.0)
    result = handle.get_result_async()
    gone_after = _seconds_until(lambda: not pick.server_is_ready(), 10.0)
    back_after = _seconds_until(pick.server_is_ready, 15.0)
    assert (result.done(), gone_after < 10.0, back_after < 15.0) == (False, True, True)


def _seconds_until(condition: Any, limit_s: float) -> float:
    start = time.monotonic()
    while not condition() and time.monotonic() - start < limit_s:
        time.sleep(0.02)
    return time.monotonic() - start

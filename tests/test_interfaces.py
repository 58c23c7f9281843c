"""bt_executive_interfaces: the generated types, and one RunSkill action round trip over Fast DDS.

The package is built by ``bash bt_executive_interfaces/build_into_venv.sh .venv``. Without it these
tests skip, unless BT_EXECUTIVE_REQUIRE_INTERFACES is set (CI), where they fail instead.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import json
import os
import threading
from dataclasses import dataclass
from typing import Any

import pytest
import rclpy
from action_msgs.msg import GoalStatus
from rclpy.action.client import ActionClient
from rclpy.action.server import ActionServer, ServerGoalHandle
from rclpy.executors import MultiThreadedExecutor
from rclpy.task import Future

pytestmark = pytest.mark.ros

REQUIRE_ENV = "BT_EXECUTIVE_REQUIRE_INTERFACES"
BUILD_HINT = "run `bash bt_executive_interfaces/build_into_venv.sh .venv`"
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Interfaces:
    """The generated classes (untyped to mypy: rosidl generates no stubs)."""

    RunSkill: Any
    ExecuteTask: Any
    ObjectState: Any
    WorldState: Any
    GetWorldState: Any


def _installed() -> bool:
    """True when bt_executive_interfaces is an installed package.

    Run from the repository root, the source folder bt_executive_interfaces/ (no __init__.py) is
    importable as an empty namespace package: that does not count.
    """
    spec = importlib.util.find_spec("bt_executive_interfaces")
    return spec is not None and spec.origin is not None


@pytest.fixture(scope="module")
def interfaces() -> Interfaces:
    """The generated types; skips (or fails under BT_EXECUTIVE_REQUIRE_INTERFACES) if the package is absent."""
    if not _installed():
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"bt_executive_interfaces is not installed and {REQUIRE_ENV} is set; {BUILD_HINT}")
        pytest.skip(f"bt_executive_interfaces is not installed; {BUILD_HINT}")
    # Imported by name: mypy would resolve a static import to the source folder, not the generated code.
    action = importlib.import_module("bt_executive_interfaces.action")
    msg = importlib.import_module("bt_executive_interfaces.msg")
    srv = importlib.import_module("bt_executive_interfaces.srv")
    return Interfaces(action.RunSkill, action.ExecuteTask, msg.ObjectState, msg.WorldState, srv.GetWorldState)


@pytest.fixture(scope="module")
def domain_id(ros_domain_id: int) -> int:
    """The plugin's per-process ROS domain id (held for the whole session)."""
    return ros_domain_id


def _fields(msg_type: Any) -> dict[str, str]:
    fields: dict[str, str] = msg_type.get_fields_and_field_types()
    return fields


def test_run_skill_fields_and_defaults(interfaces: Interfaces) -> None:
    run_skill = interfaces.RunSkill
    assert _fields(run_skill.Goal) == {"skill_id": "string", "args_json": "string", "prompt": "string"}
    assert _fields(run_skill.Result) == {
        "success": "boolean",
        "failure_kind": "string",
        "reason": "string",
        "detail": "string",
        "evidence_json": "string",
        "duration_s": "double",
    }
    assert _fields(run_skill.Feedback) == {"phase": "string", "progress": "float", "detail_json": "string"}
    result = run_skill.Result()
    assert (result.success, result.failure_kind, result.reason, result.duration_s) == (False, "", "", 0.0)
    assert run_skill.Feedback(progress=0.5).progress == pytest.approx(0.5)


def test_execute_task_fields_and_defaults(interfaces: Interfaces) -> None:
    execute_task = interfaces.ExecuteTask
    assert _fields(execute_task.Goal) == {"task": "string", "planner_profile": "string"}
    assert _fields(execute_task.Result) == {
        "success": "boolean",
        "final_reason": "string",
        "attempts_json": "string",
        "detail": "string",
        "goal": "sequence<string>",
        "goal_held": "int8",
        "error_code": "uint16",
    }
    assert _fields(execute_task.Feedback) == {
        "plan_index": "int32",
        "step": "int32",
        "skill": "string",
        "tree_status": "string",
    }
    feedback = execute_task.Feedback()
    assert (feedback.plan_index, feedback.step, feedback.skill, feedback.tree_status) == (0, 0, "", "")


def test_world_state_fields_and_defaults(interfaces: Interfaces) -> None:
    assert _fields(interfaces.ObjectState) == {
        "id": "string",
        "category": "string",
        "colour": "string",
        "pose": "geometry_msgs/Pose",
        "size": "geometry_msgs/Vector3",
        "reachable": "boolean",
        "supported_by": "string",
        "inside": "string",
        "affordances": "sequence<string>",
    }
    assert _fields(interfaces.WorldState) == {
        "stamp": "builtin_interfaces/Time",
        "objects": "sequence<bt_executive_interfaces/ObjectState>",
        "gripper_opening": "double",
        "holding": "string",
        "joint_positions": "sequence<double>",
        "at_home": "boolean",
        "drawer_ids": "sequence<string>",
        "drawer_open_fractions": "sequence<double>",
        "region_ids": "sequence<string>",
        "region_min": "sequence<geometry_msgs/Point>",
        "region_max": "sequence<geometry_msgs/Point>",
    }
    # Defaults match the pydantic ObjectState's: category "object", reachable, identity orientation.
    obj = interfaces.ObjectState(id="red_cube")
    assert (obj.category, obj.reachable, obj.supported_by, obj.inside) == ("object", True, "", "")
    assert (obj.pose.orientation.w, obj.pose.orientation.x) == (1.0, 0.0)
    state = interfaces.WorldState(objects=[obj], drawer_ids=["top"], drawer_open_fractions=[0.5])
    assert [o.id for o in state.objects] == ["red_cube"]
    assert list(state.drawer_open_fractions) == [0.5]
    response = interfaces.GetWorldState.Response(state=state)
    assert response.state == state
    assert _fields(interfaces.GetWorldState.Request) == {}


def _wait(future: Future[Any], what: str) -> Any:
    """The future's result, or a test failure after TIMEOUT_S."""
    done = threading.Event()
    future.add_done_callback(lambda _future: done.set())
    if not done.wait(TIMEOUT_S):
        pytest.fail(f"timed out after {TIMEOUT_S} s waiting for {what}")
    return future.result()


def test_run_skill_action_round_trip(interfaces: Interfaces, domain_id: int, monkeypatch: pytest.MonkeyPatch) -> None:
    run_skill = interfaces.RunSkill
    monkeypatch.setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=domain_id)
    server_node = rclpy.create_node("run_skill_test_server", context=ctx)
    client_node = rclpy.create_node("run_skill_test_client", context=ctx)
    feedback_seen = threading.Event()
    feedback: list[Any] = []

    def execute(goal_handle: ServerGoalHandle[Any, Any, Any]) -> Any:
        request = goal_handle.request
        goal_handle.publish_feedback(
            run_skill.Feedback(phase="acting", progress=0.5, detail_json=json.dumps({"skill": request.skill_id}))
        )
        goal_handle.succeed()
        return run_skill.Result(
            success=True,
            reason=f"ran {request.skill_id}",
            detail=request.prompt,
            evidence_json=request.args_json,
            duration_s=0.25,
        )

    def on_feedback(message: Any) -> None:
        feedback.append(message.feedback)
        feedback_seen.set()

    server: ActionServer[Any, Any, Any] = ActionServer(
        server_node, run_skill, "test/run_skill", execute_callback=execute, result_timeout=5
    )
    client: ActionClient[Any, Any, Any] = ActionClient(client_node, run_skill, "test/run_skill")
    executor = MultiThreadedExecutor(num_threads=4, context=ctx)
    executor.add_node(server_node)
    executor.add_node(client_node)
    spinner = threading.Thread(target=executor.spin, name="run_skill_test_executor", daemon=True)
    spinner.start()  # after the server and client exist (rclpy#1589)
    try:
        assert client.wait_for_server(timeout_sec=TIMEOUT_S), "action server not discovered"
        goal = run_skill.Goal(skill_id="pick", args_json='{"object": "red_cube"}', prompt="pick the red cube")
        goal_handle = _wait(client.send_goal_async(goal, feedback_callback=on_feedback), "the goal response")
        assert goal_handle.accepted
        response = _wait(goal_handle.get_result_async(), "the result")
        assert feedback_seen.wait(TIMEOUT_S), "no feedback arrived"
    finally:
        executor.shutdown(timeout_sec=TIMEOUT_S)
        spinner.join(timeout=TIMEOUT_S)
        client.destroy()
        server.destroy()
        client_node.destroy_node()
        server_node.destroy_node()
        ctx.try_shutdown()
        ctx.destroy()
        gc.collect()
    assert not spinner.is_alive()
    assert response.status == GoalStatus.STATUS_SUCCEEDED
    result = response.result
    assert (result.success, result.reason, result.detail) == (True, "ran pick", "pick the red cube")
    assert json.loads(result.evidence_json) == {"object": "red_cube"}
    assert result.duration_s == pytest.approx(0.25)
    assert [(f.phase, json.loads(f.detail_json)) for f in feedback] == [("acting", {"skill": "pick"})]
    assert feedback[0].progress == pytest.approx(0.5)

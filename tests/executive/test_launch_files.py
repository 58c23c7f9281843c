"""The robot-side launch files: the ROS 2 launch file's shape, and the YAML launch file's validation."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bt_executive.cli.launch_command import LaunchFile
from bt_executive.runtime.paths import config_dir
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.loader import load_model

ROOT = Path(__file__).resolve().parents[2]


def test_the_ros2_launch_file_runs_serve_with_a_params_file() -> None:
    # `launch` and `launch_ros` are not on PyPI: read the file's syntax tree instead of importing it.
    tree = ast.parse((ROOT / "launch" / "bt_executive.launch.py").read_text())
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert {"bt_executive", "bt-executive", "serve", "--params", "executive.yaml"} <= strings


def test_the_ros2_launch_file_s_defaults_are_the_node_s() -> None:
    from bt_executive.executive.params import ExecutiveParams, load_params

    tree = ast.parse((ROOT / "launch" / "bt_executive.launch.py").read_text())
    defaults: dict[str, object] = {}
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "DeclareLaunchArgument":
            name = call.args[0]
            default = next((k.value for k in call.keywords if k.arg == "default_value"), None)
            if isinstance(name, ast.Constant) and isinstance(default, ast.Constant):
                defaults[str(name.value)] = default.value
    # An empty planner is not passed on: serve keeps the parameters file's, the node's own default.
    assert (defaults["planner"], defaults["namespace"], load_params().planner) == ("", "", ExecutiveParams().planner)


def test_the_shipped_robot_launch_starts_the_sim_the_policy_server_then_the_executive() -> None:
    spec = load_model(config_dir() / "robot.yaml", LaunchFile)
    assert [p.args[0] for p in spec.processes] == ["sim", "policy-server", "serve"]


def test_the_shipped_robot_launch_points_the_executive_at_its_policy_server() -> None:
    spec = load_model(config_dir() / "robot.yaml", LaunchFile)
    policy, serve = spec.processes[1].args, spec.processes[2].args
    port = policy[policy.index("--port") + 1]
    assert serve[serve.index("--vla-endpoint") + 1] == f"ws://127.0.0.1:{port}"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("processes: [{name: x, args: [rm, -rf, /]}]\n", "processes[0].args"),
        ("processes: [{name: x, args: [sim], ready: '(('}]\n", "processes[0].ready"),
        ("processes: []\n", "processes"),
        ("namespace: 'bad ns'\nprocesses: [{name: x, args: [sim]}]\n", "namespace"),
    ],
)
def test_a_bad_launch_file_is_refused_naming_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "robot.yaml"
    path.write_text(text)
    with pytest.raises(ManifestError) as caught:
        load_model(path, LaunchFile)
    assert caught.value.problems[0].field == field

"""The VLA skill over ROS 2, across processes: ``bt-executive sim`` in a child process, its topics only.

The sim publishes camera images and joint states and executes
``JointTrajectory`` commands (recording each one); the test process drives
it with a ``VlaSkill`` over a ``RosRobot``, as the executive does. Faults
come from outside the skill: a camera that goes silent (a fault file), a
policy server that is killed, a preemption by the tree.
"""

from __future__ import annotations

import base64
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import py_trees
import pytest
import yaml

from bt_executive.cli.process_group import ProcessGroup
from bt_executive.cli.task_client import TaskClient
from bt_executive.executive.node import ExecutiveNode
from bt_executive.executive.params import ExecutiveParams
from bt_executive.executive.planner_factory import make_planner
from bt_executive.executive.world_cache import WorldStateCache
from bt_executive.runtime.paths import config_dir
from bt_executive.sim.backend import SimBackend
from bt_executive.sim.oracle_policy import OraclePolicy
from bt_executive.skills import SkillCall, SkillManifest
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.ros_robot import RosRobot
from bt_executive.skills.sensor_msgs_conversion import image_array, stamp_to_seconds
from bt_executive.skills.vla_skill import VlaOptions, VlaSkill
from bt_executive.testing import RosHarness
from bt_executive.testing.scripted_llm import ScriptedLLMServer, ScriptedReply
from tests.vla.conftest import SEED, PolicyServerProcess, with_endpoint

pytestmark = [pytest.mark.ros, pytest.mark.sim, pytest.mark.slow]

Status = py_trees.common.Status


@contextmanager
def sim_process(domain_id: int, namespace: str, tmp_path: Path, *extra: str) -> Iterator[Path]:
    """``bt-executive sim`` (lockstep, layout ``SEED``) on this test's domain and namespace; its record file."""
    record = tmp_path / "commands.jsonl"
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain_id)}
    with ProcessGroup(echo=None, env=env) as group:
        sim = group.start(
            "sim",
            ["sim", "--namespace", namespace, "--seed", str(SEED), "--record", str(record), *extra],
            ready=r"^sim ready",
        )
        group.wait_ready(sim, 120)
        yield record


def records(path: Path) -> list[dict[str, Any]]:
    """The sim's record of the joint trajectories it received."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def records_reaching(path: Path, count: int, timeout_s: float = 15.0) -> list[dict[str, Any]]:
    """The record once it holds ``count`` entries (a loaded sim may still be taking what was sent), or at timeout."""
    deadline = time.monotonic() + timeout_s
    while len(found := records(path)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


class Driver:
    """A VlaSkill over a RosRobot on a node of the test's harness, ticked like a tree would."""

    def __init__(self, harness: RosHarness, manifest: SkillManifest, call: SkillCall, policy: Any = None) -> None:
        assert manifest.vla is not None
        node = harness.node("vla_driver")
        self.world = WorldStateCache(node, "world_state")
        self.robot = RosRobot(node, manifest.vla.robot, self.world.latest)
        self.leaf = VlaSkill(manifest, call, self.robot, policy, VlaOptions(realtime=True))
        harness.start()
        harness.wait_until(self.sensing, 30.0, "the sim's world state, joint state and camera frames")
        # The sim's command subscription too: a command sent before it matched reaches no one.
        harness.wait_until(lambda: self.robot.command_listeners() > 0, 30.0, "the sim's command subscription")

    def sensing(self) -> bool:
        """Whether every stream the skill needs has delivered at least once."""
        return self.world.latest() is not None and all(
            self.robot.received.get(name, 0) > 0 for name in ("joint_state", "front", "wrist")
        )

    def steps(self) -> int:
        """Actions the leaf has handed to the robot in its current run."""
        stats = self.leaf.last_stats
        return stats.steps if stats is not None else 0

    def tick_until(self, done: Any, timeout_s: float = 60.0) -> None:
        """Tick every 20 ms until ``done()`` or the leaf stops running."""
        deadline = time.monotonic() + timeout_s
        self.leaf.tick_once()
        while self.leaf.status is Status.RUNNING and not done() and time.monotonic() < deadline:
            time.sleep(0.02)
            self.leaf.tick_once()


def test_the_camera_frame_on_the_topic_is_the_renderers_frame(
    ros_harness: RosHarness, ros_domain_id: int, tmp_path: Path
) -> None:
    from sensor_msgs.msg import Image

    frames: list[Any] = []
    with sim_process(ros_domain_id, ros_harness.namespace, tmp_path):
        node = ros_harness.node("camera_check")
        node.create_subscription(Image, "camera/front/image_raw", frames.append, 2)
        ros_harness.start()
        ros_harness.wait_until(lambda: bool(frames), 30.0, "a front camera frame")
    message = frames[0]
    backend = SimBackend.from_files(seed=SEED)  # the same world at the same instant, rendered here
    try:
        expected = backend.render("front")
    finally:
        backend.close()
    received = image_array(message)
    assert (message.encoding, message.step, stamp_to_seconds(message.header.stamp)) == ("rgb8", 224 * 3, 0.0)
    assert not np.array_equal(expected, expected[::-1])  # the row order is visible in this picture
    assert np.array_equal(received, expected)


def test_a_silent_camera_fails_the_skill_sensor_stale_within_the_bound(
    ros_harness: RosHarness,
    ros_domain_id: int,
    tmp_path: Path,
    vla_manifest: SkillManifest,
    blue_in_bowl: SkillCall,
) -> None:
    faults = config_dir() / "faults" / "camera_dropout.yaml"
    with sim_process(ros_domain_id, ros_harness.namespace, tmp_path, "--faults", str(faults)):
        driver = Driver(ros_harness, vla_manifest, blue_in_bowl, OraclePolicy())
        driver.tick_until(lambda: False)
    assert vla_manifest.vla is not None
    bound = vla_manifest.vla.robot
    result = driver.leaf.result
    assert result is not None
    stale = result.evidence.get("stale")
    front_age = stale.get("front") if isinstance(stale, dict) else None
    # The skill's own clock at the moment it gave up (not the test's polling): the frame went stale after
    # max_age_s, noticed at the next action (one control period), then stale_timeout_s of waiting; 0.5 s of
    # scheduling slack for a loaded 2-core CI machine.
    period_s = 1.0 / vla_manifest.vla.control_rate_hz
    within = bound.max_age_s + period_s + bound.stale_timeout_s + 0.5
    assert (result.failure_kind, isinstance(front_age, float) and front_age <= within) == (
        FailureKind.SENSOR_STALE,
        True,
    ), result.evidence


def test_a_killed_policy_server_fails_the_skill_policy_error(
    ros_harness: RosHarness,
    ros_domain_id: int,
    tmp_path: Path,
    vla_manifest: SkillManifest,
    blue_in_bowl: SkillCall,
) -> None:
    server = PolicyServerProcess()
    try:
        with sim_process(ros_domain_id, ros_harness.namespace, tmp_path) as record:
            driver = Driver(ros_harness, with_endpoint(vla_manifest, server.url), blue_in_bowl)
            driver.tick_until(lambda: driver.steps() >= 10)
            server.process.send_signal(signal.SIGKILL)
            driver.tick_until(lambda: False)
            received = records_reaching(record, 10)
    finally:
        server.stop()
    result = driver.leaf.result
    assert result is not None
    assert (driver.leaf.status, result.failure_kind, len(received) >= 10) == (
        Status.FAILURE,
        FailureKind.POLICY_ERROR,
        True,
    ), result


def test_a_preempted_skill_leaves_the_arm_holding_by_the_sims_record(
    ros_harness: RosHarness,
    ros_domain_id: int,
    tmp_path: Path,
    vla_manifest: SkillManifest,
    blue_in_bowl: SkillCall,
) -> None:
    with sim_process(ros_domain_id, ros_harness.namespace, tmp_path) as record:
        driver = Driver(ros_harness, vla_manifest, blue_in_bowl, OraclePolicy())
        driver.tick_until(lambda: driver.steps() >= 15)
        driver.leaf.stop(Status.INVALID)  # what a halting tree does
        driver.leaf.join()
        time.sleep(1.0)
        settled = records(record)
        time.sleep(0.5)
        later = records(record)
    last = settled[-1]
    moving = [r for r in settled if not r["hold"]]
    result = driver.leaf.result
    assert result is not None
    assert (result.failure_kind, last["accepted"], last["hold"], len(moving) >= 10, len(later)) == (
        FailureKind.PREEMPTED,
        True,
        True,
        True,
        len(settled),
    ), last


def test_the_vla_demo_runs_the_skill_through_the_executive_over_topics_and_a_websocket(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    done = subprocess.run(
        [sys.executable, "-m", "bt_executive.cli.main", "demo", "--vla", "--run-dir", str(runs)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    output = done.stdout + done.stderr
    checks = (
        done.returncode,
        "final_reason  done" in output,
        "goal check    in(blue_cube, bowl): holds" in output,
        "sim check     in(blue_cube, bowl): holds" in output,
        "policy queries over websocket" in output,
        "0 joint trajectories received" not in output,
    )
    assert checks == (0, True, True, True, True, True), output


def _png_pixels(data_url: str) -> np.ndarray:
    """The RGB pixels of a ``camera_image`` PNG data URL, read by Pillow (which also writes them, any row filter)."""
    from PIL import Image

    with Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))) as image:
        return np.asarray(image.convert("RGB"))


def test_a_vision_profile_planning_in_the_node_sees_the_front_camera_frame_from_the_topic(
    ros_harness: RosHarness,
    ros_domain_id: int,
    tmp_path: Path,
    scripted_llm: ScriptedLLMServer,
    clean_blackboard: None,
) -> None:
    llm = tmp_path / "llm.yaml"
    vlm = {"description": "a vision-language model", "model": "openai/vlm", "api_base": scripted_llm.base_url}
    profiles: dict[str, dict[str, object]] = {
        "stub": {"planner": "stub", "description": "no model"},
        "vlm": {**vlm, "vision": True},
    }
    llm.write_text(yaml.safe_dump({"default": "stub", "profiles": profiles}))
    scripted_llm.queue(ScriptedReply.tool_calls(("tabletop__home", {})))
    params = ExecutiveParams(world_state_wait_s=10.0, run_dir=str(tmp_path / "runs"), llm_config=str(llm))
    robot = RobotCapabilities.from_yaml(params.capabilities_path())
    nodes: list[ExecutiveNode] = []
    with sim_process(ros_domain_id, ros_harness.namespace, tmp_path):
        # serve's wiring: the planner sees the node's own front-camera cache
        executive = ExecutiveNode(
            ros_harness.context,
            params,
            lambda profile, registry: make_planner(profile, registry, llm, robot, nodes[0].front_camera.frame),
            namespace=ros_harness.namespace,
        )
        nodes.append(executive)
        ros_harness.adopt(executive.node)
        client = TaskClient(ros_harness.node("client"), ros_harness.namespace)
        ros_harness.start()
        assert client.wait_for_server(15.0)
        client.run("go home", "vlm", timeout_s=60.0)
        executive.shutdown()
    backend = SimBackend.from_files(seed=SEED)  # the sim has not moved: the frame it showed is this one
    try:
        expected = backend.render("front")
    finally:
        backend.close()
    urls = scripted_llm.requests[0].image_urls()
    assert (len(urls), executive.front_camera.received > 0) == (1, True)
    assert np.array_equal(_png_pixels(urls[0]), expected)

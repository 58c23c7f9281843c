"""The ``vla.robot`` block: how a VLA skill reaches the robot's topics, validated like every other field."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.runtime.paths import config_dir
from bt_executive.skills import SkillManifest, SkillRegistry
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.loader import load_model
from bt_executive.skills.sensor_msgs_conversion import BadImage, image_array, image_message
from bt_executive.skills.world_state import WorldState

SHIPPED = config_dir() / "skills" / "vla_manipulate.yaml"


def _with_robot_block(tmp_path: Path, **robot: object) -> Path:
    data = yaml.safe_load(SHIPPED.read_text())
    data["vla"]["robot"] = {**data["vla"]["robot"], **robot}
    path = tmp_path / "vla_skill.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_the_shipped_vla_manifest_names_the_sims_topics_and_a_seven_value_action() -> None:
    manifest = load_model(SHIPPED, SkillManifest)
    assert manifest.vla is not None
    robot = manifest.vla.robot
    assert (robot.cameras["front"], robot.state_topic, robot.command_topic, robot.action_dim) == (
        "camera/front/image_raw",
        "joint_states",
        "arm_controller/joint_trajectory",
        7,
    )


@pytest.mark.parametrize(
    ("robot", "field", "words"),
    [
        ({"action_space": "joint_velocities"}, "vla.robot.action_space", "absolute_joints"),
        ({"gripper": {"joint": "gripper", "range": [0.09, 0.0]}}, "vla.robot.gripper", "below upper bound"),
        ({"cameras": {}}, "vla.robot.cameras", "at least 1"),
        ({"command_topic": "arm controller/commands"}, "vla.robot.command_topic", "pattern"),
        ({"max_age_s": 0}, "vla.robot.max_age_s", "greater than 0"),
        ({"arm_joints": ["j1", "j1"]}, "vla.robot.arm_joints", "duplicate joint"),
        ({"gripper": {"joint": "j1_yaw"}}, "vla.robot", "also in arm_joints"),
        ({"camera_rate": 30}, "vla.robot.camera_rate", "unknown field"),
    ],
)
def test_a_bad_robot_block_is_refused_naming_the_field(
    tmp_path: Path, robot: dict[str, object], field: str, words: str
) -> None:
    path = _with_robot_block(tmp_path, **robot)
    with pytest.raises(ManifestError) as caught:
        load_model(path, SkillManifest)
    problem = caught.value.problems[0]
    assert (problem.field, words in problem.reason) == (field, True), str(caught.value)


def test_an_image_message_round_trips_with_its_top_row_first() -> None:
    frame = np.zeros((4, 5, 3), np.uint8)
    frame[0, :, 0] = 255  # a red top row
    message = image_message(frame, 1.25, "front_camera")
    assert (message.encoding, message.step, np.array_equal(image_array(message), frame)) == ("rgb8", 15, True)


def test_an_image_in_an_unread_encoding_is_refused_naming_it() -> None:
    message = image_message(np.zeros((2, 2, 3), np.uint8), 0.0, "cam")
    message.encoding = "mono16"
    with pytest.raises(BadImage, match="mono16"):
        image_array(message)


def test_on_the_vla_profile_the_stub_planner_routes_put_to_the_vla_skill(skill_registry: SkillRegistry) -> None:
    robot = RobotCapabilities.from_yaml(config_dir() / "robots" / "tabletop_vla_arm.yaml")
    registry, _ = skill_registry.available_for(robot)
    world = WorldState.model_validate(
        {
            "objects": [
                {"id": "blue_cube", "category": "cube", "colour": "blue", "position": [0.3, -0.1, 0.02]},
                {"id": "bowl", "category": "bowl", "colour": "white", "position": [0.25, -0.25, 0.03]},
            ]
        }
    )
    plan = GrammarPlanner(registry).plan("put the blue cube in the bowl", world)
    assert [(c.skill, c.args) for c in plan.steps] == [
        ("tabletop/vla_manipulate", {"object": "blue_cube", "target": "bowl"})
    ]

"""How a VLA skill talks to the robot over ROS 2: sensor topics in, a joint-command topic out.

The ``robot:`` block of a manifest's ``vla:`` block::

    vla:
      control_rate_hz: 10
      robot:
        cameras: {front: camera/front/image_raw, wrist: camera/wrist/image_raw}   # sensor_msgs/Image
        state_topic: joint_states                                                 # sensor_msgs/JointState
        command_topic: arm_controller/joint_trajectory                            # trajectory_msgs/JointTrajectory
        arm_joints: [j1_yaw, j2_shoulder, j3_elbow, j4_forearm_roll, j5_wrist_pitch, j6_wrist_roll]
        gripper: {joint: gripper, range: [0.0, 0.09]}
        action_space: absolute_joints      # or delta_joints
        max_age_s: 0.3                     # a frame or state older than this is stale
        stale_timeout_s: 1.0               # how long to wait for a fresh one before sensor_stale

An action row is the arm joints in ``arm_joints`` order, then the gripper
(when there is one): absolute targets, or deltas added to the latest joint
state. The command is a ``JointTrajectory`` with one point reached after one
control period, the message ros2_control's joint trajectory controller takes
on ``<controller>/joint_trajectory``; the gripper joint rides in the same
message (a position-controlled gripper joint in the same controller).
Topic names are relative, so they follow the executive's namespace.
"""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

_TOPIC = r"^~?/?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$"
_JOINT = r"^[A-Za-z_][A-Za-z0-9_\-./]{0,127}$"
_CAMERA = r"^[a-z][a-z0-9_]{0,31}$"

TopicName = Annotated[str, Field(pattern=_TOPIC)]
JointName = Annotated[str, Field(pattern=_JOINT)]

SIM_ARM_JOINTS: tuple[str, ...] = (
    "j1_yaw",
    "j2_shoulder",
    "j3_elbow",
    "j4_forearm_roll",
    "j5_wrist_pitch",
    "j6_wrist_roll",
)
"""The tabletop sim's arm joints (the defaults, so a manifest for the sim may leave them out)."""


def _unique_joints(names: tuple[str, ...]) -> tuple[str, ...]:
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate joint names: {', '.join(duplicates)}")
    return names


class GripperBinding(BaseModel):
    """The gripper as one position-controlled joint: its name and the range a command is clipped to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    joint: JointName = Field(default="gripper", description="joint name in the state and command messages")
    range: tuple[float, float] = Field(default=(0.0, 0.09), description="lowest and highest command (e.g. gap, m)")

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        low, high = self.range
        if not low < high:
            raise ValueError(f"range: lower bound {low} must be below upper bound {high}")
        return self


class VlaRobotBinding(BaseModel):
    """The ROS 2 interface of the robot a VLA skill drives: topics, joints, action space, staleness bound."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cameras: dict[Annotated[str, Field(pattern=_CAMERA)], TopicName] = Field(
        default_factory=lambda: {"front": "camera/front/image_raw", "wrist": "camera/wrist/image_raw"},
        min_length=1,
        description="observation camera name -> sensor_msgs/Image topic (rgb8 or bgr8)",
    )
    state_topic: TopicName = Field(default="joint_states", description="sensor_msgs/JointState topic")
    command_topic: TopicName = Field(
        default="arm_controller/joint_trajectory", description="trajectory_msgs/JointTrajectory topic"
    )
    arm_joints: Annotated[tuple[JointName, ...], AfterValidator(_unique_joints)] = Field(
        default=SIM_ARM_JOINTS, min_length=1, max_length=32, description="action-row order of the arm joints"
    )
    gripper: GripperBinding | None = Field(
        default_factory=GripperBinding, description="the gripper joint, last in an action row; null: none"
    )
    action_space: Literal["absolute_joints", "delta_joints"] = Field(
        default="absolute_joints", description="whether an action row holds joint targets or changes to add"
    )
    max_age_s: float = Field(default=0.3, gt=0.0, le=10.0, description="oldest frame or state the loop may use")
    stale_timeout_s: float = Field(
        default=1.0, gt=0.0, le=60.0, description="wait this long for fresh sensors, then fail sensor_stale"
    )
    privileged_world_state: bool = Field(
        default=False,
        description="attach the world-state topic's ground truth to observations (simulated oracles only)",
    )

    @model_validator(mode="after")
    def _gripper_not_an_arm_joint(self) -> Self:
        if self.gripper is not None and self.gripper.joint in self.arm_joints:
            raise ValueError(f"gripper.joint {self.gripper.joint!r} is also in arm_joints")
        return self

    @property
    def action_dim(self) -> int:
        """Length of one action row: the arm joints, then the gripper if there is one."""
        return len(self.arm_joints) + (1 if self.gripper is not None else 0)

    @property
    def joints(self) -> tuple[str, ...]:
        """Every commanded joint, in action-row order."""
        return (*self.arm_joints, *((self.gripper.joint,) if self.gripper is not None else ()))

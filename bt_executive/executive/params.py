"""The executive node's parameters: one pydantic model, loadable from a ROS 2 parameters file.

``config/executive.yaml`` uses the ROS 2 layout (``/**: ros__parameters:``)
so the same file works with ``--ros-args --params-file``, the launch file and
``bt-executive serve --params``. Values are validated here, so a typo in a
parameter name or a negative tick rate is refused at start with the file and
field named, not discovered mid-task.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.runtime.paths import config_dir
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.loader import read_yaml_mapping, validate_model


class ExecutiveParams(BaseModel):
    """Everything the node is configured with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tick_rate_hz: float = Field(default=20.0, gt=0.0, le=1000.0)
    planner: str = Field(default="auto", min_length=1)
    llm_config: str = ""
    skill_paths: tuple[str, ...] = ()
    capabilities: str = ""
    recovery: str = ""
    max_replans: int = Field(default=2, ge=-1, le=20)
    planner_timeout_s: float = Field(
        default=120.0, ge=0.0, description="a planner call with no plan by then ends the task planner_error; 0: none"
    )
    task_timeout_s: float = Field(
        default=900.0, ge=0.0, description="a task still running by then ends aborted:timeout; 0: no bound"
    )
    run_dir: str = ""
    world_state_topic: str = Field(default="world_state", min_length=1)
    world_state_wait_s: float = Field(default=5.0, ge=0.0, le=120.0)
    world_state_max_objects: int = Field(
        default=1000, ge=1, le=100_000, description="a world-state message with more objects is dropped"
    )
    vla_endpoint: str = Field(
        default="",
        pattern=r"^(wss?://[A-Za-z0-9.\-\[\]:]+(:[0-9]{1,5})?(/[A-Za-z0-9_\-./]*)?)?$",
        description="policy server (openpi websocket) for every VLA skill; empty: each manifest's own",
    )
    front_camera_topic: str = Field(default="camera/front/image_raw", min_length=1)
    camera_topic: str = Field(
        default="camera/{camera}/image_raw",
        pattern=r"\{camera\}",
        description="image topic of the robot profile's other cameras ({camera}: its name)",
    )
    record_frames: bool = Field(default=True, description="keep the cameras' frames at a task's moments in its run")
    frames_max_bytes: int = Field(
        default=4_000_000, ge=50_000, le=1_000_000_000, description="bound on one run's frames (JPEG bytes)"
    )
    frame_width: int = Field(default=320, ge=16, le=4096, description="frames wider than this are scaled down")
    default_snapshot_stream: bool = True
    default_snapshot_period: float = Field(default=2.0, ge=0.0, description="inf: publish only on change")
    default_snapshot_blackboard_data: bool = True
    groot2_port: int = Field(default=0, ge=0, le=65535, description="Groot2 feed port (and port + 1); 0: off")
    markers_frame_id: str = Field(
        default="base_link", min_length=1, description="frame of ~/markers (the world state's: the robot base)"
    )

    def with_overrides(self, **overrides: Any) -> ExecutiveParams:
        """A copy with the non-None overrides applied (command-line flags over the file)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        return ExecutiveParams.model_validate({**self.model_dump(), **given})

    def capabilities_path(self) -> Path:
        """The robot profile to filter skills by."""
        return Path(self.capabilities) if self.capabilities else config_dir() / "robots" / "tabletop_arm.yaml"

    def extra_skill_dirs(self) -> list[Path]:
        """Extra manifest directories (empty entries, which ROS needs to type an empty list, dropped)."""
        return [Path(p) for p in self.skill_paths if p]


def default_params_path() -> Path:
    """The shipped ``config/executive.yaml``."""
    return config_dir() / "executive.yaml"


def load_params(path: Path | None = None, node_name: str = "bt_executive") -> ExecutiveParams:
    """Read the node's section (``/**``, ``bt_executive`` or ``/<ns>/bt_executive``) of a parameters file."""
    source = path or default_params_path()
    data = read_yaml_mapping(source)
    for key, section in data.items():
        if key in ("/**", node_name) or key.endswith(f"/{node_name}"):
            if not isinstance(section, dict) or not isinstance(section.get("ros__parameters"), dict):
                raise ManifestError.single(str(source), f"{key}.ros__parameters", "expected a mapping of parameters")
            return validate_model(section["ros__parameters"], ExecutiveParams, str(source))
    raise ManifestError.single(
        str(source), "(root)", f"no section for node {node_name!r} (or /**) with ros__parameters"
    )

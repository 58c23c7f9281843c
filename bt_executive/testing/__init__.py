"""bt_executive.testing: a pytest plugin for testing skills and trees.

Installed with the package and registered through the ``pytest11`` entry
point, so any project that depends on bt_executive gets these fixtures in
its own tests without importing anything:

- ``skill_registry``: the shipped tabletop skills, loaded like the executive loads them.
- ``tabletop_robot``: the embedded robot's capability profile.
- ``manifest_data``: a factory for valid manifest mappings, to change one field and
  check that it is refused (or accepted).

ROS processes started from tests stay on this machine
(``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``) unless the caller set otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from bt_executive.resources import config_dir, default_skill_dirs
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.parameters import merge_goal
from bt_executive.skills.registry import SkillRegistry

ManifestFactory = Callable[..., dict[str, Any]]


def pytest_configure(config: pytest.Config) -> None:
    """Keep DDS discovery on loopback for every ROS node a test starts."""
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")


@pytest.fixture(scope="session")
def skill_registry() -> SkillRegistry:
    """The skills shipped in config/skills (installed bundles excluded, for repeatability)."""
    return SkillRegistry.discover(default_skill_dirs(), use_entry_points=False)


@pytest.fixture(scope="session")
def tabletop_robot() -> RobotCapabilities:
    """The embedded MuJoCo arm's capability profile."""
    return RobotCapabilities.from_yaml(config_dir() / "robots" / "tabletop_arm.yaml")


def valid_manifest_data(**overrides: Any) -> dict[str, Any]:
    """A minimal valid ros_action manifest mapping, with ``overrides`` merged over it."""
    base: dict[str, Any] = {
        "id": "test/pick",
        "version": "1.0.0",
        "description": "Pick up an object for a test.",
        "kind": "ros_action",
        "actions": ["PICK"],
        "parameters": {
            "type": "object",
            "properties": {"object": {"type": "string"}},
            "required": ["object"],
        },
        "ros": {
            "action_type": "bt_executive_interfaces/action/RunSkill",
            "action_name": "skills/pick",
        },
    }
    return merge_goal(base, overrides)


@pytest.fixture
def manifest_data() -> ManifestFactory:
    """Factory: ``manifest_data(description="...")`` gives a manifest mapping with that change."""
    return valid_manifest_data

"""py_trees_ros_interfaces as built into the venv: the published definitions, field for field, and their type hashes.

ROS 2 Kilted matches types by their RIHS01 hash in discovery, so a watcher
built against the published package sees our topics only if every hash below
is the published one. The fields are transcribed from the published .msg/.srv
files; the hashes are what rosidl computes from them (the generated
``share/py_trees_ros_interfaces/*/*.json``, and what a publisher announces).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bt_executive.testing.ros_harness import RosHarness

interfaces = pytest.importorskip("py_trees_ros_interfaces", reason="built by `make interfaces`")
pytest.importorskip("py_trees_ros_interfaces.srv", reason="built by `make interfaces`")

from py_trees_ros_interfaces.msg import (  # noqa: E402
    ActivityItem,
    Behaviour,
    BehaviourTree,
    KeyValue,
    SnapshotStreamParameters,
    Statistics,
)
from py_trees_ros_interfaces.srv import (  # noqa: E402
    CloseSnapshotStream,
    OpenSnapshotStream,
    ReconfigureSnapshotStream,
)

FIELDS: dict[Any, dict[str, str]] = {
    BehaviourTree: {
        "behaviours": "sequence<py_trees_ros_interfaces/Behaviour>",
        "changed": "boolean",
        "blackboard_on_visited_path": "sequence<diagnostic_msgs/KeyValue>",
        "blackboard_activity": "sequence<py_trees_ros_interfaces/ActivityItem>",
        "statistics": "py_trees_ros_interfaces/Statistics",
    },
    Behaviour: {
        "name": "string",
        "class_name": "string",
        "own_id": "unique_identifier_msgs/UUID",
        "parent_id": "unique_identifier_msgs/UUID",
        "tip_id": "unique_identifier_msgs/UUID",
        "child_ids": "sequence<unique_identifier_msgs/UUID>",
        "current_child_id": "unique_identifier_msgs/UUID",
        "type": "uint8",
        "additional_detail": "string",
        "blackbox_level": "uint8",
        "status": "uint8",
        "message": "string",
        "is_active": "boolean",
        "blackboard_access": "sequence<py_trees_ros_interfaces/KeyValue>",
    },
    Statistics: {
        "count": "int64",
        "stamp": "builtin_interfaces/Time",
        "tick_duration": "float",
        "tick_duration_average": "float",
        "tick_duration_variance": "float",
        "tick_interval": "float",
        "tick_interval_average": "float",
        "tick_interval_variance": "float",
    },
    SnapshotStreamParameters: {
        "snapshot_period": "double",
        "blackboard_data": "boolean",
        "blackboard_activity": "boolean",
    },
    ActivityItem: {
        "key": "string",
        "client_name": "string",
        "activity_type": "string",
        "previous_value": "string",
        "current_value": "string",
    },
    KeyValue: {"key": "string", "value": "string"},
    OpenSnapshotStream.Request: {
        "topic_name": "string",
        "parameters": "py_trees_ros_interfaces/SnapshotStreamParameters",
    },
    OpenSnapshotStream.Response: {"topic_name": "string"},
    CloseSnapshotStream.Request: {"topic_name": "string"},
    CloseSnapshotStream.Response: {"result": "boolean"},
    ReconfigureSnapshotStream.Request: {
        "topic_name": "string",
        "parameters": "py_trees_ros_interfaces/SnapshotStreamParameters",
    },
    ReconfigureSnapshotStream.Response: {"result": "boolean"},
}

HASHES = {
    "msg/ActivityItem": "RIHS01_28c7d519bcdd437b108a2571669ef7e48a0ff005dcaf2f990d775fac820f6da9",
    "msg/Behaviour": "RIHS01_591a951497cabdf423bafa33b69bc9de974154a3d52b53fccacbfdc911d9e772",
    "msg/BehaviourTree": "RIHS01_fbea5f031e37fdce7feb9f63dd16665db8d2a8f4150d907bd4b5c1f93ed49afa",
    "msg/KeyValue": "RIHS01_c680be290238ebb510a3110c658c225d342d0d2ce9967c47a39cb832463aa9e6",
    "msg/SnapshotStreamParameters": "RIHS01_678f0bedf3cd73b48cd28900d2da7d0b2d18e79c4e20c114780bfb73a43a8458",
    "msg/Statistics": "RIHS01_6afd684b110c2e82e17d9755673ecb90beacea2e87babe4fa15e82f9a9355807",
    "srv/CloseSnapshotStream": "RIHS01_d7dc6548b32f8d97f0b67ab25751121fe74e82dbd08ce907004363d282132aea",
    "srv/OpenSnapshotStream": "RIHS01_a71be77009b7eebdc8b48a84dc07bf7c14b6973be2a42d27944de754bb8896ee",
    "srv/ReconfigureSnapshotStream": "RIHS01_57f08c76262c940ca6db136a782d73c88781437f2a31928b7443c262d9845fbe",
}
"""RIHS01 of each type, as rosidl (Kilted) computes it from the definitions above."""


def share_dir() -> Path:
    """``<prefix>/share/py_trees_ros_interfaces`` of the installed package (ours or a ROS installation's)."""
    package = Path(interfaces.__file__).resolve().parent  # <prefix>/lib/pythonX.Y/site-packages/<package>
    return package.parents[3] / "share" / "py_trees_ros_interfaces"


@pytest.mark.parametrize("message_type", list(FIELDS), ids=lambda t: t.__name__)
def test_the_fields_are_the_published_ones_in_order(message_type: Any) -> None:
    assert list(message_type.get_fields_and_field_types().items()) == list(FIELDS[message_type].items())


@pytest.mark.parametrize("name", sorted(HASHES))
def test_the_type_hash_is_the_recorded_one(name: str) -> None:
    described = json.loads((share_dir() / f"{name}.json").read_text())
    hashes = {entry["type_name"]: entry["hash_string"] for entry in described["type_hashes"]}
    assert hashes[f"py_trees_ros_interfaces/{name}"] == HASHES[name]


def test_a_publisher_announces_the_recorded_hash_in_discovery(ros_harness: RosHarness) -> None:
    node = ros_harness.node("announcer")
    node.create_publisher(BehaviourTree, "snapshots", 1)
    ros_harness.start()
    topic = f"{ros_harness.namespace}/snapshots"
    ros_harness.wait_until(lambda: len(node.get_publishers_info_by_topic(topic)) == 1, 5.0, "the publisher")
    assert str(node.get_publishers_info_by_topic(topic)[0].topic_type_hash) == HASHES["msg/BehaviourTree"]


def test_the_behaviour_constants_match_py_trees() -> None:
    assert (Behaviour.INVALID, Behaviour.RUNNING, Behaviour.SUCCESS, Behaviour.FAILURE) == (1, 2, 3, 4)

"""Hostile world-state messages are dropped with the field named; the last good state stays.

NaN or infinite numbers, duplicate ids, 10,000 objects (the bound is the
executive's ``world_state_max_objects`` parameter, default 1000, in
``config/executive.yaml``), control characters or over-long names.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from bt_executive.llm.plan import Plan
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.skills.world_state_msg import MAX_WORLD_OBJECTS, WorldStateRejected, from_msg, to_msg
from tests.executive.conftest import PICK, Rig, start

pytestmark = pytest.mark.ros

RED = ObjectState(id="red_cube", category="cube", colour="red", position=(0.3, 0.1, 0.02), supported_by="table")
PLATE = ObjectState(id="plate", category="plate", colour="green", position=(0.38, 0.22, 0.006))
GOOD = WorldState(
    objects=(RED, PLATE),
    joint_positions=(0.0, 0.1, 0.2),
    drawers={"drawer": 0.0},
    regions={"workspace": ((0.2, -0.3, 0.0), (0.6, 0.3, 0.3))},
)


def _nan_x(m: Any) -> None:
    m.objects[1].pose.position.x = float("nan")


def _inf_size(m: Any) -> None:
    m.objects[0].size.z = float("inf")


def _inf_orientation(m: Any) -> None:
    m.objects[0].pose.orientation.w = float("-inf")


def _nan_joint(m: Any) -> None:
    m.joint_positions = [0.0, 0.1, float("nan")]


def _nan_gripper(m: Any) -> None:
    m.gripper_opening = float("nan")


def _nan_drawer(m: Any) -> None:
    m.drawer_open_fractions = [float("nan")]


def _duplicate_id(m: Any) -> None:
    m.objects[1].id = "red_cube"


def _many_objects(m: Any) -> None:
    m.objects = [_renamed(m.objects[0], f"cube_{i}") for i in range(10_000)]


def _escape_in_colour(m: Any) -> None:
    m.objects[0].colour = "r\x1b[2Jed"


def _long_category(m: Any) -> None:
    m.objects[0].category = "c" * 65


def _unknown_affordance(m: Any) -> None:
    m.objects[0].affordances = ["graspable", "edible"]


def _bad_id(m: Any) -> None:
    m.objects[0].id = "Red Cube"


def _drawer_arrays(m: Any) -> None:
    m.drawer_open_fractions = [0.0, 0.5]


def _region_arrays(m: Any) -> None:
    m.region_max = []


def _inverted_region(m: Any) -> None:
    m.region_max[0].x = -1.0


def _nan_region(m: Any) -> None:
    m.region_min[0].z = float("nan")


def _renamed(obj: Any, name: str) -> Any:
    clone = copy.copy(obj)
    clone.id = name
    return clone


# case -> (how the good message is broken, the field named, words of the reason)
CASES: dict[str, tuple[Callable[[Any], None], str, str]] = {
    "NaN position": (_nan_x, "objects[1].pose.position.x", "nan is not a finite number"),
    "infinite size": (_inf_size, "objects[0].size.z", "inf is not a finite number"),
    "infinite orientation": (_inf_orientation, "objects[0].pose.orientation.w", "-inf is not a finite number"),
    "NaN joint": (_nan_joint, "joint_positions[2]", "nan"),
    "NaN gripper": (_nan_gripper, "gripper_opening", "nan"),
    "NaN drawer": (_nan_drawer, "drawer_open_fractions[0]", "nan"),
    "duplicate id": (_duplicate_id, "objects[1].id", "duplicate id 'red_cube' (also objects[0])"),
    "10,000 objects": (_many_objects, "objects", f"10000 objects; at most {MAX_WORLD_OBJECTS} are taken"),
    "escape in colour": (_escape_in_colour, "objects[0].colour", "control character U+001B (ESC)"),
    "long category": (_long_category, "objects[0].category", "65 characters; names are at most 64"),
    "unknown affordance": (_unknown_affordance, "objects[0].affordances[1]", "unknown affordance 'edible'"),
    "id not a name": (_bad_id, "objects[0].id", "should match pattern"),
    "drawer arrays": (_drawer_arrays, "drawer_open_fractions", "2 fractions for 1 drawer_ids"),
    "region arrays": (_region_arrays, "region_max", "0 corners for 1 region_ids"),
    "inverted region": (_inverted_region, "region_max[0]", "a max corner below its min corner"),
    "NaN region": (_nan_region, "region_min[0].z", "nan is not a finite number"),
}


def _broken(case: str) -> Any:
    msg = to_msg(GOOD)
    CASES[case][0](msg)
    return msg


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_world_state_is_refused_naming_the_field(case: str) -> None:
    with pytest.raises(WorldStateRejected) as caught:
        from_msg(_broken(case))
    _, field, words = CASES[case]
    assert (caught.value.field, words in caught.value.reason) == (field, True), str(caught.value)


def test_the_object_bound_is_a_parameter() -> None:
    msg = to_msg(GOOD)
    with pytest.raises(WorldStateRejected, match="2 objects; at most 1 are taken"):
        from_msg(msg, max_objects=1)


def test_a_good_world_state_is_taken() -> None:
    assert from_msg(to_msg(GOOD)).ids() == ("plate", "red_cube")


# against a running node ---------------------------------------------------------------------------


def test_the_node_drops_bad_world_states_keeps_the_last_good_one_and_keeps_serving(
    make_rig: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from bt_executive_interfaces.msg import WorldState as WorldStateMsg

    rig: Rig = make_rig(Plan(steps=(PICK,)))
    rig.server.serve("skills/pick")
    publisher = rig.client_node.create_publisher(WorldStateMsg, f"{rig.harness.namespace}/world_state", 10)
    client = rig.client()
    start(rig, client)
    world = rig.executive.world
    _until(lambda: publisher.get_subscription_count() > 0, lambda: None)
    publisher.publish(to_msg(GOOD))  # once: a second good one arriving late would move arrival()
    _until(lambda: world.latest() is not None, lambda: None)
    arrived = world.arrival()
    bad = ["NaN position", "duplicate id", "10,000 objects"]
    with caplog.at_level(logging.WARNING, logger="bt_executive.executive"):
        for case in bad:
            publisher.publish(_broken(case))
        _until(lambda: world.rejected >= len(bad), lambda: None)
    result = client.run("pick the red cube", timeout_s=30)
    logged = [r.getMessage() for r in caplog.records if "world state dropped" in r.getMessage()]
    kept = world.latest()
    assert (kept.ids() if kept else None, world.arrival(), len(logged), result.final_reason) == (
        ("plate", "red_cube"),
        arrived,
        len(bad),
        "done",
    )
    assert [CASES[c][1] in line for c, line in zip(bad, logged, strict=True)] == [True] * len(bad)


def _until(done: Callable[[], bool], action: Callable[[], None], timeout_s: float = 15.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "timed out"
        action()
        time.sleep(0.05)

"""WorldState crosses ROS 2 as bt_executive_interfaces/msg/WorldState without losing anything."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bt_executive.skills.affordances import Affordance
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.skills.world_state_msg import WorldStateRejected, from_msg, to_msg

from .strategies import world_states

pytestmark = pytest.mark.ros


@settings(max_examples=60, deadline=None)
@given(world_states)
def test_world_state_round_trips_through_the_ros_message(state: WorldState) -> None:
    back = from_msg(to_msg(state))
    # The wire carries the effective affordances (stated, else the category's), in name order.
    effective = tuple(
        o.model_copy(update={"affordances": tuple(sorted(o.effective_affordances()))}) for o in state.objects
    )
    expected = state.model_copy(update={"objects": effective})
    assert back.model_dump(exclude={"stamp"}) == expected.model_dump(exclude={"stamp"})
    assert back.stamp == pytest.approx(state.stamp, abs=1e-9)


def test_affordances_cross_the_wire_as_the_effective_set() -> None:
    table = ObjectState(id="table", category="table", position=(0.0, 0.0, 0.0))
    crate = ObjectState(id="crate", category="cube", position=(0.1, 0.0, 0.0), affordances=())
    msg = to_msg(WorldState(objects=(table, crate)))
    assert [list(o.affordances) for o in msg.objects] == [["support"], []]
    back = from_msg(msg)
    assert not back.objects[0].affords(Affordance.GRASPABLE)
    assert back.objects[0].affords(Affordance.SUPPORT)
    # An empty set stays "affords nothing", not "the category's defaults".
    assert back.objects[1].affordances == ()
    assert not back.objects[1].affords(Affordance.GRASPABLE)


def _message(draw: st.DrawFn) -> Any:
    """A world-state message with any numbers (NaN and infinities too) and any text in its fields."""
    from geometry_msgs.msg import Point

    from bt_executive_interfaces.msg import ObjectState as ObjectMsg
    from bt_executive_interfaces.msg import WorldState as WorldMsg

    numbers = st.floats(allow_nan=True, allow_infinity=True)
    text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=70)
    names = st.sampled_from(["red_cube", "plate", "bowl", "Red Cube", ""]) | text
    msg = WorldMsg()
    for _ in range(draw(st.integers(0, 4))):
        o = ObjectMsg()
        o.id, o.category, o.colour = draw(names), draw(names), draw(names)
        o.supported_by, o.inside = draw(names), draw(names)
        o.pose.position.x, o.pose.position.y, o.pose.position.z = draw(numbers), draw(numbers), draw(numbers)
        o.size.x = draw(numbers)
        o.affordances = draw(st.lists(st.sampled_from(["graspable", "support", "edible"]), max_size=3))
        msg.objects.append(o)
    msg.gripper_opening = draw(numbers)
    msg.holding = draw(names)
    msg.joint_positions = draw(st.lists(numbers, max_size=8))
    msg.drawer_ids = draw(st.lists(names, max_size=3))
    msg.drawer_open_fractions = draw(st.lists(numbers, max_size=3))
    msg.region_ids = draw(st.lists(names, max_size=2))
    corners = st.builds(Point, x=numbers, y=numbers, z=numbers)
    msg.region_min = draw(st.lists(corners, max_size=2))
    msg.region_max = draw(st.lists(corners, max_size=2))
    return msg


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_message_is_either_taken_or_refused_naming_a_field(data: st.DataObject) -> None:
    msg = data.draw(st.composite(_message)())
    try:
        state = from_msg(msg)
        outcome = all(math.isfinite(v) for o in state.objects for v in (*o.position, *o.size))
    except WorldStateRejected as err:  # anything else escaping would reach the executor
        outcome = err.field != ""
    assert outcome

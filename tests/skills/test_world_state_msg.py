"""WorldState crosses ROS 2 as bt_executive_interfaces/msg/WorldState without losing anything."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from bt_executive.skills.affordances import Affordance
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.skills.world_state_msg import from_msg, to_msg

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

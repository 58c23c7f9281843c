"""WorldState crosses ROS 2 as bt_executive_interfaces/msg/WorldState without losing anything."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from bt_executive.skills.world_state import WorldState
from bt_executive.skills.world_state_msg import from_msg, to_msg

from .strategies import world_states

pytestmark = pytest.mark.ros


@settings(max_examples=60, deadline=None)
@given(world_states)
def test_world_state_round_trips_through_the_ros_message(state: WorldState) -> None:
    back = from_msg(to_msg(state))
    assert back.model_dump(exclude={"stamp"}) == state.model_dump(exclude={"stamp"})
    assert back.stamp == pytest.approx(state.stamp, abs=1e-9)

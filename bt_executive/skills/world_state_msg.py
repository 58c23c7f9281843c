"""WorldState <-> bt_executive_interfaces/msg/WorldState, for robots that publish it over ROS 2.

The pydantic ``WorldState`` is the contract inside the executive; the ROS
message is how it crosses processes. Converting both ways here keeps the two
in step (a round-trip test guards it). Empty strings in the message mean
"none", as ROS strings cannot be null. ``affordances`` on the wire is always
the effective set (stated, else the category's defaults), so an empty list
there means "affords nothing", never "use the defaults".
"""

from __future__ import annotations

from typing import Any

from bt_executive.skills.affordances import Affordance
from bt_executive.skills.world_state import GripperState, ObjectState, WorldState


def to_msg(state: WorldState) -> Any:
    """Build a ``bt_executive_interfaces.msg.WorldState`` from the contract."""
    from bt_executive_interfaces.msg import ObjectState as ObjectMsg
    from bt_executive_interfaces.msg import WorldState as WorldMsg

    msg = WorldMsg()
    total_ns = round(state.stamp * 1e9)
    msg.stamp.sec, msg.stamp.nanosec = divmod(total_ns, 1_000_000_000)
    for obj in state.objects:
        o = ObjectMsg()
        o.id, o.category, o.colour = obj.id, obj.category, obj.colour
        o.pose.position.x, o.pose.position.y, o.pose.position.z = obj.position
        q = o.pose.orientation
        q.w, q.x, q.y, q.z = obj.orientation
        o.size.x, o.size.y, o.size.z = obj.size
        o.reachable = obj.reachable
        o.supported_by = obj.supported_by or ""
        o.inside = obj.inside or ""
        # Always the effective set: a subscriber need not know this side's category defaults.
        o.affordances = sorted(a.value for a in obj.effective_affordances())
        msg.objects.append(o)
    msg.gripper_opening = state.gripper.opening
    msg.holding = state.gripper.holding or ""
    msg.joint_positions = list(state.joint_positions)
    msg.at_home = state.at_home
    msg.drawer_ids = list(state.drawers)
    msg.drawer_open_fractions = list(state.drawers.values())
    return msg


def from_msg(msg: Any) -> WorldState:
    """Read a ``bt_executive_interfaces.msg.WorldState`` into the contract."""
    objects = tuple(
        ObjectState(
            id=o.id,
            category=o.category,
            colour=o.colour,
            position=(o.pose.position.x, o.pose.position.y, o.pose.position.z),
            orientation=(o.pose.orientation.w, o.pose.orientation.x, o.pose.orientation.y, o.pose.orientation.z),
            size=(o.size.x, o.size.y, o.size.z),
            reachable=o.reachable,
            supported_by=o.supported_by or None,
            inside=o.inside or None,
            affordances=tuple(Affordance(a) for a in o.affordances),
        )
        for o in msg.objects
    )
    return WorldState(
        stamp=msg.stamp.sec + msg.stamp.nanosec * 1e-9,
        objects=objects,
        gripper=GripperState(opening=max(0.0, msg.gripper_opening), holding=msg.holding or None),
        joint_positions=tuple(msg.joint_positions),
        at_home=msg.at_home,
        drawers=dict(zip(msg.drawer_ids, msg.drawer_open_fractions, strict=True)),
    )

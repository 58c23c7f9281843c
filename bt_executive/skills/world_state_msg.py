"""WorldState <-> bt_executive_interfaces/msg/WorldState, for robots that publish it over ROS 2.

The pydantic ``WorldState`` is the contract inside the executive; the ROS
message is how it crosses processes. Converting both ways here keeps the two
in step (a round-trip test guards it). Empty strings in the message mean
"none", as ROS strings cannot be null. ``affordances`` on the wire is always
the effective set (stated, else the category's defaults), so an empty list
there means "affords nothing", never "use the defaults".

A message comes from any publisher on the robot's network, so ``from_msg``
checks it before anything reads it: a bounded object count, finite numbers,
unique ids, short names without control characters. ``WorldStateRejected``
names the field that is wrong; the subscriber drops that message.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError

from bt_executive.skills.affordances import Affordance
from bt_executive.skills.text_rules import control_character_problem
from bt_executive.skills.world_state import GripperState, ObjectState, WorldState

MAX_WORLD_OBJECTS = 1000
"""Default bound on the objects in one message (the executive's ``world_state_max_objects`` parameter).

A tabletop holds tens; a perception stack that reports thousands is broken,
and every planner prompt, condition check and snapshot would pay for them.
"""

MAX_JOINTS = 64
MAX_TEXT_CHARS = 64
"""Ids, categories and colours are short names; they reach prompts and the viewer."""


class WorldStateRejected(ValueError):
    """A world-state message that is not taken: the field that is wrong and why."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


def to_msg(state: WorldState) -> Any:
    """Build a ``bt_executive_interfaces.msg.WorldState`` from the contract."""
    from geometry_msgs.msg import Point

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
    msg.region_ids = list(state.regions)
    msg.region_min = [Point(x=low[0], y=low[1], z=low[2]) for low, _high in state.regions.values()]
    msg.region_max = [Point(x=high[0], y=high[1], z=high[2]) for _low, high in state.regions.values()]
    return msg


def from_msg(msg: Any, max_objects: int = MAX_WORLD_OBJECTS) -> WorldState:
    """Read a ``bt_executive_interfaces.msg.WorldState`` into the contract; WorldStateRejected names a bad field.

    Refused: more than ``max_objects`` objects, a NaN or infinite number
    anywhere, two objects (drawers, regions) with one id, parallel arrays of different lengths,
    control characters or over-long text in a name, an unknown affordance.
    """
    check_msg(msg, max_objects)
    objects = []
    for index, o in enumerate(msg.objects):
        try:
            objects.append(
                ObjectState(
                    id=o.id,
                    category=o.category,
                    colour=o.colour,
                    position=(o.pose.position.x, o.pose.position.y, o.pose.position.z),
                    orientation=(
                        o.pose.orientation.w,
                        o.pose.orientation.x,
                        o.pose.orientation.y,
                        o.pose.orientation.z,
                    ),
                    size=(o.size.x, o.size.y, o.size.z),
                    reachable=o.reachable,
                    supported_by=o.supported_by or None,
                    inside=o.inside or None,
                    affordances=tuple(Affordance(a) for a in o.affordances),
                )
            )
        except ValidationError as err:
            raise _rejected(err, f"objects[{index}]") from None
    try:
        return WorldState(
            stamp=msg.stamp.sec + msg.stamp.nanosec * 1e-9,
            objects=tuple(objects),
            gripper=GripperState(opening=max(0.0, msg.gripper_opening), holding=msg.holding or None),
            joint_positions=tuple(msg.joint_positions),
            at_home=msg.at_home,
            drawers=dict(zip(msg.drawer_ids, msg.drawer_open_fractions, strict=True)),
            regions={
                name: ((low.x, low.y, low.z), (high.x, high.y, high.z))
                for name, low, high in zip(msg.region_ids, msg.region_min, msg.region_max, strict=True)
            },
        )
    except ValidationError as err:
        raise _rejected(err, "") from None


def check_msg(msg: Any, max_objects: int = MAX_WORLD_OBJECTS) -> None:
    """Raise WorldStateRejected naming the first field of ``msg`` that the executive must not take."""
    if len(msg.objects) > max_objects:
        raise WorldStateRejected("objects", f"{len(msg.objects)} objects; at most {max_objects} are taken")
    seen: dict[str, int] = {}
    for index, o in enumerate(msg.objects):
        where = f"objects[{index}]"
        _finite(f"{where}.pose.position", (o.pose.position.x, o.pose.position.y, o.pose.position.z), "xyz")
        q = o.pose.orientation
        _finite(f"{where}.pose.orientation", (q.w, q.x, q.y, q.z), "wxyz")
        _finite(f"{where}.size", (o.size.x, o.size.y, o.size.z), "xyz")
        for name in ("id", "category", "colour", "supported_by", "inside"):
            _name(f"{where}.{name}", getattr(o, name))
        if o.id in seen:
            raise WorldStateRejected(f"{where}.id", f"duplicate id {o.id!r} (also objects[{seen[o.id]}])")
        seen[o.id] = index
        known = {a.value for a in Affordance}
        for j, affordance in enumerate(o.affordances):
            if affordance not in known:
                raise WorldStateRejected(f"{where}.affordances[{j}]", f"unknown affordance {affordance[:40]!r}")
    if not math.isfinite(msg.gripper_opening):
        raise WorldStateRejected("gripper_opening", f"{msg.gripper_opening} is not a finite number")
    _name("holding", msg.holding)
    if len(msg.joint_positions) > MAX_JOINTS:
        raise WorldStateRejected("joint_positions", f"{len(msg.joint_positions)} joints; at most {MAX_JOINTS}")
    _finite("joint_positions", tuple(msg.joint_positions), "")
    if len(msg.drawer_ids) != len(msg.drawer_open_fractions):
        raise WorldStateRejected(
            "drawer_open_fractions",
            f"{len(msg.drawer_open_fractions)} fractions for {len(msg.drawer_ids)} drawer_ids (parallel arrays)",
        )
    if len(msg.drawer_ids) > max_objects:
        raise WorldStateRejected("drawer_ids", f"{len(msg.drawer_ids)} drawers; at most {max_objects}")
    drawers: dict[str, int] = {}
    for index, drawer in enumerate(msg.drawer_ids):
        _name(f"drawer_ids[{index}]", drawer)
        if drawer in drawers:
            raise WorldStateRejected(
                f"drawer_ids[{index}]", f"duplicate id {drawer!r} (also drawer_ids[{drawers[drawer]}])"
            )
        drawers[drawer] = index
    _finite("drawer_open_fractions", tuple(msg.drawer_open_fractions), "")
    _check_regions(msg, max_objects)


def _check_regions(msg: Any, max_objects: int) -> None:
    """Three parallel arrays of one length, unique short names, finite corners, min below max."""
    count = len(msg.region_ids)
    for corners in ("region_min", "region_max"):
        if len(getattr(msg, corners)) != count:
            raise WorldStateRejected(
                corners, f"{len(getattr(msg, corners))} corners for {count} region_ids (parallel arrays)"
            )
    if count > max_objects:
        raise WorldStateRejected("region_ids", f"{count} regions; at most {max_objects}")
    seen: dict[str, int] = {}
    for index, (name, low, high) in enumerate(zip(msg.region_ids, msg.region_min, msg.region_max, strict=True)):
        _name(f"region_ids[{index}]", name)
        if name in seen:
            raise WorldStateRejected(f"region_ids[{index}]", f"duplicate id {name!r} (also region_ids[{seen[name]}])")
        seen[name] = index
        _finite(f"region_min[{index}]", (low.x, low.y, low.z), "xyz")
        _finite(f"region_max[{index}]", (high.x, high.y, high.z), "xyz")
        if low.x > high.x or low.y > high.y or low.z > high.z:
            raise WorldStateRejected(f"region_max[{index}]", "a max corner below its min corner")


def _finite(field: str, values: tuple[float, ...], axes: str) -> None:
    """Refuse NaN and infinities; a vector's component is named by its axis, an array's by its index."""
    for index, value in enumerate(values):
        if not math.isfinite(value):
            part = f".{axes[index]}" if axes else f"[{index}]"
            raise WorldStateRejected(f"{field}{part}", f"{value} is not a finite number")


def _name(field: str, value: str) -> None:
    if len(value) > MAX_TEXT_CHARS:
        raise WorldStateRejected(field, f"{len(value)} characters; names are at most {MAX_TEXT_CHARS}")
    problem = control_character_problem(value)
    if problem is not None:
        raise WorldStateRejected(field, problem)


def _rejected(err: ValidationError, prefix: str) -> WorldStateRejected:
    """The first contract validation error, named as the message field (``objects[3].id``)."""
    first = err.errors(include_url=False)[0]
    out = prefix
    for part in first["loc"]:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return WorldStateRejected(out or "(message)", str(first["msg"]))

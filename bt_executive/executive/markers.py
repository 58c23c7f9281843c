"""RViz markers of what the executive believes: ``~/markers`` (``visualization_msgs/MarkerArray``).

::

    namespace   one marker per ...   shows
    objects     world-state object   a CUBE of its size and pose, in its colour (skills/colours.py)
    labels      world-state object   its id as TEXT_VIEW_FACING, just above it
    regions     world-state region   a flat LINE_STRIP outline of its footprint, at its lowest z
    highlight   id the running step  a translucent yellow box a little larger than the object,
                names (its object,   or a filled yellow outline of the region: what the arm is
                its target)          about to act on

Every marker's ``text`` holds the id it stands for (RViz draws text only for
TEXT_VIEW_FACING), so a tool can tell them apart. Frame: the ``markers_frame_id``
parameter (the world state is in the robot's base frame).

Published on change, never per tick: when the world as drawn (ids, colours,
poses and sizes to the millimetre, regions) or the running step's ids differ
from what was last sent. Each message is the whole picture, led by a
DELETEALL, so an object that left the world leaves RViz too. The publisher is
a lifecycle one and transient-local: silent while the node is inactive, and a
display started late gets the picture at once.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from rclpy.lifecycle import LifecycleNode

from bt_executive.executive.tree_topic import tree_qos
from bt_executive.skills.call import SkillCall
from bt_executive.skills.colours import colour_rgba
from bt_executive.skills.world_state import WorldState

if TYPE_CHECKING:
    from rclpy.qos import QoSProfile

MARKERS_TOPIC = "~/markers"
HIGHLIGHT_RGBA = (1.0, 0.85, 0.0, 0.45)
HIGHLIGHT_MARGIN_M = 0.02
"""How much larger than the object its highlight box is on every side."""
LABEL_HEIGHT_M = 0.025
LABEL_CLEARANCE_M = 0.03
OUTLINE_WIDTH_M = 0.004
MIN_EXTENT_M = 0.002
"""A box with a zero extent (the table's height) is drawn this thin, so RViz still shows it."""
_MM = 3
"""Rounding of poses and sizes in the change check: the sim's settling jitter is not a change."""


def markers_qos() -> QoSProfile:
    """The tree topic's QoS (reliable, transient-local, last one): a display started later still gets the picture."""
    return tree_qos()


def named_ids(call: SkillCall | None, world: WorldState | None) -> frozenset[str]:
    """The world's objects and regions that ``call``'s arguments name (its object, its target, ...)."""
    if call is None or world is None:
        return frozenset()
    known = {o.id for o in world.objects} | set(world.regions)
    values: list[Any] = list(call.args.values())
    named: set[str] = set()
    while values:
        value = values.pop()
        if isinstance(value, str) and value in known:
            named.add(value)
        elif isinstance(value, list | tuple):
            values.extend(value)
        elif isinstance(value, dict):
            values.extend(value.values())
    return frozenset(named)


def _drawn(world: WorldState | None) -> tuple[Any, ...]:
    """What the markers show of ``world``, rounded: equal tuples draw the same picture."""
    if world is None:
        return ()
    objects = tuple(
        (
            o.id,
            o.colour,
            tuple(round(v, _MM) for v in o.position),
            tuple(round(v, _MM) for v in o.orientation),
            tuple(round(v, _MM) for v in o.size),
        )
        for o in world.objects
    )
    regions = tuple(
        (name, tuple(round(v, _MM) for v in low), tuple(round(v, _MM) for v in high))
        for name, (low, high) in sorted(world.regions.items())
    )
    return objects, regions


class WorldMarkers:
    """The executive's ``~/markers`` publisher: the world state and the running step's ids, sent on change."""

    def __init__(self, node: LifecycleNode, frame_id: str = "base_link") -> None:
        from visualization_msgs.msg import MarkerArray

        self._node = node
        self.frame_id = frame_id
        self._publisher = node.create_lifecycle_publisher(MarkerArray, MARKERS_TOPIC, markers_qos())
        self._lock = threading.Lock()
        self._world: WorldState | None = None
        self._highlight: frozenset[str] = frozenset()
        self._sent: tuple[Any, ...] | None = None
        self.published = 0
        """Messages sent so far (a test or a benchmark can see that nothing is sent per tick)."""

    def refresh(self, world: WorldState | None) -> None:
        """A world state arrived: send the picture if it draws differently."""
        with self._lock:
            self._world = world
            self._send_if_changed()

    def focus(self, call: SkillCall | None, world: WorldState | None) -> None:
        """After a tick: highlight what the running step (``call``, None when none runs) names."""
        highlight = named_ids(call, world)
        with self._lock:
            if highlight == self._highlight and world is self._world:
                return
            self._highlight = highlight
            self._world = world
            self._send_if_changed()

    def destroy(self) -> None:
        """Destroy the publisher (lifecycle cleanup)."""
        self._node.destroy_lifecycle_publisher(self._publisher)

    def _send_if_changed(self) -> None:
        if self._world is None:
            return
        key = (_drawn(self._world), tuple(sorted(self._highlight)))
        if key == self._sent:
            return
        self._publisher.publish(self.message(self._world, self._highlight))
        self._sent = key
        self.published += 1

    def message(self, world: WorldState, highlight: frozenset[str] = frozenset()) -> Any:
        """The whole picture of ``world`` as a MarkerArray, ``highlight``'s ids marked."""
        from visualization_msgs.msg import Marker, MarkerArray

        stamp = self._node.get_clock().now().to_msg()
        markers: list[Any] = []

        def marker(ns: str, marker_id: int, kind: int, text: str) -> Any:
            m = Marker()
            m.header.frame_id = self.frame_id
            m.header.stamp = stamp
            m.ns, m.id, m.type, m.action, m.text = ns, marker_id, kind, Marker.ADD, text
            m.pose.orientation.w = 1.0
            markers.append(m)
            return m

        clear = Marker()
        clear.action = Marker.DELETEALL
        markers.append(clear)
        for index, obj in enumerate(world.objects):
            size = tuple(max(v, MIN_EXTENT_M) for v in obj.size)
            box = marker("objects", index, Marker.CUBE, obj.id)
            _place(box, obj.position, obj.orientation)
            box.scale.x, box.scale.y, box.scale.z = size
            box.color.r, box.color.g, box.color.b, box.color.a = colour_rgba(obj.colour) if obj.colour else _GREY
            label = marker("labels", index, Marker.TEXT_VIEW_FACING, obj.id)
            x, y, z = obj.position
            label.pose.position.x, label.pose.position.y = x, y
            label.pose.position.z = z + size[2] / 2 + LABEL_CLEARANCE_M
            label.scale.z = LABEL_HEIGHT_M
            label.color.r = label.color.g = label.color.b = label.color.a = 1.0
            if obj.id in highlight:
                glow = marker("highlight", index, Marker.CUBE, obj.id)
                _place(glow, obj.position, obj.orientation)
                glow.scale.x, glow.scale.y, glow.scale.z = (v + 2 * HIGHLIGHT_MARGIN_M for v in size)
                glow.color.r, glow.color.g, glow.color.b, glow.color.a = HIGHLIGHT_RGBA
        for index, (name, (low, high)) in enumerate(sorted(world.regions.items())):
            outline = marker("regions", index, Marker.LINE_STRIP, name)
            _outline(outline, low, high)
            outline.scale.x = OUTLINE_WIDTH_M
            outline.color.r = outline.color.g = outline.color.b = 0.9
            outline.color.a = 1.0
            if name in highlight:
                glow = marker("highlight", len(world.objects) + index, Marker.LINE_STRIP, name)
                _outline(glow, low, high)
                glow.scale.x = 3 * OUTLINE_WIDTH_M
                glow.color.r, glow.color.g, glow.color.b, glow.color.a = HIGHLIGHT_RGBA
        return MarkerArray(markers=markers)


_GREY = (0.6, 0.6, 0.6, 1.0)
"""An object the world state gives no colour."""


def _place(m: Any, position: tuple[float, float, float], orientation: tuple[float, float, float, float]) -> None:
    m.pose.position.x, m.pose.position.y, m.pose.position.z = position
    q = m.pose.orientation
    q.w, q.x, q.y, q.z = orientation


def _outline(m: Any, low: tuple[float, float, float], high: tuple[float, float, float]) -> None:
    """The region's footprint as a closed rectangle at its lowest z."""
    from geometry_msgs.msg import Point

    (x0, y0, z), (x1, y1, _) = low, high
    m.points = [Point(x=x, y=y, z=z) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0))]

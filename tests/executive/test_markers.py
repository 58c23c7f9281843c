"""``~/markers``: the world state as RViz sees it, the running step's object and target highlighted.

The picture (one box and one label per object, a flat outline per region, a
highlight per id the step names) is checked on a built message; that it is sent
on change only, on a node; and end to end, a subscriber in this process watches
the demo task run on the sim and ``serve`` (child processes).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from bt_executive.cli.demo_command import DEFAULT_TASK
from bt_executive.cli.task_client import TaskClient, TaskFeedback, TaskResult
from bt_executive.executive.markers import WorldMarkers, markers_qos, named_ids
from bt_executive.skills.call import SkillCall
from bt_executive.skills.colours import colour_rgba
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.testing import RosHarness

pytestmark = pytest.mark.ros

RED = ObjectState(id="red_cube", category="cube", colour="red", position=(0.3, 0.1, 0.02), size=(0.04, 0.04, 0.04))
PLATE = ObjectState(id="plate", category="plate", colour="green", position=(0.4, -0.1, 0.005), size=(0.15, 0.15, 0.01))
WORLD = WorldState(objects=(RED, PLATE), regions={"workspace": ((0.2, -0.3, 0.0), (0.6, 0.3, 0.3))})


def _by_ns(message: Any) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for marker in message.markers:
        out.setdefault(marker.ns, []).append(marker)
    return out


@pytest.fixture
def markers(ros_harness: RosHarness) -> WorldMarkers:
    """A WorldMarkers on an active lifecycle node (its publisher sends only while active)."""
    from rclpy.lifecycle import LifecycleNode

    node = LifecycleNode("markers_test", namespace=ros_harness.namespace, context=ros_harness.context)
    ros_harness.adopt(node)
    published = WorldMarkers(node)
    node.trigger_configure()
    node.trigger_activate()
    return published  # the harness destroys the node


def test_each_object_is_a_box_in_its_colour_with_a_label_and_each_region_a_closed_flat_outline(
    markers: WorldMarkers,
) -> None:
    from visualization_msgs.msg import Marker

    drawn = _by_ns(markers.message(WORLD))
    boxes = {
        m.text: (m.type, tuple(round(c, 3) for c in (m.color.r, m.color.g, m.color.b, m.color.a)), round(m.scale.z, 3))
        for m in drawn["objects"]
    }
    labels = {m.text: m.type for m in drawn["labels"]}
    [outline] = drawn["regions"]
    corners = [(p.x, p.y, p.z) for p in outline.points]
    assert boxes == {
        "red_cube": (Marker.CUBE, tuple(round(c, 3) for c in colour_rgba("red")), 0.04),
        "plate": (Marker.CUBE, tuple(round(c, 3) for c in colour_rgba("green")), 0.01),
    }
    assert labels == {"red_cube": Marker.TEXT_VIEW_FACING, "plate": Marker.TEXT_VIEW_FACING}
    assert (outline.type, outline.text, corners[0] == corners[-1], {z for _, _, z in corners}) == (
        Marker.LINE_STRIP,
        "workspace",
        True,
        {0.0},
    )


def test_what_the_step_names_is_highlighted_and_nothing_else() -> None:
    place = SkillCall(skill="tabletop/place_on", args={"target": "plate", "height": 0.1})
    assert (named_ids(place, WORLD), named_ids(None, WORLD)) == (frozenset({"plate"}), frozenset())


def test_the_highlight_is_a_larger_box_over_the_named_object(markers: WorldMarkers) -> None:
    drawn = _by_ns(markers.message(WORLD, frozenset({"red_cube"})))
    [glow] = drawn["highlight"]
    assert (glow.text, glow.scale.x > RED.size[0], glow.color.a < 1.0) == ("red_cube", True, True)


def test_markers_are_sent_when_the_picture_changes_not_for_every_world_state_or_tick(markers: WorldMarkers) -> None:
    pick = SkillCall(skill="tabletop/pick", args={"object": "red_cube"})
    for _ in range(5):
        markers.refresh(WORLD)
        markers.focus(pick, WORLD)  # a tick while the pick runs
    moved = WORLD.model_copy(update={"objects": (RED.model_copy(update={"position": (0.32, 0.1, 0.02)}), PLATE)})
    markers.refresh(moved)
    markers.refresh(moved.model_copy(update={"stamp": 1.0}))  # the same picture, a newer stamp
    assert markers.published == 3  # the world, the pick's highlight, the moved cube


# end to end: the demo task ---------------------------------------------------------------------------


class DemoWatch:
    """The realtime sim and ``serve`` as children; this process subscribes to ``~/markers`` and sends the task."""

    def __init__(self, harness: RosHarness, domain: int, runs: Path) -> None:
        from visualization_msgs.msg import MarkerArray

        from bt_executive.cli.process_group import ProcessGroup
        from bt_executive_interfaces.msg import WorldState as WorldStateMsg

        self.harness = harness
        self.ns = harness.namespace
        self.runs = runs
        self.group = ProcessGroup(echo=None, env={**os.environ, "ROS_DOMAIN_ID": str(domain)})
        node = harness.node("markers_watch")
        self.lock = threading.Lock()
        self.step = ""
        """The skill the executive's feedback says runs now."""
        self.seen: list[tuple[str, dict[str, set[str]]]] = []
        """Each MarkerArray as (the skill running when it came, ids per namespace)."""
        self.world_ids: set[str] = set()
        self.region_ids: set[str] = set()
        self.world_states = 0
        node.create_subscription(MarkerArray, f"{self.ns}/bt_executive/markers", self._markers, markers_qos())
        node.create_subscription(WorldStateMsg, f"{self.ns}/world_state", self._world, 10)
        self.tasks = TaskClient(node, self.ns)

    def _markers(self, message: Any) -> None:
        ids: dict[str, set[str]] = {}
        for marker in message.markers:
            if marker.ns:
                ids.setdefault(marker.ns, set()).add(marker.text)
        with self.lock:
            self.seen.append((self.step, ids))

    def _world(self, message: Any) -> None:
        self.world_states += 1
        self.world_ids = {o.id for o in message.objects}
        self.region_ids = set(message.region_ids)

    def feedback(self, feedback: TaskFeedback) -> None:
        with self.lock:
            self.step = feedback.skill

    def start(self) -> None:
        # Realtime: a step lasts seconds, so markers sent while it runs are there to be seen.
        sim = self.group.start("sim", ["sim", "--namespace", self.ns, "--realtime"], ready=r"^sim ready")
        self.group.wait_ready(sim, 60)
        argv = ["serve", "--namespace", self.ns, "--run-dir", str(self.runs), "--no-warm"]
        self.group.wait_ready(self.group.start("serve", argv, ready=r"^executive ready"), 60)
        self.harness.start()
        assert self.tasks.wait_for_server(15.0)

    def run(self) -> TaskResult:
        return self.tasks.run(DEFAULT_TASK, on_feedback=self.feedback, timeout_s=120.0)


def highlighted_changes(seen: list[tuple[str, dict[str, set[str]]]]) -> list[frozenset[str]]:
    """The highlight sets in the order they changed."""
    changes: list[frozenset[str]] = []
    for _step, ids in seen:
        current = frozenset(ids.get("highlight", ()))
        if not changes or changes[-1] != current:
            changes.append(current)
    return changes


@pytest.fixture
def demo_watch(ros_harness: RosHarness, ros_domain_id: int, tmp_path: Path) -> Any:
    watch = DemoWatch(ros_harness, ros_domain_id, tmp_path / "runs")
    with watch.group:
        yield watch


@pytest.mark.sim
@pytest.mark.slow
def test_during_the_demo_task_markers_show_every_object_and_highlight_each_steps_target(
    demo_watch: DemoWatch,
) -> None:
    demo_watch.start()
    demo_watch.harness.wait_until(lambda: bool(demo_watch.seen), 15.0, "a first MarkerArray on ~/markers")
    worlds_before, markers_before = demo_watch.world_states, len(demo_watch.seen)
    result = demo_watch.run()
    demo_watch.harness.wait_until(
        lambda: not demo_watch.seen[-1][1].get("highlight"), 15.0, "the highlight to go when the task ends"
    )
    with demo_watch.lock:
        seen = list(demo_watch.seen)
    worlds = demo_watch.world_states - worlds_before
    first = seen[0][1]
    highlighted = [(step, frozenset(ids.get("highlight", ()))) for step, ids in seen if ids.get("highlight")]
    print(f"markers: {len(seen)} MarkerArrays, {worlds} world states; highlights {highlighted_changes(seen)}")
    assert result.final_reason == "done"
    assert (first["objects"], first["labels"], first["regions"]) == (
        demo_watch.world_ids,
        demo_watch.world_ids,
        demo_watch.region_ids,
    )
    assert {"red_cube", "plate"} <= demo_watch.world_ids
    assert ("tabletop/pick", frozenset({"red_cube"})) in highlighted
    assert ("tabletop/place_on", frozenset({"plate"})) in highlighted, highlighted
    # At most one per world state (10 Hz; the carried cube moves in each) and one per highlight change,
    # where a tick (20 Hz, and on every answer) would send several per world state.
    sent = len(seen) - markers_before
    assert sent <= worlds + len(highlighted_changes(seen)), f"{sent} MarkerArrays for {worlds} world states"

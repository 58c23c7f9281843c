"""The ROS teardown is bounded and complete: nodes leave the graph, threads end, what stays is named."""

from __future__ import annotations

import importlib
import threading
import time
from pathlib import Path

import pytest
from rclpy.context import Context
from std_msgs.msg import String

from bt_executive.runtime.ros_teardown import destroy_node
from bt_executive.testing import RosHarness
from bt_executive.testing.ros_harness import TeardownError, unique_namespace
from bt_executive.testing.scripted_planner import ScriptedPlanner

pytestmark = pytest.mark.ros

harness_module = importlib.import_module("bt_executive.testing.ros_harness")
"""The module (``bt_executive.testing.ros_harness`` as an attribute is the fixture of that name)."""


def _recorder_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "frame-recorder"}


def test_an_executive_the_harness_closed_leaves_the_graph_and_its_frame_recorder_ends(
    ros_harness: RosHarness, ros_domain_id: int, tmp_path: Path, clean_blackboard: None
) -> None:
    from bt_executive.executive.node import ExecutiveNode
    from bt_executive.executive.params import ExecutiveParams

    watcher = ros_harness.node("watcher")  # in a context of its own, which outlives the executive's
    before = _recorder_threads()
    with RosHarness.open(ros_domain_id) as harness:
        params = ExecutiveParams(world_state_wait_s=0.0, run_dir=str(tmp_path / "runs"))
        executive = ExecutiveNode(
            harness.context, params, lambda _profile, _registry: ScriptedPlanner([]), namespace=harness.namespace
        )
        harness.adopt(executive.node)
        harness.start()
        recorders = _recorder_threads() - before
        here = ("bt_executive", harness.namespace)
        harness.wait_until(lambda: here in watcher.get_node_names_and_namespaces(), 10.0, "the executive in the graph")
        executive.shutdown()  # as the executive tests' fixture ends a test, while the executor spins
    for thread in recorders:
        thread.join(timeout=5.0)
    ros_harness.wait_until(
        lambda: here not in watcher.get_node_names_and_namespaces(), 10.0, "the executive to leave the graph"
    )
    assert (len(recorders), [t for t in recorders if t.is_alive()], executive.configured) == (1, [], False)


def test_destroying_a_node_whose_handle_is_in_use_names_it_once_the_bound_has_passed(ros_context: Context) -> None:
    import rclpy

    node = rclpy.create_node("held", namespace=unique_namespace(), context=ros_context)
    subscription = node.create_subscription(String, "chatter", lambda _message: None, 10)
    with subscription.handle:  # as a wait set holds it while it waits
        held = destroy_node(node, timeout_s=0.2)
    assert (len(held), "subscription" in held[0], "chatter" in held[0], subscription.handle.pointer) == (
        1,
        True,
        True,
        0,
    )


def test_a_node_whose_owner_destroyed_a_publisher_itself_is_destroyed_cleanly(ros_context: Context) -> None:
    import rclpy

    node = rclpy.create_node("tidy", namespace=unique_namespace(), context=ros_context)
    publisher = node.create_publisher(String, "chatter", 10)
    publisher.destroy()  # as the sim's topics do: the node still lists it, its handle refuses to be used
    assert (destroy_node(node, timeout_s=0.2), node.handle.pointer) == ([], 0)


def test_a_callback_still_running_at_close_fails_the_teardown_naming_it(
    ros_context: Context, ros_namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness_module, "SHUTDOWN_TIMEOUT_S", 0.3)
    entered, release = threading.Event(), threading.Event()

    def stuck_callback() -> None:
        entered.set()
        release.wait(30.0)

    harness = RosHarness(ros_context, ros_namespace)
    timer = harness.node("stuck").create_timer(0.01, stuck_callback)
    harness.start()
    try:
        assert entered.wait(5.0)
        timer.cancel()
        started = time.monotonic()
        with pytest.raises(TeardownError, match="stuck_callback"):
            harness.close()
        assert time.monotonic() - started < 5.0
    finally:
        release.set()

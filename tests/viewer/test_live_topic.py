"""The viewer's ROS side: snapshots published on the tree topic reach the live feed; bad ones do not."""

from __future__ import annotations

import json

import pytest

from bt_executive.executive.tree_topic import encode_snapshot, tree_qos
from bt_executive.executive.viewer.live_feed import LiveFeed
from bt_executive.executive.viewer.topic_bridge import TopicBridge
from bt_executive.testing import RosHarness

pytestmark = pytest.mark.ros
SNAPSHOT = {
    "timestamp": 1.0,
    "root": "a",
    "visited_path": ["a"],
    "behaviours": {"a": {"id": "a", "name": "Task", "status": "RUNNING", "children": [], "data": {}}},
}


def test_a_snapshot_published_before_the_viewer_started_still_reaches_it(ros_harness: RosHarness) -> None:
    from std_msgs.msg import String

    publisher = ros_harness.node("executive").create_publisher(String, "bt_executive/tree", tree_qos())
    publisher.publish(String(data="not json"))
    publisher.publish(String(data=encode_snapshot(SNAPSHOT)))  # transient-local: kept for late joiners
    feed = LiveFeed()
    bridge = TopicBridge(ros_harness.node("viewer"), feed, f"{ros_harness.namespace}/bt_executive/tree")
    ros_harness.start()
    ros_harness.wait_until(lambda: feed.latest is not None, what="the snapshot reaching the feed")
    assert (json.loads(feed.latest or "{}")["behaviours"]["a"]["name"], bridge.rejected) == ("Task", 0)


def test_a_message_that_is_not_a_snapshot_is_rejected(ros_harness: RosHarness) -> None:
    from std_msgs.msg import String

    publisher = ros_harness.node("executive").create_publisher(String, "bt_executive/tree", tree_qos())
    feed = LiveFeed()
    bridge = TopicBridge(ros_harness.node("viewer"), feed, f"{ros_harness.namespace}/bt_executive/tree")
    ros_harness.start()
    ros_harness.wait_until(lambda: publisher.get_subscription_count() > 0, what="discovery")
    publisher.publish(String(data='{"behaviours": {}}'))
    ros_harness.wait_until(lambda: bridge.rejected == 1, what="the bad message being rejected")
    assert feed.latest is None

"""From the executive's ~/tree topic to pixels: a real executive, a real viewer, a real browser.

The executive node publishes snapshots while it runs a task against the fake
skill server; the viewer's topic bridge feeds them to the page by
server-sent events; headless Chromium renders them with py_trees_js.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bt_executive.executive.viewer.live_feed import LiveFeed
from bt_executive.executive.viewer.server import LiveSource, ViewerServer
from bt_executive.executive.viewer.topic_bridge import TopicBridge
from bt_executive.llm.plan import Plan
from bt_executive.testing import Outcome
from tests.executive.conftest import PICK, PLACE, Rig, start
from tests.viewer.chromium import HeadlessChromium, chromium_path

pytestmark = [
    pytest.mark.ros,
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed (make system-deps)"),
]
NAMES = "[...document.querySelectorAll('#canvas .html-name')].map(e => e.textContent)"


def test_a_running_executives_tree_is_drawn_live_in_the_browser(make_rig: Any, tmp_path: Path) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK, PLACE)))
    rig.server.serve("skills/pick", Outcome(delay_s=0.5))
    rig.server.serve("skills/place_on", Outcome(delay_s=0.2))
    feed = LiveFeed()
    TopicBridge(rig.harness.node("viewer"), feed, f"{rig.harness.namespace}/bt_executive/tree")
    client = rig.client()
    start(rig, client)
    with ViewerServer(LiveSource(feed, rig.harness.namespace)) as server, HeadlessChromium.launch() as browser:
        browser.open(server.url)
        result = client.run("put the red cube on the plate", timeout_s=30)
        browser.wait_for(f"{NAMES}.includes('Step 2 · place_on(plate)')", timeout_s=15)
        browser.wait_for("document.getElementById('final').textContent == 'Final: done'", timeout_s=15)
        names = browser.evaluate(NAMES)
    assert (result.final_reason, {"Plan #0", "Step 1 · pick(red_cube)", "pick(red_cube)"} <= set(names)) == (
        "done",
        True,
    )

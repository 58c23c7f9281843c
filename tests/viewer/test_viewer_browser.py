"""The viewer in a real browser: headless Chromium renders the served page with py_trees_js.

Replay: a recorded run's page shows the tree's node names, the failure with
its kind, and moves with the timeline slider. Live: snapshots pushed into
the feed (and, with ROS, published on the tree topic) reach the page by
server-sent events. Screenshots go to ``$BT_EXECUTIVE_ARTIFACTS`` when set
(CI keeps them), else to the test's tmp_path.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bt_executive.executive.run_dir import RunReader
from bt_executive.executive.viewer.live_feed import LiveFeed
from bt_executive.executive.viewer.server import LiveSource, ReplaySource, ViewerServer
from bt_executive.skills.registry import SkillRegistry
from bt_executive.trees.snapshot import tree_snapshot
from tests.viewer.chromium import HeadlessChromium, chromium_path
from tests.viewer.conftest import retry_then_replan_tree, run_to_end

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed (make system-deps)"),
]
NAMES = "[...document.querySelectorAll('#canvas .html-name')].map(e => e.textContent)"


@pytest.fixture(scope="module")
def browser() -> Iterator[HeadlessChromium]:
    with HeadlessChromium.launch() as chromium:
        yield chromium


def artifact(tmp_path: Path, name: str) -> Path:
    folder = Path(os.environ.get("BT_EXECUTIVE_ARTIFACTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def test_the_page_keeps_the_canvas_a_direct_child_of_body(recorded_run: Path, browser: HeadlessChromium) -> None:
    with ViewerServer(ReplaySource(recorded_run)) as server:
        browser.open(server.url)
        browser.wait_for("document.body && document.body.getAttribute('data-ready')")
        assert browser.evaluate("document.getElementById('canvas').parentElement.tagName") == "BODY"


def test_a_replayed_run_shows_its_last_tree_with_node_names_and_failures(
    recorded_run: Path, browser: HeadlessChromium, tmp_path: Path
) -> None:
    with ViewerServer(ReplaySource(recorded_run)) as server:
        browser.open(server.url)
        browser.wait_for(f"{NAMES}.includes('Step 2 · place_on(plate)')")
        names = browser.evaluate(NAMES)
        failures = browser.evaluate("document.getElementById('failures').textContent")
        final = browser.evaluate("document.getElementById('final').textContent")
        browser.screenshot(artifact(tmp_path, "viewer_replay.png"))
    assert {'Task "put the red cube on the plate"', "Plan #1", "pick(green_cube)", "Replan after step 1"} <= set(names)
    assert ("pick(red_cube): not_found (scripted_not_found)" in failures, final) == (True, "Final: done")


def test_the_timeline_slider_moves_the_tree_and_the_event_log_together(
    recorded_run: Path, browser: HeadlessChromium
) -> None:
    snapshots = RunReader(recorded_run).snapshots()
    with ViewerServer(ReplaySource(recorded_run)) as server:
        browser.open(server.url)
        browser.wait_for("document.body && document.body.getAttribute('data-ready') == 'replay'")
        browser.evaluate("var s = document.getElementById('slider'); s.value = 1; s.dispatchEvent(new Event('input'))")
        browser.wait_for(f"!{NAMES}.includes('Plan #1')")
        highlighted = browser.evaluate("[...document.querySelectorAll('#events li.now')].map(e => e.textContent)")
        position = browser.evaluate("document.getElementById('position').textContent")
    assert position.startswith(f"snapshot 2/{len(snapshots)}")
    assert len(highlighted) == 1


def test_live_snapshots_reach_the_page_as_the_tree_changes(
    browser: HeadlessChromium, skill_registry: SkillRegistry, clean_blackboard: None, tmp_path: Path
) -> None:
    tree = retry_then_replan_tree(skill_registry)
    feed = LiveFeed()
    with ViewerServer(LiveSource(feed, "test")) as server:
        tree.tick_once()
        feed.publish(tree_snapshot(tree.root))
        browser.open(server.url)
        browser.wait_for(f"{NAMES}.includes('Plan task')")
        run_to_end(tree)
        feed.publish(json.dumps(tree_snapshot(tree.root)))
        browser.wait_for(f"{NAMES}.includes('Plan #1')")
        final = browser.evaluate("document.getElementById('final').textContent")
        browser.screenshot(artifact(tmp_path, "viewer_live.png"))
    assert final == "Final: done"

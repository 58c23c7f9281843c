"""A real run's frames in a real browser: beside the tree in the replay, inline in the report, live at 2 Hz.

The run is recorded by ``bt-executive demo`` (the MuJoCo sim, the executive
and its camera subscriptions as separate processes) with the first grasp
made to miss, once for the module. Headless Chromium then loads its replay
and its report. Layout is checked by layout boxes (``getBoundingClientRect``),
not pixels: no panel may overlap a node of the tree at the common window
sizes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bt_executive.executive.run_dir import RunReader, list_runs
from bt_executive.executive.run_report import write_report
from bt_executive.executive.viewer.live_feed import LiveFeed
from bt_executive.executive.viewer.live_frames import LiveFrames
from bt_executive.executive.viewer.server import LiveSource, ReplaySource, ViewerServer
from bt_executive.runtime.paths import config_dir
from tests.viewer.chromium import HeadlessChromium, chromium_path

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed (make system-deps)"),
]
WINDOWS = ((1280, 720), (1400, 900), (1920, 1080))
READY = "document.body && document.body.getAttribute('data-ready') == 'replay'"
# Every box of the tree (the SVG node shapes and their names), and every panel that must stay off them.
OVERLAPS = """(() => {
  const tree = [...document.querySelectorAll('#canvas g.joint-element, #canvas .html-name')]
    .map(e => e.getBoundingClientRect()).filter(r => r.width > 0 && r.height > 0);
  const panels = [...document.querySelectorAll('#header, #side, #controls, #frames')]
    .filter(e => getComputedStyle(e).display != 'none');
  const hits = [];
  for (const p of panels) {
    const a = p.getBoundingClientRect();
    for (const b of tree) {
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) hits.push(p.id);
    }
  }
  return {nodes: tree.length, hits: hits};
})()"""


@pytest.fixture(scope="module")
def missed_grasp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run: the demo with the first grasp missing (a retry, then done), recorded with its frames."""
    runs = tmp_path_factory.mktemp("runs")
    faults = config_dir() / "faults" / "first_grasp_misses.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "bt_executive.cli.main", "demo", "--run-dir", str(runs), "--faults", str(faults)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [run] = list_runs(runs)
    return run.path


@pytest.fixture(scope="module")
def browser() -> Iterator[HeadlessChromium]:
    with HeadlessChromium.launch() as chromium:
        yield chromium


def window(browser: HeadlessChromium, width: int, height: int) -> None:
    browser.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)


def slide_to(browser: HeadlessChromium, index: int) -> None:
    browser.evaluate(
        f"var s = document.getElementById('slider'); s.value = {index}; s.dispatchEvent(new Event('input'))"
    )


def nearest_files(run: Path, t: float) -> dict[str, str]:
    """Per camera, the file of the kept frame nearest in time to a snapshot taken at ``t`` (the run's clock)."""
    nearest: dict[str, Any] = {}
    for frame in RunReader(run).frames().frames:
        best = nearest.get(frame.record.camera)
        if best is None or abs(frame.record.run_t - t) < abs(best.record.run_t - t):
            nearest[frame.record.camera] = frame
    return {camera: frame.record.file for camera, frame in nearest.items()}


@pytest.mark.ros
@pytest.mark.sim
def test_stepping_through_a_replay_steps_through_the_frames_nearest_each_snapshot(
    missed_grasp_run: Path, browser: HeadlessChromium
) -> None:
    snapshots = RunReader(missed_grasp_run).snapshots()
    shown: list[dict[str, str]] = []
    expected = [nearest_files(missed_grasp_run, s.t) for s in snapshots]
    with ViewerServer(ReplaySource(missed_grasp_run)) as server:
        window(browser, 1400, 900)
        browser.open(server.url)
        browser.wait_for(READY)
        for index, record in enumerate(snapshots):
            slide_to(browser, index)
            browser.wait_for(f"document.body.getAttribute('data-frame-t') == '{record.t}'")
            browser.wait_for(
                "[...document.querySelectorAll('#frame-list img')].every(i => i.complete && i.naturalWidth)"
            )
            shown.append(
                browser.evaluate(
                    "Object.fromEntries([...document.querySelectorAll('#frame-list figure')]"
                    ".map(f => [f.dataset.camera, f.dataset.file]))"
                )
            )
    assert len({tuple(sorted(s.items())) for s in shown}) > 2  # the frames change as the snapshots do
    assert shown == expected


@pytest.mark.ros
@pytest.mark.sim
@pytest.mark.parametrize(("width", "height"), WINDOWS)
def test_no_panel_overlaps_the_tree_and_full_names_show_on_hover(
    missed_grasp_run: Path, browser: HeadlessChromium, width: int, height: int
) -> None:
    with ViewerServer(ReplaySource(missed_grasp_run)) as server:
        window(browser, width, height)
        browser.open(server.url)
        browser.wait_for(READY)
        browser.wait_for("document.querySelectorAll('#canvas .html-name[title]').length > 10")
        browser.wait_for("[...document.querySelectorAll('#frame-list img')].every(i => i.complete && i.naturalWidth)")
        layout = browser.evaluate(OVERLAPS)
        titles = browser.evaluate("[...document.querySelectorAll('#canvas .html-name')].map(e => e.title)")
    assert (layout["nodes"] > 10, layout["hits"]) == (True, [])
    assert 'Task "put the red cube on the green plate"' in titles


@pytest.mark.ros
@pytest.mark.sim
def test_the_report_opens_from_a_temporary_folder_offline_and_shows_the_missed_grasps_frame(
    missed_grasp_run: Path, browser: HeadlessChromium, tmp_path: Path
) -> None:
    report = tmp_path / "elsewhere" / "report.html"
    copy = shutil.copytree(missed_grasp_run, tmp_path / "run")
    write_report(RunReader(copy), report)
    shutil.rmtree(copy)  # nothing may be read from the run any more
    try:
        browser.call("Network.enable")
        browser.call(
            "Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1, uploadThroughput=-1
        )
        browser.open(report.as_uri())
        browser.wait_for("document.readyState == 'complete'")
        missed = browser.evaluate(
            "[...document.querySelectorAll('section.moment')].filter(s => s.textContent.includes('missed_grasp'))"
            ".map(s => [...s.querySelectorAll('img')].map(i => [i.naturalWidth, i.src.slice(0, 22)]))"
        )
        outcome = browser.evaluate("document.getElementById('final').textContent")
        requests = browser.evaluate("performance.getEntriesByType('resource').length")
    finally:
        browser.call(
            "Network.emulateNetworkConditions", offline=False, latency=0, downloadThroughput=-1, uploadThroughput=-1
        )
    assert missed[:1] == [[[224, "data:image/jpeg;base64"]] * 2]  # front and wrist, inline
    assert (outcome, requests) == ("done", 0)


def test_the_live_view_shows_the_newest_front_frame_at_most_twice_a_second(browser: HeadlessChromium) -> None:
    frames = LiveFrames(("front",))
    frames.put("front", np.full((224, 224, 3), 200, np.uint8), stamp=1.0)
    with ViewerServer(LiveSource(LiveFeed(), "test", frames)) as server:
        window(browser, 1280, 720)
        browser.open(server.url)
        browser.wait_for(
            "document.querySelector('#frame-list img') && document.querySelector('#frame-list img').naturalWidth"
        )
        for stamp in range(2, 40):  # a camera much faster than the page asks
            frames.put("front", np.full((224, 224, 3), stamp, np.uint8), stamp=float(stamp))
        browser.wait_for("Number(document.body.getAttribute('data-live-frames')) >= 4", timeout_s=10)
        caption = browser.evaluate("document.querySelector('#frame-list figcaption').textContent")
    assert caption.startswith("front · live")
    assert frames.encoded <= 3  # asked for twice a second, over ~2 s, whatever the camera's rate

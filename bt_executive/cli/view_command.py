"""``bt-executive view``: the tree viewer in a browser, live or replaying a recorded run.

::

    bt-executive view                                  # live: /bt_executive/tree of a running executive
    bt-executive view --topic /robot1/bt_executive/tree
    bt-executive view --run latest                     # replay the newest run (or a path / part of a name)

Live, the page also shows the robot's front camera at 2 Hz (``--camera-topic``;
by default ``camera/front/image_raw`` in the tree topic's namespace; ``""``: none).
Replay shows each camera's recorded frame nearest to the snapshot on screen.

Serves on 127.0.0.1 (``--port``, default 8765; 0 picks a free one) until Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from bt_executive.executive.tree_topic import DEFAULT_VIEW_TOPIC
from bt_executive.runtime.paths import default_runs_root

DEFAULT_PORT = 8765


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``view``."""
    view = commands.add_parser("view", help="serve the tree viewer: live from an executive, or replay a run")
    view.add_argument("--run", metavar="RUN", help="replay a run: its directory, part of its name, or 'latest'")
    view.add_argument("--root", type=Path, metavar="DIR", help=f"runs root for --run (default: {default_runs_root()})")
    view.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT})")
    view.add_argument(
        "--topic", default=DEFAULT_VIEW_TOPIC, help=f"live: the executive's tree topic (default {DEFAULT_VIEW_TOPIC})"
    )
    view.add_argument(
        "--camera-topic",
        default=None,
        metavar="TOPIC",
        help="live: the front camera shown beside the tree (default: camera/front/image_raw beside the tree "
        "topic's namespace; '' for none)",
    )
    view.set_defaults(func=run_view)


def run_view(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    if args.port < 0 or args.port > 65535:
        sys.stderr.write(f"error: --port {args.port}: must be 0..65535\n")
        return 2
    from bt_executive.executive.run_dir import resolve_run
    from bt_executive.executive.viewer.server import ReplaySource, ViewerServer

    if args.run is not None:
        source = ReplaySource(resolve_run(args.run, args.root))
        with ViewerServer(source, port=args.port) as server:
            print(f"replaying {source.run}\nviewer at {server.url}  (Ctrl-C to stop)", flush=True)
            return _wait()
    camera = args.camera_topic if args.camera_topic is not None else default_camera_topic(args.topic)
    return _serve_live(args.topic, args.port, camera)


def default_camera_topic(tree_topic: str) -> str:
    """``/robot1/bt_executive/tree`` -> ``/robot1/camera/front/image_raw`` (the sim's and the executive's default)."""
    namespace = tree_topic.rsplit("/", 2)[0] if tree_topic.count("/") >= 2 else ""
    return f"{namespace}/camera/front/image_raw"


def _serve_live(topic: str, port: int, camera_topic: str) -> int:
    from bt_executive.executive.viewer.live_feed import LiveFeed
    from bt_executive.executive.viewer.live_frames import LiveFrames
    from bt_executive.executive.viewer.server import LiveSource, ViewerServer
    from bt_executive.executive.viewer.topic_bridge import LiveTopic

    feed = LiveFeed()
    frames = LiveFrames(("front",)) if camera_topic else None
    domain = int(os.environ.get("ROS_DOMAIN_ID", "0") or 0)
    with (
        ViewerServer(LiveSource(feed, topic, frames), port=port) as server,
        LiveTopic(feed, topic, domain_id=domain, frames=frames, camera_topic=camera_topic),
    ):
        print(f"live from {topic} (ROS domain {domain})\nviewer at {server.url}  (Ctrl-C to stop)", flush=True)
        return _wait()


def _wait() -> int:
    """Until Ctrl-C or SIGTERM; then the callers' ``with`` blocks close the server and ROS in order."""
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    print("stopped", flush=True)
    return 0

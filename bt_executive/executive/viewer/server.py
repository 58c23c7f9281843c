"""ViewerServer: the viewer's HTTP server on 127.0.0.1 (standard library only).

=====================  =======================================================
``/``                  the page (``static/index.html``)
``/static/<file>``     the page's own script and style
``/assets/<path>``     py_trees_js and its dependencies, from the rcc module
``/api/mode``          ``{"mode": "live"|"replay", ...}``
``/api/run``           replay: info, summary, events, snapshots and frames of the run
``/api/frames/<name>`` replay: one of the run's frames (``frames/NNNN-camera.jpg``)
``/api/stream``        live: server-sent events, one ``snapshot`` per change
``/api/live/<camera>`` live: the camera's newest frame (JPEG, re-encoded at most at 2 Hz)
=====================  =======================================================

It binds to loopback only: the viewer shows a robot's task and has no
authentication. Each connection gets a thread; a live stream ends when the
browser goes away or the server stops.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

from bt_executive.executive.run_dir import RunReader
from bt_executive.executive.run_frames import FRAMES_DIR
from bt_executive.executive.viewer.assets import py_trees_js_assets
from bt_executive.executive.viewer.live_feed import LiveFeed
from bt_executive.executive.viewer.live_frames import LiveFrames

HOST = "127.0.0.1"
KEEPALIVE_S = 10.0
_STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css"}


@dataclass(frozen=True)
class ReplaySource:
    """Serve a recorded run."""

    run: Path


@dataclass(frozen=True)
class LiveSource:
    """Serve whatever ``feed`` receives, labelled with where it comes from."""

    feed: LiveFeed
    label: str = "live"
    frames: LiveFrames | None = None
    """The cameras' newest frames, if the viewer subscribes to a camera (``view --camera-topic``)."""


class ViewerServer:
    """Serves the viewer for one source until ``close``; ``url`` is where to point a browser."""

    def __init__(self, source: ReplaySource | LiveSource, *, port: int = 0, host: str = HOST) -> None:
        self.source = source
        self.host = host
        self.assets = py_trees_js_assets()  # fail now, with the install hint, not on the first request
        self.stopping = threading.Event()
        if isinstance(source, ReplaySource):
            RunReader(source.run)  # a wrong --run is an error before the server starts
        handler = type("Handler", (_Handler,), {"viewer": self})
        self.httpd = _QuietServer((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound port (useful with ``port=0``)."""
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>/``."""
        return f"http://{self.host}:{self.port}/"

    def start(self) -> ViewerServer:
        """Serve on a background thread."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="viewer-http", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve on this thread until interrupted."""
        self.httpd.serve_forever()

    def close(self) -> None:
        """Stop serving: live streams end, the socket closes."""
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ViewerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # what the API answers ---------------------------------------------------------------------------

    def mode(self) -> dict[str, Any]:
        """``/api/mode``."""
        if isinstance(self.source, ReplaySource):
            return {"mode": "replay", "run": str(self.source.run)}
        cameras = list(self.source.frames.cameras) if self.source.frames is not None else []
        return {"mode": "live", "source": self.source.label, "cameras": cameras}

    def run_data(self) -> dict[str, Any]:
        """``/api/run``: the whole recorded run (snapshots are small; a long task has a few hundred)."""
        if not isinstance(self.source, ReplaySource):
            return {"error": "not replaying a run"}
        reader = RunReader(self.source.run)
        outcome = reader.outcome()
        return {
            "info": reader.info().model_dump(mode="json"),
            "summary": reader.summary().model_dump(mode="json"),
            "events": [e.model_dump(mode="json") for e in reader.events()],
            "snapshots": [s.model_dump(mode="json") for s in reader.snapshots()],
            "outcome": outcome.model_dump(mode="json") if outcome is not None else None,
            "frames": [
                {"t": f.t, "plan": f.plan, "step": f.step, "url": f"/api/{f.record.file}", **f.record.model_dump()}
                for f in reader.frames().frames
            ],
        }

    def run_frame(self, name: str) -> bytes | None:
        """``/api/frames/<name>``: a frame file of the replayed run, or None (a name outside frames/ included)."""
        if not isinstance(self.source, ReplaySource) or "/" in name or not name.endswith(".jpg"):
            return None
        path = self.source.run / FRAMES_DIR / name
        return path.read_bytes() if path.is_file() else None


class _QuietServer(ThreadingHTTPServer):
    """Browsers drop idle keep-alive connections all the time: that is not an error worth a traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Print tracebacks for real errors only."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    viewer: ViewerServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a page load is a dozen requests."""

    def do_GET(self) -> None:
        """Route one request."""
        path = self.path.split("?", 1)[0]
        try:
            if path in ("/", "/index.html"):
                self._static("index.html")
            elif path.startswith("/static/"):
                self._static(path.removeprefix("/static/"))
            elif path.startswith("/assets/"):
                self._asset(path.removeprefix("/assets/"))
            elif path == "/api/mode":
                self._json(self.viewer.mode())
            elif path == "/api/run":
                self._json(self.viewer.run_data())
            elif path.startswith(f"/api/{FRAMES_DIR}/"):
                self._frame(self.viewer.run_frame(path.removeprefix(f"/api/{FRAMES_DIR}/")))
            elif path.startswith("/api/live/"):
                self._live_frame(path.removeprefix("/api/live/"))
            elif path == "/api/stream":
                self._stream()
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
        except (BrokenPipeError, ConnectionResetError):
            return
        except (ValueError, FileNotFoundError) as err:  # a damaged run: say which file, do not crash
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, f"{err}\n".encode(), "text/plain")

    def _static(self, name: str) -> None:
        suffix = Path(name).suffix
        if "/" in name or suffix not in _STATIC_TYPES:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
            return
        resource = resources.files("bt_executive.executive.viewer").joinpath("static", name)
        if not resource.is_file():
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
            return
        self._send(HTTPStatus.OK, resource.read_bytes(), _STATIC_TYPES[suffix])

    def _asset(self, name: str) -> None:
        body = self.viewer.assets.get(name)
        if body is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
            return
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        self._send(HTTPStatus.OK, body, kind, cache=True)

    def _frame(self, body: bytes | None, stamp: float | None = None) -> None:
        if body is None:
            self._send(HTTPStatus.NOT_FOUND, b"no such frame\n", "text/plain")
            return
        self._send(HTTPStatus.OK, body, "image/jpeg", headers={"X-Frame-Stamp": str(stamp)} if stamp else None)

    def _live_frame(self, camera: str) -> None:
        source = self.viewer.source
        frames = source.frames if isinstance(source, LiveSource) else None
        jpeg = frames.jpeg(camera) if frames is not None else None
        self._frame(jpeg.data if jpeg else None, jpeg.stamp if jpeg else None)

    def _json(self, data: Any) -> None:
        self._send(HTTPStatus.OK, json.dumps(data).encode(), "application/json")

    def _send(
        self, status: HTTPStatus, body: bytes, kind: str, *, cache: bool = False, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600" if cache else "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _stream(self) -> None:
        """Server-sent events: each snapshot as one ``snapshot`` event; a comment now and then keeps it open."""
        source = self.viewer.source
        if not isinstance(source, LiveSource):
            self._send(HTTPStatus.NOT_FOUND, b"not live\n", "text/plain")
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        subscriber = source.feed.subscribe()
        try:
            self.wfile.write(b": connected\n\n")
            self.wfile.flush()
            last_write = time.monotonic()
            while not self.viewer.stopping.is_set():
                try:
                    text = subscriber.get(timeout=0.5)
                except queue.Empty:
                    if time.monotonic() - last_write > KEEPALIVE_S:  # finds browsers that went away
                        self.wfile.write(b": keepalive\n\n")
                        self.wfile.flush()
                        last_write = time.monotonic()
                    continue
                last_write = time.monotonic()
                self.wfile.write(b"event: snapshot\ndata: " + text.encode() + b"\n\n")
                self.wfile.flush()
        finally:
            source.feed.unsubscribe(subscriber)

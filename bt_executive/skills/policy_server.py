"""PolicyServer: serve one ``Policy`` over openpi's websocket protocol on loopback.

What a client sees, as with openpi's ``websocket_policy_server.py``:

- on connect, one binary frame: the policy's metadata (packed with ``msgpack_numpy``);
- per binary frame received (a packed observation dict), one binary frame
  back: ``{"actions": (T, D) array, "server_timing": {"infer_ms": ...,
  "prev_total_ms": ...}}``;
- when the policy (or decoding the observation) raises: one *text* frame with
  the traceback, then a close with code 1011 (internal error);
- ``GET /healthz`` answers 200 ``OK`` without a websocket handshake.

Each connection is an episode: the server calls ``policy.reset("")`` when a
client connects (the prompt travels with every observation). Requests are
served one at a time on the server's event loop, as openpi does: a policy is
one model on one accelerator.

``PolicyServer.start()`` runs it on a background thread (tests, benchmarks);
``serve_forever()`` runs it on the calling thread (``bt-executive policy-server``).
"""

from __future__ import annotations

import asyncio
import http
import logging
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response

from bt_executive.skills import msgpack_numpy
from bt_executive.skills.policy import Policy, PolicyObservation

_log = logging.getLogger(__name__)


def _health_check(connection: ServerConnection, request: Request) -> Response | None:
    """``GET /healthz`` -> 200 OK; any other path goes on to the websocket handshake."""
    if request.path == "/healthz":
        return connection.respond(http.HTTPStatus.OK, "OK\n")
    return None


class PolicyServer:
    """One policy behind a websocket on ``host:port`` (port 0: the OS picks one; read ``port`` after start)."""

    def __init__(self, policy: Policy, host: str = "127.0.0.1", port: int = 0) -> None:
        self.policy = policy
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        """``ws://host:port``, the endpoint a manifest or ``PolicyClient`` names."""
        return f"ws://{self.host}:{self.port}"

    def serve_forever(self, on_ready: Callable[[PolicyServer], None] | None = None) -> None:
        """Serve on this thread until ``stop()``; ``on_ready`` runs once the socket listens."""
        asyncio.run(self._serve(on_ready))

    def start(self, timeout_s: float = 10.0) -> PolicyServer:
        """Serve on a background thread; returns once the socket listens (``port`` is then known)."""

        def run() -> None:
            try:
                self.serve_forever()
            except BaseException as err:  # reported to start()'s caller
                self._error = err
                self._ready.set()

        self._thread = threading.Thread(target=run, name=f"policy-server:{self.port}", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise TimeoutError(f"the policy server did not start within {timeout_s} s")
        if self._error is not None:
            raise RuntimeError(f"the policy server failed to start: {self._error}") from self._error
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop serving (from any thread) and wait for the server thread, if ``start`` made one."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(timeout_s)

    def __enter__(self) -> PolicyServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    async def _serve(self, on_ready: Callable[[PolicyServer], None] | None) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with serve(
            self._handle,
            self.host,
            self.port,
            compression=None,
            max_size=None,
            process_request=_health_check,
        ) as server:
            self.port = int(next(iter(server.sockets)).getsockname()[1])
            self._ready.set()
            if on_ready is not None:
                on_ready(self)
            await self._stop.wait()

    async def _handle(self, websocket: ServerConnection) -> None:
        packer = msgpack_numpy.Packer()
        self.policy.reset("")
        await websocket.send(packer.pack(dict(self.policy.metadata)))
        previous_total_s: float | None = None
        while True:
            try:
                message = await websocket.recv()
            except ConnectionClosed:
                return
            started = time.monotonic()
            try:
                if not isinstance(message, bytes):
                    raise TypeError("an observation is a binary msgpack frame, not text")
                observation = PolicyObservation.from_wire(msgpack_numpy.unpackb(message))
                infer_started = time.monotonic()
                actions = np.asarray(self.policy.infer(observation))
                timing: dict[str, Any] = {"infer_ms": (time.monotonic() - infer_started) * 1e3}
                if previous_total_s is not None:
                    timing["prev_total_ms"] = previous_total_s * 1e3
                await websocket.send(packer.pack({"actions": actions, "server_timing": timing}))
            except ConnectionClosed:
                return
            except Exception:
                # The client gets the traceback, as openpi does, so a remote failure is debuggable.
                text = traceback.format_exc()
                _log.warning("policy raised; closing the connection:\n%s", text)
                try:
                    await websocket.send(text)
                    await websocket.close(
                        CloseCode.INTERNAL_ERROR, "Internal server error. Traceback in previous frame."
                    )
                except ConnectionClosed:
                    pass
                return
            previous_total_s = time.monotonic() - started

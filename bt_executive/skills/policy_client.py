"""PolicyClient: a ``Policy`` on the far side of an openpi websocket.

The protocol (openpi's ``websocket_client_policy.py``): connect, receive one
binary frame of server metadata, then for each observation send one packed
dict and receive one packed ``{"actions": (T, D) array, "server_timing":
{...}}``. A *text* frame from the server is the traceback of an exception in
its policy (the server closes right after). Frames are msgpack with numpy
arrays (``msgpack_numpy``), uncompressed, without a size limit.

Every failure surfaces as ``PolicyError`` with a ``reason`` the VLA leaf
reports: ``server_unavailable`` (cannot connect), ``server_error`` (a
traceback came back; ``detail`` holds its text), ``connection_dropped`` (the
socket closed or died mid-request), ``infer_timeout``, ``bad_response``.

openpi's protocol has no reset message: ``reset`` only remembers the prompt;
the bt-executive policy server treats each connection as a new episode.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import ClientConnection, connect

from bt_executive.skills import msgpack_numpy
from bt_executive.skills.policy import ActionChunk, PolicyError, PolicyObservation


class PolicyClient:
    """The openpi websocket client as a ``Policy``: connects on construction, one request at a time."""

    def __init__(
        self,
        endpoint: str,
        *,
        connect_timeout_s: float = 5.0,
        infer_timeout_s: float | None = 30.0,
    ) -> None:
        self.endpoint = endpoint
        self.infer_timeout_s = infer_timeout_s
        self.prompt = ""
        self.server_timing: dict[str, Any] = {}
        """The server's timing of the latest request (``infer_ms``, ...)."""
        self.round_trip_s = 0.0
        """Wall time of the latest request, pack to unpack."""
        self._packer = msgpack_numpy.Packer()
        try:
            self._ws: ClientConnection = connect(
                endpoint,
                compression=None,
                max_size=None,
                open_timeout=connect_timeout_s,
                close_timeout=1.0,
                legacy=True,  # a connection the client owns beyond one with-block (websockets >= 16)
            )
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as err:
            raise PolicyError(
                f"cannot connect to the policy server {endpoint}: {err}", reason="server_unavailable"
            ) from err
        try:
            first = self._ws.recv(timeout=connect_timeout_s)
        except (ConnectionClosed, TimeoutError) as err:
            self.abort()
            raise PolicyError(f"{endpoint} sent no metadata: {err}", reason="server_unavailable") from err
        metadata = msgpack_numpy.unpackb(first) if isinstance(first, bytes) else None
        if not isinstance(metadata, dict):
            self.abort()
            raise PolicyError(f"{endpoint} sent {type(first).__name__} metadata, not a map", reason="bad_response")
        self._metadata: dict[str, Any] = metadata

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The metadata frame the server sent on connect."""
        return self._metadata

    def reset(self, prompt: str) -> None:
        """Remember the prompt (the openpi protocol has no reset; the prompt travels with each observation)."""
        self.prompt = prompt

    def infer(self, observation: PolicyObservation) -> ActionChunk:
        """Send one observation and wait for its chunk (``PolicyError`` on any failure)."""
        started = time.perf_counter()
        try:
            self._ws.send(self._packer.pack(observation.to_wire()))
            reply = self._ws.recv(timeout=self.infer_timeout_s)
        except ConnectionClosed as err:
            raise PolicyError(f"the connection to {self.endpoint} dropped: {err}", reason="connection_dropped") from err
        except TimeoutError as err:
            raise PolicyError(
                f"{self.endpoint} sent no actions within {self.infer_timeout_s} s", reason="infer_timeout"
            ) from err
        except OSError as err:
            raise PolicyError(f"the connection to {self.endpoint} failed: {err}", reason="connection_dropped") from err
        if isinstance(reply, str):
            raise PolicyError(f"the policy server {self.endpoint} raised", reason="server_error", detail=reply)
        response = msgpack_numpy.unpackb(reply)
        self.round_trip_s = time.perf_counter() - started
        if not isinstance(response, dict) or not isinstance(response.get("actions"), np.ndarray):
            raise PolicyError(f"{self.endpoint} answered without an actions array", reason="bad_response")
        timing = response.get("server_timing")
        self.server_timing = dict(timing) if isinstance(timing, dict) else {}
        actions: ActionChunk = response["actions"]
        return actions

    def close(self) -> None:
        """Close the connection politely (waits up to 1 s for the server's close frame)."""
        self._ws.close()

    def abort(self) -> None:
        """Drop the connection at once, from any thread: a request in flight fails with ``connection_dropped``."""
        with contextlib.suppress(OSError):  # already closed
            self._ws.socket.shutdown(socket.SHUT_RDWR)

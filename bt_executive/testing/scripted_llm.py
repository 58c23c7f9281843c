"""A scripted language model: a real HTTP server on 127.0.0.1 speaking OpenAI chat completions.

Tests of a planner should go through litellm itself, over a socket, rather
than patch it. This server answers ``POST /v1/chat/completions`` with the
replies a test queued, in order: tool calls, JSON or prose content, an HTTP
error, a reset connection, or any of those after a delay (to run past a
client's timeout). It
records every request (path, headers, JSON body) so a test can assert on
the prompt, the tools, ``response_format`` and image parts the model was
sent. With nothing left in the queue it answers 500, so a planner that asks
once too often fails loudly, unless it was given a ``fallback_url``: then it
forwards the request to that server (a real model), which lets a test script
a bad first answer and watch the real model repair it::

    with ScriptedLLMServer() as llm:
        llm.queue(ScriptedReply.tool_calls(("tabletop__pick", {"object": "red_cube"})))
        planner = LLMPlanner(profile.model_copy(update={"api_base": llm.base_url}), ...)
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import urllib.error
import urllib.request
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.runtime.local_server import LocalServer

COMPLETIONS_PATH = "/v1/chat/completions"


class ScriptedReply(BaseModel):
    """One queued answer: an HTTP status and a JSON body (or raw text), sent after ``delay_s``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: int = 200
    message: dict[str, Any] | None = Field(default=None, description="the assistant message of a 200 reply")
    raw: str | None = Field(default=None, description="a body sent verbatim instead of a completion")
    delay_s: float = 0.0
    reset: bool = Field(default=False, description="drop the connection (TCP reset) instead of answering")

    @classmethod
    def tool_calls(cls, *calls: tuple[str, dict[str, Any] | str], content: str | None = None) -> ScriptedReply:
        """Tool calls ``(name, arguments)``; arguments given as a string are sent as-is (malformed JSON too)."""
        listed = [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for index, (name, args) in enumerate(calls)
        ]
        return cls(message={"role": "assistant", "content": content, "tool_calls": listed})

    @classmethod
    def content(cls, text: str) -> ScriptedReply:
        """Plain assistant content: prose, DONE, or a JSON plan as text."""
        return cls(message={"role": "assistant", "content": text})

    @classmethod
    def json_plan(cls, plan: Any) -> ScriptedReply:
        """Content holding ``plan`` serialised as JSON (structured mode)."""
        return cls.content(json.dumps(plan))

    @classmethod
    def error(cls, status: int, text: str = "scripted failure") -> ScriptedReply:
        """An HTTP error with an OpenAI-style error body."""
        return cls(status=status, raw=json.dumps({"error": {"message": text, "type": "server_error", "code": status}}))

    @classmethod
    def connection_reset(cls) -> ScriptedReply:
        """No answer: the server resets the connection, as a crashing or overloaded proxy does."""
        return cls(reset=True)

    def delayed(self, seconds: float) -> ScriptedReply:
        """The same reply, sent only after ``seconds``."""
        return self.model_copy(update={"delay_s": seconds})


class RecordedRequest(BaseModel):
    """One request as the server received it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    def texts(self) -> list[str]:
        """Every text the model was shown, message by message (text parts of mixed content included)."""
        found: list[str] = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                found.append(content)
            elif isinstance(content, list):
                found += [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return found

    def image_urls(self) -> list[str]:
        """The URLs of every image part in the request's messages."""
        return [
            part["image_url"]["url"]
            for message in self.body.get("messages", [])
            if isinstance(message.get("content"), list)
            for part in message["content"]
            if isinstance(part, dict) and part.get("type") == "image_url"
        ]


def _completion(reply: ScriptedReply, model: str, number: int) -> dict[str, Any]:
    message = reply.message or {"role": "assistant", "content": ""}
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _forward(url: str, body: dict[str, Any]) -> ScriptedReply:
    """Ask the fallback server and pass its answer through verbatim."""
    request = urllib.request.Request(  # noqa: S310 (the URL is the test's own loopback server)
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
            return ScriptedReply(status=response.status, raw=response.read().decode())
    except urllib.error.HTTPError as err:
        return ScriptedReply(status=err.code, raw=err.read().decode())


class ScriptedLLMServer(LocalServer):
    """The scripted server: ``queue`` replies, ``start()`` it, read ``requests`` after."""

    def __init__(self, fallback_url: str | None = None) -> None:
        self.fallback_url = fallback_url.rstrip("/") if fallback_url else None
        self.requests: list[RecordedRequest] = []
        self._replies: deque[ScriptedReply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The ``/v1`` base URL to give litellm as ``api_base``."""
        if self._httpd is None:
            raise RuntimeError("the scripted LLM server is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def queue(self, *replies: ScriptedReply) -> None:
        """Add replies, answered in order, one per request."""
        with self._lock:
            self._replies.extend(replies)

    def pending(self) -> int:
        """How many queued replies no request has taken yet."""
        with self._lock:
            return len(self._replies)

    def _next(self, request: RecordedRequest) -> tuple[ScriptedReply | None, int]:
        with self._lock:
            self.requests.append(request)
            return (self._replies.popleft() if self._replies else None), len(self.requests)

    def start(self) -> str:
        """Listen on an ephemeral port of 127.0.0.1; returns the base URL."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return  # quiet: tests read ``requests`` instead

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                recorded = RecordedRequest(path=self.path, headers=dict(self.headers.items()), body=body)
                reply, number = server._next(recorded)
                if self.path.rstrip("/") != COMPLETIONS_PATH:
                    reply = ScriptedReply.error(404, f"no route {self.path}")
                elif reply is None and server.fallback_url:
                    reply = _forward(f"{server.fallback_url}/chat/completions", body)
                elif reply is None:
                    reply = ScriptedReply.error(500, "the scripted LLM server has no reply left")
                if reply.delay_s and server._stopping.wait(reply.delay_s):
                    return
                if reply.reset:  # SO_LINGER 0: close() sends RST, the client reads "connection reset by peer"
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                payload = (
                    reply.raw
                    if reply.raw is not None
                    else json.dumps(_completion(reply, body.get("model", ""), number))
                )
                data = payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving; delayed replies still waiting are dropped."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

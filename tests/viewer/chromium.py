"""Headless Chromium driven over the DevTools protocol: load a page, wait for a condition, read the DOM.

::

    with HeadlessChromium.launch() as browser:
        browser.open(url)
        browser.wait_for("document.querySelectorAll('.html-name').length > 3")
        names = browser.evaluate("[...document.querySelectorAll('.html-name')].map(e => e.textContent)")
        browser.screenshot(path)

Debian's ``chromium`` (the Makefile installs it) with the flags NOTES.md
lists; the DevTools port is chosen by Chromium (``--remote-debugging-port=0``)
and read from ``DevToolsActivePort`` in its profile directory. The socket
client is ``websockets``' synchronous one. Everything stays on 127.0.0.1.
"""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from websockets.sync.client import ClientConnection, connect

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1400,900",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
)


def chromium_path() -> str | None:
    """Debian's chromium, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class HeadlessChromium:
    """One headless browser with one page, for one test."""

    def __init__(self, process: subprocess.Popen[bytes], profile: tempfile.TemporaryDirectory[str], ws_url: str):
        self.process = process
        self.profile = profile
        self.socket: ClientConnection = connect(ws_url, max_size=64 * 1024 * 1024, open_timeout=10, legacy=True)
        self._ids = itertools.count(1)
        self.console: list[str] = []
        self.call("Page.enable")
        self.call("Runtime.enable")

    @classmethod
    def launch(cls, timeout_s: float = 20.0) -> Self:
        """Start chromium and attach to its first page."""
        executable = chromium_path()
        if executable is None:
            raise FileNotFoundError("chromium is not installed (make system-deps installs it)")
        profile = tempfile.TemporaryDirectory(prefix="bt_viewer_chromium_", ignore_cleanup_errors=True)
        process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile.name}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port = _devtools_port(Path(profile.name) / "DevToolsActivePort", process, timeout_s)
            ws_url = _page_socket(port, timeout_s)
            return cls(process, profile, ws_url)
        except BaseException:
            process.kill()
            process.wait(timeout=10)
            profile.cleanup()
            raise

    def call(self, method: str, timeout_s: float = 20.0, **params: Any) -> dict[str, Any]:
        """One DevTools command; its result (events in between are read and console messages kept)."""
        ident = next(self._ids)
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout_s
        while True:
            message = json.loads(self.socket.recv(timeout=max(0.01, deadline - time.monotonic())))
            if message.get("method") == "Runtime.consoleAPICalled":
                args = message["params"].get("args", [])
                self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
            elif message.get("method") == "Runtime.exceptionThrown":
                details = message["params"]["exceptionDetails"]
                self.console.append("exception: " + str(details.get("exception", {}).get("description", details)))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    def open(self, url: str) -> None:
        """Navigate the page to ``url``."""
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        reply = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression}: {reply['exceptionDetails'].get('text')}")
        return reply.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout_s: float = 15.0) -> Any:
        """Poll an expression until it is truthy; TimeoutError with the page's console otherwise."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                value = self.evaluate(expression)
            except RuntimeError:  # the page is still loading (no body yet, scripts not run)
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                tail = "\n".join(self.console[-15:])
                raise TimeoutError(f"{expression} still false after {timeout_s:g} s; console:\n{tail}")
            time.sleep(0.1)

    def screenshot(self, path: Path) -> Path:
        """Save the page as PNG."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """Close the socket, stop chromium, remove its profile."""
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
            self.profile.cleanup()  # chromium's helpers may still be writing: errors are ignored

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def _devtools_port(path: Path, process: subprocess.Popen[bytes], timeout_s: float) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"chromium exited with {process.returncode} before opening DevTools")
        if path.is_file():
            first = path.read_text().split("\n", 1)[0].strip()
            if first.isdigit():
                return int(first)
        time.sleep(0.05)
    raise TimeoutError(f"chromium wrote no {path.name} within {timeout_s:g} s")


def _page_socket(port: int, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as reply:
            targets = json.loads(reply.read())
        pages = [t for t in targets if t.get("type") == "page" and "webSocketDebuggerUrl" in t]
        if pages:
            return str(pages[0]["webSocketDebuggerUrl"])
        time.sleep(0.05)
    raise TimeoutError(f"chromium showed no page target within {timeout_s:g} s")

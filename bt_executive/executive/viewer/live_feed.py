"""LiveFeed: the latest tree snapshots, handed to every connected browser.

The topic subscription (or a test, or an in-process executive) calls
``publish``; each server-sent-events connection ``subscribe``s and gets the
current tree at once, then every new one. A slow browser never slows the
publisher: its queue is bounded and it loses the oldest snapshots first
(the viewer only needs the latest to be right).
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from typing import Any

QUEUE_LIMIT = 64


class LiveFeed:
    """Thread-safe fan-out of snapshots (as JSON text) to subscriber queues."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue[str]] = []
        self._latest: str | None = None
        self.published = 0

    @property
    def latest(self) -> str | None:
        """The last snapshot published, as JSON text."""
        return self._latest

    def publish(self, snapshot: dict[str, Any] | str) -> None:
        """Send one snapshot (a dict, or JSON text already) to every subscriber."""
        text = snapshot if isinstance(snapshot, str) else json.dumps(snapshot, separators=(",", ":"))
        with self._lock:
            self._latest = text
            self.published += 1
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            _put_dropping_oldest(subscriber, text)

    def subscribe(self) -> queue.Queue[str]:
        """A queue that gets the current snapshot (if any) now and every later one."""
        subscriber: queue.Queue[str] = queue.Queue(maxsize=QUEUE_LIMIT)
        with self._lock:
            self._subscribers.append(subscriber)
            if self._latest is not None:
                subscriber.put_nowait(self._latest)
        return subscriber

    def unsubscribe(self, subscriber: queue.Queue[str]) -> None:
        """Stop sending to ``subscriber``."""
        with self._lock:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)

    @property
    def subscribers(self) -> int:
        """How many browsers are connected."""
        with self._lock:
            return len(self._subscribers)


def _put_dropping_oldest(subscriber: queue.Queue[str], text: str) -> None:
    while True:
        try:
            subscriber.put_nowait(text)
            return
        except queue.Full:
            with contextlib.suppress(queue.Empty):
                subscriber.get_nowait()

"""A server this process runs on 127.0.0.1: ``start()`` answers its base URL, ``stop()`` ends it.

::

    with LocalModelServer(gguf) as server:   # start()
        ask(server.base_url)
                                             # stop(), however the block ends

The llama.cpp child (``llm/serving/local_model.py``) and the scripted test
server (``testing/scripted_llm.py``) are both one, so a caller holds either
the same way.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class LocalServer(ABC):
    """Started by ``start`` and stopped by ``stop``; as a context manager, both."""

    @abstractmethod
    def start(self) -> str:
        """Start serving; the base URL a client sends its requests to."""

    @abstractmethod
    def stop(self) -> None:
        """Stop serving and let go of what the server held (a child process, a port)."""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

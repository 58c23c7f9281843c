"""The local model a planner starts for its profile, and stops when the planner closes.

Both model planners (skill calls and rewrite) start the profile's llama.cpp
server on first use, unless something already answers at its ``api_base``,
and stop only the one they started. A closed owner starts none again: a
warm-up thread cut off by shutdown must not leave a server behind.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from bt_executive.llm.profiles import LLMProfile
from bt_executive.llm.serving.local_model import LocalModelError, LocalModelServer, is_serving, port_of

log = logging.getLogger(__name__)


class OwnedServer:
    """The profile's local server, started at most once, under ``lock`` (callers may hold it for more work)."""

    def __init__(self, profile: LLMProfile) -> None:
        self.profile = profile
        self.lock = threading.Lock()
        self.server: LocalModelServer | None = None
        self.closed = False

    def start(self, *, slot_dir: Path | None = None) -> LocalModelServer | None:
        """Start the profile's local model, with ``lock`` held; the server started now, else None (the profile
        has none, or a server answers already). LocalModelError when closed or when the start fails."""
        local, api_base = self.profile.local_server, self.profile.api_base
        if local is None or api_base is None:
            return None
        if self.closed:
            raise LocalModelError("the planner was closed")
        if self.server is not None or is_serving(api_base):
            return None
        server = LocalModelServer(local.gguf, port=port_of(api_base), context=local.context, slot_dir=slot_dir)
        try:
            server.start()
        except Exception as err:
            raise LocalModelError(f"could not start the local model: {err}") from None
        self.server = server
        log.info("started the local model for profile %s at %s", self.profile.name, server.base_url)
        return server

    def stop(self) -> None:
        """Stop the server started here, if any, with ``lock`` held; none is started afterwards."""
        self.closed = True
        if self.server is not None:
            self.server.stop()
            self.server = None

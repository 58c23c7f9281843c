"""Where the project keeps files it can always rebuild: world states, prompt caches of the local model.

``$BT_EXECUTIVE_CACHE``, else ``$XDG_CACHE_HOME/bt_executive`` (else
``~/.cache/bt_executive``). Every user of it treats a file it cannot read
or write as absent: a cache only ever saves time.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "BT_EXECUTIVE_CACHE"


def cache_dir() -> Path:
    """``$BT_EXECUTIVE_CACHE``, else ``$XDG_CACHE_HOME/bt_executive`` (``~/.cache/bt_executive``)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "bt_executive"

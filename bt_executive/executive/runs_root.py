"""Where run directories go by default: small on purpose, so a command's ``--help`` needs no run-dir machinery."""

from __future__ import annotations

import os
from pathlib import Path

RUNS_ENV = "BT_EXECUTIVE_RUNS"


def default_runs_root() -> Path:
    """``$BT_EXECUTIVE_RUNS``, else ``$XDG_STATE_HOME/bt_executive/runs`` (``~/.local/state/...``)."""
    explicit = os.environ.get(RUNS_ENV)
    if explicit:
        return Path(explicit).expanduser()
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "bt_executive" / "runs"

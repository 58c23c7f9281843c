"""Where the project's files live: its shipped config, its cache and its run directories.

- ``config_dir``: in a source checkout (``pip install -e .``) the YAML under
  ``config/`` is used in place; an installed package (pip or colcon) finds it
  under ``share/bt_executive/config`` of the prefix it was installed into,
  else of the workspaces on ``AMENT_PREFIX_PATH`` (the ament convention),
  else of the Python environment's prefix.
- ``cache_dir``: files the project can always rebuild (world states, prompt
  caches of the local model): ``$BT_EXECUTIVE_CACHE``, else
  ``$XDG_CACHE_HOME/bt_executive`` (``~/.cache/bt_executive``). Every user of
  it treats a file it cannot read or write as absent: a cache only saves time.
- ``default_runs_root``: run directories are state, not configuration or
  cache: ``$BT_EXECUTIVE_RUNS``, else ``$XDG_STATE_HOME/bt_executive/runs``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = "bt_executive"
CACHE_ENV = "BT_EXECUTIVE_CACHE"
RUNS_ENV = "BT_EXECUTIVE_RUNS"


def config_dir() -> Path:
    """The directory holding skills/, robots/, scenes/ and the executive's YAML."""
    here = Path(__file__).resolve()
    checkout = here.parents[2] / "config"
    if (checkout / "skills").is_dir():
        return checkout
    # <prefix>/lib/python3.X/site-packages/bt_executive/runtime/paths.py: this install's own share/ first.
    own_prefix = here.parents[5] if len(here.parents) > 5 else Path(sys.prefix)
    ament = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    for prefix in (own_prefix, *ament, Path(sys.prefix)):
        candidate = prefix / "share" / PACKAGE / "config"
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"cannot find {PACKAGE} config in {checkout} or any share/{PACKAGE}/config")


def cache_dir() -> Path:
    """``$BT_EXECUTIVE_CACHE``, else ``$XDG_CACHE_HOME/bt_executive`` (``~/.cache/bt_executive``)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / PACKAGE


def default_runs_root() -> Path:
    """``$BT_EXECUTIVE_RUNS``, else ``$XDG_STATE_HOME/bt_executive/runs`` (``~/.local/state/...``)."""
    explicit = os.environ.get(RUNS_ENV)
    if explicit:
        return Path(explicit).expanduser()
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / PACKAGE / "runs"

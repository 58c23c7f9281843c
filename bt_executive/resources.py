"""Where the project's shipped config lives, in a checkout and when installed.

In a source checkout (``pip install -e .``) the YAML under ``config/`` is
used in place; an installed package (pip or colcon) finds it under
``share/bt_executive/config`` of the prefix it was installed into, else of
the workspaces on ``AMENT_PREFIX_PATH`` (the ament convention), else of the
Python environment's prefix.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = "bt_executive"


def config_dir() -> Path:
    """The directory holding skills/, robots/, scenes/ and the executive's YAML."""
    here = Path(__file__).resolve()
    checkout = here.parents[1] / "config"
    if (checkout / "skills").is_dir():
        return checkout
    # <prefix>/lib/python3.X/site-packages/bt_executive/resources.py: this install's own share/ first.
    own_prefix = here.parents[4] if len(here.parents) > 4 else Path(sys.prefix)
    ament = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    for prefix in (own_prefix, *ament, Path(sys.prefix)):
        candidate = prefix / "share" / PACKAGE / "config"
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"cannot find {PACKAGE} config in {checkout} or any share/{PACKAGE}/config")


def default_skill_dirs() -> list[Path]:
    """The skill manifests shipped with the project."""
    return [config_dir() / "skills"]


def catalog_skill_dirs() -> list[Path]:
    """The shipped skills plus the fleet catalog (config/catalog): routing data, not the default robot."""
    return [*default_skill_dirs(), config_dir() / "catalog"]


def knowledge_dirs() -> list[Path]:
    """The shipped knowledge bundles (config/knowledge): site facts for the planner, never executed."""
    return [config_dir() / "knowledge"]

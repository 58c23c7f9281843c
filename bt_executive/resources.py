"""Where the project's shipped config lives, in a checkout and when installed.

In a source checkout (``pip install -e .``) the YAML under ``config/`` is
used in place; an installed package (pip or colcon) finds it under
``share/bt_executive/config`` of its prefix, the ament convention.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = "bt_executive"


def config_dir() -> Path:
    """The directory holding skills/, robots/, scenes/ and the executive's YAML."""
    checkout = Path(__file__).resolve().parents[1] / "config"
    if (checkout / "skills").is_dir():
        return checkout
    prefixes = [Path(sys.prefix), *(Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p)]
    for prefix in prefixes:
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

"""The shipped skill, catalog and knowledge directories (all under the config directory)."""

from __future__ import annotations

from pathlib import Path

from bt_executive.runtime.paths import config_dir


def default_skill_dirs() -> list[Path]:
    """The skill manifests shipped with the project."""
    return [config_dir() / "skills"]


def catalog_skill_dirs() -> list[Path]:
    """The shipped skills plus the fleet catalog (config/catalog): routing data, not the default robot."""
    return [*default_skill_dirs(), config_dir() / "catalog"]


def knowledge_dirs() -> list[Path]:
    """The shipped knowledge bundles (config/knowledge): site facts for the planner, never executed."""
    return [config_dir() / "knowledge"]

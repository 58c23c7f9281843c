"""Shared, session-wide routing inputs for the router tests: one embedder, the shipped catalog, the golden file.

Plain cached functions rather than fixtures, so every router test module
shares one MiniLM load and one vector cache whatever order pytest runs them in.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from bt_executive.llm.embedding.embedder import CachedEmbedder
from bt_executive.llm.embedding.minilm import MiniLmEmbedder
from bt_executive.llm.eval.routing_eval import GoldenRouting, load_golden
from bt_executive.llm.routing.route_item import RouteItem, route_items
from bt_executive.skills.dirs import catalog_skill_dirs, default_skill_dirs, knowledge_dirs
from bt_executive.skills.knowledge import KnowledgeSkill, discover_knowledge
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden" / "routing.yaml"


@functools.cache
def shared_embedder() -> CachedEmbedder:
    """One MiniLM with an in-memory vector cache for the whole test session."""
    return CachedEmbedder(MiniLmEmbedder())


@functools.cache
def tabletop_skills() -> tuple[SkillManifest, ...]:
    """The default robot's skills (config/skills)."""
    return tuple(SkillRegistry.discover(default_skill_dirs(), use_entry_points=False))


@functools.cache
def catalog_skills() -> tuple[SkillManifest | KnowledgeSkill, ...]:
    """Everything the golden file routes over: config/skills, config/catalog and the knowledge bundles."""
    tools = list(SkillRegistry.discover(catalog_skill_dirs(), use_entry_points=False))
    return (*tools, *discover_knowledge(knowledge_dirs()))


def catalog_items() -> list[RouteItem]:
    """The catalog as RouteItems."""
    return route_items(catalog_skills())


@functools.cache
def golden() -> GoldenRouting:
    """tests/golden/routing.yaml."""
    return load_golden(GOLDEN)


@functools.cache
def tabletop_tasks() -> tuple[tuple[str, frozenset[str]], ...]:
    """The planner benchmark's 32 tabletop tasks, each with the skills its first expected plan uses."""
    sys.path.insert(0, str(REPO))
    try:
        from benchmarks.llm_levers import TASKS
    finally:
        sys.path.remove(str(REPO))
    return tuple((task, frozenset(skill for skill, _ in plans[0])) for task, plans in TASKS)

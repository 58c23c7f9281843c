"""Planners as plugins: every planner kind, ours included, is found through one entry-point group.

A distribution adds a planner kind by naming a factory in its packaging::

    [project.entry-points."bt_executive.planners"]
    my_planner = "my_package.planning:make_planner"

and a profile of ``config/llm.yaml`` (or the user's own file) says ``planner: my_planner``.
The factory is called with a ``PlannerRequest`` and returns anything with
``plan(task, world_state, prior_attempts)``; the optional abilities it may
also have are named in ``plan.py`` (``ContextPlanner``, ``WarmablePlanner``,
``ClosablePlanner``). ``stub``, ``auto`` and ``litellm`` register the same way
in our own ``setup.py``. Entry points are read, never imported, until a
profile of that kind is built.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bt_executive.llm.plan import Plan, Planner, PlannerError

if TYPE_CHECKING:
    from bt_executive.llm.profiles import LLMProfile
    from bt_executive.skills.capabilities import RobotCapabilities
    from bt_executive.skills.registry import SkillRegistry
    from bt_executive.skills.world_state import WorldState

PLANNER_GROUP = "bt_executive.planners"


@dataclass(frozen=True)
class PlannerRequest:
    """Everything a planner factory may use to build the planner a profile names."""

    profile: LLMProfile
    registry: SkillRegistry
    robot: RobotCapabilities | None = None
    llm_config: Path | None = None
    """The profiles file the profile came from (None: the shipped config/llm.yaml)."""
    frame_source: Callable[[], Any] | None = None
    """The newest front-camera frame, for a planner that looks (a ``vision`` profile)."""
    build: Callable[[str], Planner] | None = None
    """Build another profile's planner by name (``auto``'s fallback), lazily, as the caller would."""
    plan_gate: Callable[[Plan, WorldState], object] | None = None
    """The caller's check that a plan can run (raises PlannerRefused): a model planner repairs against it."""


PlannerFactory = Callable[[PlannerRequest], Planner]


class UnknownPlannerKind(PlannerError):
    """A profile names a planner kind no installed distribution registers."""


def planner_kinds() -> tuple[str, ...]:
    """The planner kinds installed distributions register, sorted."""
    return tuple(sorted({ep.name for ep in importlib.metadata.entry_points(group=PLANNER_GROUP)}))


def planner_factory(kind: str) -> PlannerFactory:
    """The factory registered for ``kind``; UnknownPlannerKind naming the kinds there are."""
    found = sorted(importlib.metadata.entry_points(group=PLANNER_GROUP, name=kind), key=lambda ep: ep.value)
    if not found:
        known = ", ".join(planner_kinds()) or "none (is bt_executive installed? `pip install -e .`)"
        raise UnknownPlannerKind(f"no planner kind {kind!r} is installed; kinds: {known}")
    factory = found[0].load()
    if not callable(factory):
        raise UnknownPlannerKind(f"planner kind {kind!r} ({found[0].value}) is not callable")
    return factory  # type: ignore[no-any-return]

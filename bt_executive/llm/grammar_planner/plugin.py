"""The grammar planner's two planner kinds, registered in setup.py like any third party's."""

from __future__ import annotations

from bt_executive.llm.plan import Planner
from bt_executive.llm.plugins import PlannerRequest


def stub(request: PlannerRequest) -> Planner:
    """``planner: stub``: the grammar planner alone, no model."""
    from bt_executive.llm.grammar_planner.planner import GrammarPlanner

    return GrammarPlanner(request.registry)


def auto(request: PlannerRequest) -> Planner:
    """``planner: auto``: the grammar first, the ``fallback`` profile for what it cannot parse (built on need)."""
    from bt_executive.llm.grammar_planner.auto_planner import AutoPlanner

    fallback, build = request.profile.fallback, request.build
    if fallback is None or build is None:
        return AutoPlanner(request.registry)
    # The model is built (litellm imported, its server started) only when a task needs it.
    return AutoPlanner(request.registry, lambda: build(fallback), fallback_name=fallback)

"""The grammar planner's kind (``planner: stub``), registered in setup.py like any third party's."""

from __future__ import annotations

from bt_executive.llm.plan import Planner
from bt_executive.llm.plugins import PlannerRequest


def stub(request: PlannerRequest) -> Planner:
    """``planner: stub``: the grammar planner alone, no model."""
    from bt_executive.llm.grammar_planner.planner import GrammarPlanner

    return GrammarPlanner(request.registry)

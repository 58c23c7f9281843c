"""Planners: turn a task and the world state into a ``Plan`` of skill calls.

``StubPlanner`` needs no model; ``LLMPlanner`` reaches any model litellm
speaks to. Both implement the small ``Planner`` protocol in ``plan.py``.
"""

from bt_executive.llm.stub_planner import MissingSkill, RetriesExhausted, StubPlanner, UnplannableStep

__all__ = ["MissingSkill", "RetriesExhausted", "StubPlanner", "UnplannableStep"]

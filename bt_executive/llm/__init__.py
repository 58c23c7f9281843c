"""Planners: turn a task and the world state into a ``Plan`` of skill calls.

``StubPlanner`` needs no model; ``LLMPlanner`` reaches any model litellm
speaks to. Both implement the small ``Planner`` protocol in ``plan.py``.
"""

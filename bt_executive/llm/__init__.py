"""Planners: turn a task and the world state into a ``Plan`` of skill calls.

The package exports the plan contract (``plan.py``); each concern has its room:

- ``language/``: the words of tasks (lexicon, task grammar, clause order, quantities, typos);
- ``grounding/``: which world objects a task's phrases name;
- ``grammar_planner/``: the default planner's engine, no model (profiles ``auto`` and ``stub``);
- ``model/``: planning with a model through litellm (palette, prompts, repair, faithfulness);
- ``serving/``: the local llama.cpp model server;
- ``routing/`` and ``embedding/``: narrowing a large skill catalog for the model;
- ``eval/``: the planner and routing evals and their robots.
"""

from bt_executive.llm.plan import Plan, Planner, PlannerError, PlannerRefused, RefusalKind

__all__ = ["Plan", "Planner", "PlannerError", "PlannerRefused", "RefusalKind"]

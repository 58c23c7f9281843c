"""Evals: the planner and routing evals, their robots and synthetic catalogs."""

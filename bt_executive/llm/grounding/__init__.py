"""Grounding: which world objects a task's phrases name (matching, categories, object arguments)."""

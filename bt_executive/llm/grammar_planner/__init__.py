"""The grammar planner: the default planner's engine (profile names ``auto`` and ``stub``), no model."""

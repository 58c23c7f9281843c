"""Trees: from a ``Plan`` to a ticking py_trees tree, and back out to people.

- ``compiler`` (``PlanCompiler``): a plan becomes ``Plan #k`` of steps, each a
  recovery fallback around a PPA node (``step_nodes``) with the replan node
  (``replan``) last; ``task_tree.TaskTree`` owns one task's tree, its context
  (``task_context``), grafts and final reason.
- ``plan_check``: known skills, valid arguments and preconditions that can hold,
  before anything moves; ``recovery``: the per-kind strategy table (config/recovery.yaml).
- ``yaml_tree`` / ``tree_spec``: hand-written trees in YAML; ``leaf_factory``: how
  a call becomes its leaf.
- ``snapshot`` (py_trees_js format) and the exporters (ascii, dot/svg/png,
  BehaviorTree.CPP v4 XML).
"""

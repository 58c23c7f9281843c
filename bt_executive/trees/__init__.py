"""Trees: the compiler from a ``Plan`` to a py_trees subtree, recovery and replan nodes,
tree fixtures and exporters (ascii, dot, py_trees_js snapshots, BehaviorTree.CPP XML).
"""

"""Interop with the tools roboticists already use: BehaviorTree.CPP, py_trees_ros snapshot streams, Groot2."""

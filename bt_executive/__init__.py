"""bt_executive: a behaviour-tree robot executive.

A natural-language task goes to a planner, the planner answers with a plan of
skill calls, and the plan compiles into a py_trees subtree whose leaves drive
ROS 2 action servers or VLA policies. The subpackages are the rooms of
DESIGN.md; imports flow ``skills <- llm <- trees <- executive`` and ``sim``
depends on ``skills`` only.
"""

__version__ = "0.1.0"

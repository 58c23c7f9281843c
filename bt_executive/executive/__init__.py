"""The executive: the ROS 2 node that owns and ticks the tree, task intake, snapshots,
the command line, the viewer server and launch support. Only entry points import it.
"""

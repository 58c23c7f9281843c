"""The executive: the ROS 2 node that owns and ticks the tree, task intake, snapshot
and event publishing, run directories and the viewer server. The command line
(`bt_executive.cli`) sits on top of it.
"""

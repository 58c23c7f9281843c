"""The ``bt-executive`` command line: one module per subcommand, ``main`` the entry point.

Nothing imports this room but the console script (and the tests); each command
is a thin layer over the executive, the planners, the trees and the sim.
"""

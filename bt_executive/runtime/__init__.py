"""Process plumbing every room may use: where files live (``paths``) and how the process runs (``tuning``).

The bottom room: it imports nothing else of the project.
"""

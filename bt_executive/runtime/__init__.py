"""Process plumbing every room may use: where files live (``paths``), how the process runs (``tuning``).

A server the process runs on 127.0.0.1 is a ``local_server.LocalServer``.

The bottom room: it imports nothing else of the project.
"""

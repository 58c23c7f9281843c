"""Free TCP ports for the Groot2 tests (Groot2Publisher binds a port and the next one)."""

from __future__ import annotations

import random
import socket


def free_port_pair() -> int:
    """A port P with P and P + 1 free on 127.0.0.1 (Groot2Publisher binds both)."""
    for _ in range(100):
        port = random.randrange(20000, 40000, 2)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
    raise RuntimeError("no free port pair")

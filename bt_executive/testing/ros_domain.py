"""One ROS domain id per pytest process, so test runs on one machine never hear each other.

DDS discovery is per domain: two pytest processes (two checkouts, xdist
workers, a CI job beside a developer's run) on one domain would see each
other's nodes and answer each other's goals. Each process therefore reserves
one domain id for its whole session, by ``ros-domain-coordinator``'s scheme:
holding TCP port ``32768 + id`` bound on this machine *is* owning domain
``id`` (1..100), and the kernel frees the port when the process dies, so a
crashed run never leaks a reservation. ``tests/test_interfaces.py`` reserves
ids the same way, so it and these fixtures never collide either.

Tests inside one session share the domain; they stay apart by namespace
(see ``ros_harness``), and each gets its own ``rclpy.Context``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

DOMAIN_IDS = 100
"""ros-domain-coordinator hands out ids 1..100 (all safe for Fast DDS's port mapping)."""


class _FromProcessId:
    """Selector that starts at a pid-derived id, so concurrent runs rarely probe the same ports."""

    def __init__(self) -> None:
        self._next = os.getpid() % DOMAIN_IDS

    def __call__(self) -> int:
        value = self._next % DOMAIN_IDS + 1
        self._next += 1
        return value


@contextmanager
def reserve_domain_id() -> Iterator[int]:
    """Hold a ROS domain id no other process on this machine holds, until the block ends."""
    import domain_coordinator  # only ROS test runs need it installed

    with domain_coordinator.domain_id(_FromProcessId()) as domain_id:
        yield int(domain_id)

"""Fixtures shared by the sim tests: a fresh tabletop backend per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bt_executive.sim.backend import SimBackend


@pytest.fixture
def backend() -> Iterator[SimBackend]:
    """The shipped tabletop scene with layout seed 0, closed after the test."""
    b = SimBackend.from_files(seed=0)
    yield b
    b.close()

"""Shared test setup: paths to fixtures. The bt_executive.testing plugin supplies the fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


@pytest.fixture(scope="session")
def bad_manifests_dir() -> Path:
    """The directory of deliberately broken manifests."""
    return TESTS / "fixtures" / "bad_manifests"

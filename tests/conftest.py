"""Shared test setup: paths to fixtures, and a watchdog per test (the bt_executive.testing plugin has the fixtures)."""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
WATCHDOG_S = float(os.environ.get("BT_EXECUTIVE_TEST_WATCHDOG_S", "600"))
"""A test (setup, call and teardown) still running after this long dumps every thread's stack and ends the run.

A hang must fail loudly, with its stacks, not eat CI's time in silence. Fast DDS 3.2 can deadlock two of
its own threads when a remote participant's endpoints go away while its liveliness timer fires (seen
under load at a harness teardown: eProsima/Fast-DDS#6502, open upstream); the watchdog is a C thread, so
it fires even when the stuck thread holds the GIL. 0 turns it off."""


_watchdog_out: list[TextIO] = []


def pytest_configure(config: pytest.Config) -> None:
    """Keep a handle on the real stderr: pytest captures fd 2 while a test runs, and the dump must be seen."""
    capture = getattr(config.pluginmanager.getplugin("capturemanager"), "_global_capturing", None)
    saved = getattr(getattr(capture, "err", None), "targetfd_save", None)
    _watchdog_out.append(os.fdopen(os.dup(saved if isinstance(saved, int) else 2), "w"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Arm the watchdog around the whole of one test (its stacks name the test's frames when it fires)."""
    if WATCHDOG_S > 0 and _watchdog_out:
        faulthandler.dump_traceback_later(WATCHDOG_S, exit=True, file=_watchdog_out[0])
    try:
        yield
    finally:
        if WATCHDOG_S > 0:
            faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def bad_manifests_dir() -> Path:
    """The directory of deliberately broken manifests."""
    return TESTS / "fixtures" / "bad_manifests"

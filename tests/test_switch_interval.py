"""The control switch interval is only ever shortened: a process that set a shorter one keeps it."""

from __future__ import annotations

import sys

from bt_executive.runtime.tuning import CONTROL_SWITCH_INTERVAL_S, use_control_switch_interval


def test_the_switch_interval_is_shortened_to_the_control_value_and_never_lengthened() -> None:
    saved = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        use_control_switch_interval()
        shortened = sys.getswitchinterval()
        sys.setswitchinterval(0.0001)
        shorter = sys.getswitchinterval()  # CPython keeps microseconds: read back what it holds
        use_control_switch_interval()
        assert (shortened, sys.getswitchinterval()) == (CONTROL_SWITCH_INTERVAL_S, shorter)
    finally:
        sys.setswitchinterval(saved)

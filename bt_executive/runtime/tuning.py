"""How a long-running process of the project runs: a short GIL switch interval and start-up objects frozen.

Both are process-wide and set once by ``serve`` (and the GIL interval by every ``RosRobot``); the
measurements behind each are in its function's docstring.
"""

from __future__ import annotations

import gc
import sys

CONTROL_SWITCH_INTERVAL_S = 0.0005
"""The GIL switch interval for a process that ticks a tree or drives a robot (CPython's default: 5 ms)."""


def use_control_switch_interval() -> None:
    """Shorten this process's GIL switch interval to ``CONTROL_SWITCH_INTERVAL_S`` (never lengthen it).

    A short GIL switch interval for processes whose threads must wake on time beside rclpy's executor.

    rclpy's executor runs Python on its own threads (wait-set rebuilds, message conversion,
    callbacks). CPython hands the GIL to a waiting thread only every switch interval (5 ms by
    default), and a thread that wakes from a sleep queues behind a busy one again and again (the
    convoy effect). Measured on this 2-core machine:

    - the VLA loop's 0.1 s sleeps overshot by 0.3-0.9 s, and its rate fell to 0.4-0.8x of 10 Hz run
      to run (``benchmarks/vla_loop.py``); at 0.5 ms the worst overshoot was 20 ms and the rate 1.0x;
    - the executive's 20 Hz tick timer had periods of 100-560 ms in a soak (``benchmarks/soak.py``,
      tick p99 of the last tenth 1.7-4.4x the first); at 0.5 ms the worst tenth's p99 was 127 ms and
      the ratio 0.89x.

    The cost is more frequent GIL hand-offs, small beside a control loop or a tick that runs late.
    ``bt-executive serve`` sets it for its process, and so does every ``RosRobot``.
    The interval is process-wide, so it is only ever shortened, never lengthened.
    """
    if sys.getswitchinterval() > CONTROL_SWITCH_INTERVAL_S:
        sys.setswitchinterval(CONTROL_SWITCH_INTERVAL_S)


def freeze_startup_objects() -> int:
    """Collect once, then move every surviving object to the permanent generation; how many were frozen.

    Keep a long-running process's start-up objects out of the cyclic garbage collector's full passes.

    A full (generation 2) collection walks every tracked object, and most of them are the
    modules, schemas and message types loaded at start-up, which live as long as the process.
    Measured in ``benchmarks/soak.py`` (``bt-executive serve``, ~70 k objects at start-up): a
    full collection every 7-8 s took 27-50 ms with the GIL held, long enough to delay the 20 Hz
    tick timer by a period each time; with them frozen, 4-11 ms. ``gc.freeze()`` after start-up
    moves those objects to the permanent generation, which collections skip; what tasks
    allocate afterwards is collected as before. Freezing once is safe: the objects are alive,
    and a frozen object that later loses its last reference is still freed by reference
    counting (only a frozen *cycle* would stay).
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()

"""run_tree: tick a tree until it ends, with a tick bound, and measure how long each tick took.

::

    run = run_tree(root, max_ticks=500, period_s=0.01)
    assert run.status == py_trees.common.Status.SUCCESS
    assert run.longest_tick_s < 0.005          # leaves never block the tick

Ticks ``root.tick_once()`` (NOTES.md: ``BehaviourTree.tick()`` walks the whole
tree for visitors every tick) at a fixed period, sleeping between ticks, and
stops at the first SUCCESS or FAILURE, when ``until()`` holds, or after
``max_ticks`` (then the status is still RUNNING and the tree keeps running:
the caller halts it, e.g. ``root.stop(Status.INVALID)``). Only the ticks are
timed: the sleeps and ``until`` are not.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import py_trees


@dataclass(frozen=True)
class TreeRun:
    """How a run ended, how many ticks it took, and what the ticks cost."""

    status: py_trees.common.Status
    ticks: int
    longest_tick_s: float
    elapsed_s: float
    tick_durations_s: tuple[float, ...]

    def tick_percentile_s(self, q: float) -> float:
        """The ``q``-th percentile (0..100) of the tick durations, nearest rank."""
        if not 0.0 <= q <= 100.0:
            raise ValueError("q is a percentage, 0..100")
        ordered = sorted(self.tick_durations_s)
        rank = max(1, math.ceil(q / 100.0 * len(ordered)))
        return ordered[rank - 1]

    @property
    def finished(self) -> bool:
        """Whether the tree reached SUCCESS or FAILURE."""
        return self.status.value in ("SUCCESS", "FAILURE")


def run_tree(
    root: py_trees.behaviour.Behaviour | py_trees.trees.BehaviourTree,
    max_ticks: int = 1000,
    period_s: float = 0.01,
    *,
    until: Callable[[], bool] | None = None,
) -> TreeRun:
    """Tick ``root`` every ``period_s`` until it ends, ``until()`` holds, or ``max_ticks`` ticks have run."""
    from py_trees.common import Status
    from py_trees.trees import BehaviourTree

    if max_ticks < 1:
        raise ValueError("max_ticks must be at least 1")
    behaviour = root.root if isinstance(root, BehaviourTree) else root
    durations: list[float] = []
    started = time.perf_counter()
    next_tick = started
    status = behaviour.status
    for _ in range(max_ticks):
        tick_start = time.perf_counter()
        behaviour.tick_once()
        durations.append(time.perf_counter() - tick_start)
        status = behaviour.status
        if status in (Status.SUCCESS, Status.FAILURE) or (until is not None and until()):
            break
        next_tick += period_s
        pause = next_tick - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        else:
            next_tick = time.perf_counter()  # fell behind: do not burst to catch up
    return TreeRun(
        status=status,
        ticks=len(durations),
        longest_tick_s=max(durations),
        elapsed_s=time.perf_counter() - started,
        tick_durations_s=tuple(durations),
    )

"""A short soak in CI: 30 mixed tasks through ``bt-executive serve`` and the sim, as separate processes,
with the executive deactivated and activated (lifecycle) twice on the way.

``benchmarks/soak.py --tasks 500`` is the measurement; this is its CI guard,
through the same functions. It asserts counts, never times: every task ended
and none hung; the executive's waitables, DDS endpoints, threads and open fds
are the same in the last tenth of the run as in the first; RSS gets only a
generous bound (before shared clients it grew ~1-1.7 MB per task).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from benchmarks.soak import SoakReport, TaskSample, run_soak

pytestmark = [pytest.mark.ros, pytest.mark.sim, pytest.mark.slow]

TASKS = 30
CYCLE_EVERY = 10
"""A lifecycle manager deactivates and activates the executive after every 10th task: twice in the run."""
RSS_BOUND_KB_PER_TASK = 300.0
"""Generous: allocator warm-up and caches filling count here over only 30 tasks."""


@pytest.fixture(scope="module")
def report() -> Iterator[SoakReport]:
    saved = dict(os.environ)  # run_soak points this process at its own ROS domain
    try:
        yield run_soak(TASKS, preempt_every=5, refuse_every=11, cycle_every=CYCLE_EVERY, task_timeout_s=60.0)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def read(sample: TaskSample, field: str) -> float | None:
    """A count after one task: threads and fds from /proc, the rest from the executive's own record."""
    if field in ("threads", "fds"):
        return float(getattr(sample, field))
    value = sample.record.get(field)
    return None if value is None else float(value)


def first_and_last(report: SoakReport, field: str) -> tuple[float, float]:
    """The most ``field`` reached in the first half of the run, and its median over the last tenth.

    The most, not the median: a pool that fills on demand up to its bound (the executor's worker
    threads) is warm-up, and on a busy computer it can fill a few tasks late (under two CPU hogs one
    more worker was made after the first tenth). Growth per task, or per lifecycle cycle (one falls
    in each half), shows as a last tenth above anything the first half reached.
    """
    tenth = max(1, len(report.samples) // 10)
    half = max(1, len(report.samples) // 2)
    first = [v for v in (read(s, field) for s in report.samples[:half]) if v is not None]
    last = sorted(v for v in (read(s, field) for s in report.samples[-tenth:]) if v is not None)
    assert first, f"no {field} in the first half"
    assert last, f"no {field} in the last tenth"
    return max(first), last[len(last) // 2]


def test_every_task_ended_and_none_hung(report: SoakReport) -> None:
    figures = report.figures()
    assert (figures["tasks"], figures["ended"], figures["hung"]) == (TASKS, TASKS, 0)


def test_the_run_had_preemptions_and_refusals_in_it(report: SoakReport) -> None:
    endings = {(sample.kind, sample.final_reason) for sample in report.samples}
    assert {("preempted", "preempted"), ("refused", "planner_refused")} <= endings


def test_every_deactivate_activate_cycle_succeeded_and_the_next_task_ran(report: SoakReport) -> None:
    after_cycles = [report.samples[n].final_reason for n in range(CYCLE_EVERY, TASKS, CYCLE_EVERY)]
    assert (report.cycles, [r for r in after_cycles if r == "inactive"]) == ([True, True], [])


def test_the_executive_reported_every_task(report: SoakReport) -> None:
    assert [sample.index for sample in report.samples if not sample.record] == []


@pytest.mark.parametrize("field", ["waitables", "endpoints", "subscriptions", "timers", "threads", "fds"])
def test_resource_counts_are_flat_from_the_first_half_to_the_last_tenth(report: SoakReport, field: str) -> None:
    first, last = first_and_last(report, field)
    assert last <= first, f"{field}: at most {first:g} in the first half, {last:g} in the last tenth"


def test_rss_growth_per_task_stays_within_a_generous_bound(report: SoakReport) -> None:
    growth = report.figures()["rss_growth_kb_per_task"]
    assert growth <= RSS_BOUND_KB_PER_TASK, f"{growth} kB per task"

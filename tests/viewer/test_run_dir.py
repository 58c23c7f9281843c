"""Run directories: written while a task runs, read back for runs list/show and the viewer."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bt_executive.executive.run_dir import (
    EVENTS_FILE,
    RunReader,
    RunWriter,
    list_runs,
    resolve_run,
    slug,
)
from bt_executive.runtime.paths import default_runs_root
from bt_executive.trees.task_context import TaskEvent

NOON = datetime(2025, 1, 2, 12, 0, 0, tzinfo=UTC)


def test_a_run_directory_is_named_by_utc_time_and_task_slug(tmp_path: Path) -> None:
    writer = RunWriter.create(tmp_path, "Put the red cube on the plate!", "stub", now=NOON)
    writer.close()
    assert writer.path.name == "20250102-120000-put-the-red-cube-on-the-plate"


def test_two_runs_in_the_same_second_get_distinct_directories(tmp_path: Path) -> None:
    first = RunWriter.create(tmp_path, "task", "stub", now=NOON)
    second = RunWriter.create(tmp_path, "task", "stub", now=NOON)
    first.close()
    second.close()
    assert (first.path.name, second.path.name) == ("20250102-120000-task", "20250102-120000-task-2")


def test_a_recorded_run_reads_back_whole(recorded_run: Path) -> None:
    reader = RunReader(recorded_run)
    outcome = reader.outcome()
    assert outcome is not None
    assert (
        reader.info().task,
        next(e.kind for e in reader.events()),
        [e.kind for e in reader.events()][-1],
        len(reader.plans()),
        outcome.final_reason,
    ) == ("put the red cube on the plate", "task", "final", 2, "done")


def test_each_snapshot_points_at_the_last_event_before_it(recorded_run: Path) -> None:
    reader = RunReader(recorded_run)
    snapshots = reader.snapshots()
    indexes = [s.event_index for s in snapshots]
    assert len(snapshots) >= 3
    assert indexes == sorted(indexes)
    assert indexes[-1] == len(reader.events()) - 1


def test_the_summary_counts_steps_retries_and_replans(recorded_run: Path) -> None:
    summary = RunReader(recorded_run).summary()
    assert (summary.final_reason, summary.steps, summary.attempts, summary.retries, summary.replans) == (
        "done",
        3,
        4,
        1,
        1,
    )


def test_plans_json_follows_plan_events_before_the_task_ends(tmp_path: Path) -> None:
    writer = RunWriter.create(tmp_path, "task", "stub")
    steps = [{"skill": "tabletop/home", "args": {}}]
    writer.event(TaskEvent(kind="plan", t=0.1, plan=0, data={"planner": "stub", "notes": "", "steps": steps}))
    assert [p.steps[0].skill for p in RunReader(writer.path).plans()] == ["tabletop/home"]
    writer.close()


def test_a_torn_last_line_is_skipped_and_the_run_counts_as_running(tmp_path: Path) -> None:
    writer = RunWriter.create(tmp_path, "task", "stub")
    writer.event(TaskEvent(kind="task", t=0.0, data={"task": "task"}))
    writer.close()
    with (writer.path / EVENTS_FILE).open("a") as log:
        log.write('{"index": 1, "event": {"kind": "pla')
    reader = RunReader(writer.path)
    assert (len(reader.events()), reader.summary().final_reason) == (1, "running")


def test_a_corrupt_line_in_the_middle_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    writer = RunWriter.create(tmp_path, "task", "stub")
    writer.close()
    (writer.path / EVENTS_FILE).write_text('not json\n{"index": 0, "event": {"kind": "task", "t": 0}}\n')
    with pytest.raises(ValueError, match=r"events\.jsonl:1: not JSON"):
        RunReader(writer.path).events()


def test_a_folder_without_task_json_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a run directory"):
        RunReader(tmp_path)


def test_runs_are_listed_oldest_first_and_latest_resolves_to_the_newest(tmp_path: Path) -> None:
    for hour in (9, 12, 10):
        RunWriter.create(tmp_path, f"task at {hour}", "stub", now=NOON.replace(hour=hour)).close()
    runs = list_runs(tmp_path)
    assert ([r.task for r in runs], resolve_run("latest", tmp_path).name) == (
        ["task at 9", "task at 10", "task at 12"],
        "20250102-120000-task-at-12",
    )


def test_the_runs_root_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BT_EXECUTIVE_RUNS", str(tmp_path / "mine"))
    assert default_runs_root() == tmp_path / "mine"


def test_a_task_with_no_usable_characters_still_gets_a_slug() -> None:
    assert (slug("¿¡!"), slug("Pick   the cube")) == ("task", "pick-the-cube")

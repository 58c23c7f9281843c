"""``bt-executive runs list`` and ``runs show`` on a recorded run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bt_executive.cli.main import main


def test_runs_list_shows_one_row_per_run_with_its_counts(
    recorded_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["runs", "list", "--root", str(recorded_run.parent)]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["run", "task", "final_reason", "steps", "retries", "replans", "duration"]
    assert row.startswith(recorded_run.name)
    assert row.split()[-5:-1] == ["done", "3", "1", "1"]


def test_runs_list_as_json(recorded_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["runs", "list", "--root", str(recorded_run.parent), "--json"])
    [run] = json.loads(capsys.readouterr().out)
    assert (run["run"], run["final_reason"], run["replans"]) == (recorded_run.name, "done", 1)


def test_runs_show_tells_plans_attempts_with_kinds_and_the_ending(
    recorded_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["runs", "show", "latest", "--root", str(recorded_run.parent)]) == 0
    out = capsys.readouterr().out
    for expected in (
        "plan #0 (scripted): pick(red_cube), place_on(plate)",
        "step 1 pick(red_cube)  failed missed_grasp: scripted_missed_grasp",
        "retry 1/2 after missed_grasp",
        "failed not_found: scripted_not_found",
        "plan #1 (scripted): pick(green_cube), place_on(plate)  -- red cube gone",
        "final     done",
    ):
        assert expected in out, expected


def test_runs_show_of_an_unknown_run_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "show", "nope", "--root", str(tmp_path)]) == 2
    assert "no run 'nope'" in capsys.readouterr().err


def test_runs_list_of_an_empty_root_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "list", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("no runs under")


def test_runs_show_of_a_run_without_cameras_says_it_kept_no_frames(
    recorded_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["runs", "show", str(recorded_run)])
    assert capsys.readouterr().out.rstrip().endswith("frames    none")


def test_runs_report_of_a_run_without_frames_still_tells_plans_trees_and_events(
    recorded_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.html"
    assert main(["runs", "report", str(recorded_run), "-o", str(report)]) == 0
    page = report.read_text()
    assert (page.count('<section class="moment"') > 3, "pick(green_cube)" in page, "src=" in page) == (
        True,
        True,
        False,
    )
    assert "failed missed_grasp: scripted_missed_grasp" in page

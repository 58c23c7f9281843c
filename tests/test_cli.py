"""The command line: `skills list`, `skills validate` and `skills schema`, as a user runs them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bt_executive.cli.main import main

REPO = Path(__file__).resolve().parents[1]
BAD = REPO / "tests" / "fixtures" / "bad_manifests"


def test_skills_list_prints_the_tabletop_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "list", "--no-entry-points"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()[1:14]] == [
        "builtin/check",
        "builtin/say",
        "builtin/wait",
        "tabletop/close_drawer",
        "tabletop/home",
        "tabletop/open_drawer",
        "tabletop/pick",
        "tabletop/place_on",
        "tabletop/pour",
        "tabletop/push",
        "tabletop/stack",
        "tabletop/tap",
        "tabletop/vla_manipulate",
    ]


def test_skills_list_json_filters_by_capabilities(capsys: pytest.CaptureFixture[str]) -> None:
    profile = REPO / "config" / "robots" / "pan_tilt_camera.yaml"
    assert main(["skills", "list", "--json", "--capabilities", str(profile)]) == 0
    payload = json.loads(capsys.readouterr().out)
    shown = [skill["id"] for skill in payload["skills"]]
    assert (payload["robot"], shown, len(payload["excluded"])) == (
        "pan_tilt_camera",
        ["builtin/check", "builtin/say", "builtin/wait"],  # no motion: INSPECT and no capability needed
        10,
    )


def test_validate_exits_nonzero_and_lists_every_bad_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "validate", str(BAD)]) == 1
    out = capsys.readouterr().out
    invalid = [line for line in out.splitlines() if line.startswith("invalid")]
    invalid_files = {line.split(":")[0].removeprefix("invalid ") for line in invalid}
    assert len(invalid_files) == len(list(BAD.glob("*.yaml"))) - 1  # duplicate_id.yaml is valid on its own


def test_validate_exits_zero_on_the_shipped_skills(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "validate", str(REPO / "config" / "skills")]) == 0


def test_bad_skills_dir_is_an_error_message_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "list", "--skills-dir", str(BAD), "--no-entry-points"]) == 2
    err = capsys.readouterr().err
    assert (err.startswith("error: "), "Traceback" in err) == (True, False)


def test_schema_check_passes_on_the_committed_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "schema", "--check"]) == 0


def test_installed_console_script_runs() -> None:
    exe = shutil.which("bt-executive", path=str(Path(sys.executable).parent))
    assert exe is not None, "bt-executive is not installed next to this Python"
    done = subprocess.run([exe, "skills", "list"], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, "tabletop/pick" in done.stdout) == (0, True), done.stderr


def test_run_prints_the_error_code_beside_the_final_reason() -> None:
    import io

    from bt_executive.cli.run_command import print_result
    from bt_executive.cli.task_client import TaskResult

    out = io.StringIO()
    result = TaskResult(
        success=False,
        final_reason="planner_refused",
        error_code=212,
        attempts=[],
        status=6,
        wall_s=0.4,
        detail="no_such_object: no purple cube",
    )
    print_result(result, out)
    assert "task ended: planner_refused (error_code 212) in 0.4 s" in out.getvalue()


def test_ros_arguments_that_ros2_launch_appends_are_left_to_ros(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["skills", "list", "--ros-args", "-r", "__node:=bt_executive", "-r", "__ns:=/robot1"]
    assert (main(argv), "skill(s)." in capsys.readouterr().out) == (0, True)

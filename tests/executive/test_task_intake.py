"""Hostile ExecuteTask goals are refused at intake, naming the field; the node keeps serving.

The node runs in the test process, the fake skill server in another one.
A refused goal ends ``invalid_goal`` with the problem in ``detail``, and
starts nothing: no preemption of the running task, no run directory.

rclpy cannot carry a NUL: it ends a string field at the client (measured:
``"hello\\0world"`` arrives as ``"hello"``), so NUL is checked on the
intake function directly, and over the wire a goal of only NUL arrives empty.
"""

from __future__ import annotations

import threading
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bt_executive.executive.task_intake import INVALID_GOAL, MAX_PROFILE_CHARS, check_goal
from bt_executive.llm.plan import MAX_TASK_CHARS, Plan
from bt_executive.testing import Outcome
from tests.executive.conftest import PICK, Rig, start

# the intake function -----------------------------------------------------------------------------

REFUSED: dict[str, tuple[str, str, str]] = {
    "empty": ("", "task", "empty"),
    "whitespace only": (" \t\n\u3000 ", "task", "only whitespace"),
    "100 kB": ("pick the cube " * 7300, "task", f"102200 characters; a task is at most {MAX_TASK_CHARS}"),
    "NUL": ("pick\x00 the cube", "task", "control character U+0000 (NUL) at character 5"),
    "ANSI escape": ("pick the \x1b[31mred\x1b[0m cube", "task", "control character U+001B (ESC) at character 10"),
    "carriage return": ("pick the cube\rrm -rf", "task", "control character U+000D (CARRIAGE RETURN)"),
    "C1 control": ("pick\x9b the cube", "task", "control character U+009B (C1 control)"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_hostile_task_is_refused_naming_the_field_and_the_problem(case: str) -> None:
    task, field, words = REFUSED[case]
    refusal = check_goal(task)
    found = (refusal.field, words in refusal.reason) if refusal else None
    assert found == (field, True), refusal


def test_tab_and_newline_are_allowed_in_a_task() -> None:
    assert check_goal("pick the red cube\n\tthen go home") is None


def test_a_planner_profile_with_a_control_character_is_refused() -> None:
    assert str(check_goal("pick the cube", "local\x1b")).startswith("goal.planner_profile: control character U+001B")


def test_an_overlong_planner_profile_is_refused() -> None:
    refusal = check_goal("pick the cube", "p" * (MAX_PROFILE_CHARS + 1))
    assert str(refusal).startswith(f"goal.planner_profile: {MAX_PROFILE_CHARS + 1} characters")


def test_the_refusal_never_repeats_the_offending_text() -> None:
    assert "\x1b" not in str(check_goal("\x1b[2J" + "x" * 10))


# against a running node ---------------------------------------------------------------------------

OVER_THE_WIRE = {k: v for k, v in REFUSED.items() if k != "NUL"}


@pytest.mark.ros
def test_every_hostile_goal_is_refused_then_a_good_task_still_runs(make_rig: Any, tmp_path: Path) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK,)))
    rig.server.serve("skills/pick")
    client = rig.client()
    start(rig, client)
    refused = {}
    for case, (task, field, words) in OVER_THE_WIRE.items():
        result = client.run(task, timeout_s=30)
        refused[case] = (
            result.final_reason,
            result.error_code,
            result.detail.startswith(f"goal.{field}: "),
            words in result.detail,
        )
    good = client.run("pick up the red cube", timeout_s=30)
    assert (refused, good.final_reason) == (dict.fromkeys(OVER_THE_WIRE, (INVALID_GOAL, 101, True, True)), "done")


@pytest.mark.ros
def test_a_refused_goal_leaves_no_run_directory(make_rig: Any, tmp_path: Path) -> None:
    rig: Rig = make_rig()
    rig.server.serve("skills/pick")
    client = rig.client()
    start(rig, client)
    client.run("   ", timeout_s=30)
    assert not (tmp_path / "runs").exists() or list((tmp_path / "runs").iterdir()) == []


@pytest.mark.ros
def test_a_refused_goal_does_not_preempt_the_running_task(make_rig: Any) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK,)))
    rig.server.serve("skills/pick", Outcome(hang=True))
    first, second = rig.client(), rig.client()
    start(rig, first, second)
    results: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: results.update(first=first.run("pick the red cube", timeout_s=30)))
    runner.start()
    rig.server.wait_for(lambda events: any(e.event == "goal" for e in events), timeout_s=15)
    refused = second.run("\x1b[2J", timeout_s=30)
    still_running = rig.server.cancels("skills/pick") == []
    first.cancel()
    runner.join(timeout=30)
    assert (refused.final_reason, still_running, results["first"].final_reason) == (INVALID_GOAL, True, "preempted")


def _arrives_as(task: str) -> str:
    """What a task sent through rclpy arrives as: the string ends at its first NUL."""
    return task.split("\x00", 1)[0]


hostile_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
"""Any text rclpy can encode (no lone surrogates), control characters included."""

tasks = st.one_of(
    hostile_text,
    st.text(st.sampled_from(" \t\n\r\x00\x1b\x07\x7f\x85\x9b\u3000a"), max_size=20),
    st.builds(lambda n, c: c * n, st.integers(MAX_TASK_CHARS - 2, 120_000), st.sampled_from(["a", " ", "é"])),
)


profiles = st.just("") | st.sampled_from(["stub", "local\x1b", "p" * (MAX_PROFILE_CHARS + 1)]) | hostile_text
"""Mostly the default profile: a goal past the intake then reaches the (empty) scripted planner."""


@pytest.mark.ros
def test_fuzzed_goals_are_answered_and_refused_exactly_when_the_intake_says_so(make_rig: Any) -> None:
    rig: Rig = make_rig()  # no plans: a goal past the intake ends planner_error, at once
    rig.server.serve("skills/pick")
    client = rig.client()
    start(rig, client)
    answers: list[tuple[str, str]] = []

    @settings(max_examples=25, deadline=None, database=None)
    @given(task=tasks, profile=profiles)
    def send(task: str, profile: str) -> None:
        result = client.run(task, planner=profile, timeout_s=30)
        expected = check_goal(_arrives_as(task), _arrives_as(profile))
        answers.append((result.final_reason, result.detail))
        assert (result.final_reason == INVALID_GOAL, result.detail if expected else None) == (
            expected is not None,
            str(expected) if expected else None,
        )

    send()
    clean = all(unicodedata.category(c) != "Cc" for _, detail in answers for c in detail.replace("\n", ""))
    assert (len(answers) >= 25, clean) == (True, True)

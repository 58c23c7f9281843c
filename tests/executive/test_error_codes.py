"""ExecuteTask's error codes: every ending has one number of its own, and the action file declares the same.

The table (``executive/error_codes.py``) must grow with the enums it covers: a new
final reason, refusal kind or failure kind without a code fails here, naming it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bt_executive.executive.error_codes import (
    ABORT_CODES,
    FINAL_REASON_CODES,
    NONE,
    REFUSAL_CODES,
    UNKNOWN,
    constant_names,
    error_code,
)
from bt_executive.executive.task_intake import INACTIVE, INVALID_GOAL
from bt_executive.llm.plan import RefusalKind
from bt_executive.skills.failures import FailureKind
from bt_executive.trees.task_context import FinalReason

ACTION_FILE = Path(__file__).resolve().parents[2] / "bt_executive_interfaces" / "action" / "ExecuteTask.action"


def _declared_constants() -> dict[str, int]:
    """``uint16 NAME=VALUE`` lines of the action file's result section."""
    result_section = ACTION_FILE.read_text().split("---")[1]
    return {m[1]: int(m[2]) for m in re.finditer(r"^uint16\s+([A-Z_]+)=(\d+)", result_section, re.MULTILINE)}


def test_every_final_reason_has_a_code() -> None:
    reasons = [r.value for r in FinalReason] + [INVALID_GOAL, INACTIVE]
    assert [r for r in reasons if r not in FINAL_REASON_CODES] == []


def test_every_refusal_kind_has_a_code() -> None:
    assert [k.value for k in RefusalKind if k.value not in REFUSAL_CODES] == []


def test_unfaithful_has_its_code_before_the_enum_may_have_it() -> None:
    assert error_code("planner_refused", "unfaithful") == 217


def test_every_failure_kind_has_an_abort_code() -> None:
    assert [k.value for k in FailureKind if k.value not in ABORT_CODES] == []


def test_no_two_endings_share_a_code() -> None:
    codes = [*FINAL_REASON_CODES.values(), *REFUSAL_CODES.values(), *ABORT_CODES.values(), UNKNOWN]
    assert sorted(c for c in set(codes) if codes.count(c) > 1) == []


def test_codes_sit_in_their_cause_s_range() -> None:
    assert (
        all(200 < c < 300 for c in REFUSAL_CODES.values()),
        all(400 < c < 500 for c in ABORT_CODES.values()),
        FINAL_REASON_CODES["done"],
    ) == (True, True, NONE)


@pytest.mark.parametrize(
    ("final_reason", "refusal_kind", "code"),
    [
        ("done", None, 0),
        ("invalid_goal", None, 101),
        ("inactive", None, 102),
        ("planner_error", None, 200),
        ("planner_refused", "no_such_object", 212),
        ("planner_refused", None, 210),
        ("planner_refused", "a_kind_with_no_code", 210),
        ("preempted", None, 301),
        ("aborted:missed_grasp", None, 403),
        ("aborted:a_kind_with_no_code", None, 400),
        ("something_new", None, UNKNOWN),
    ],
)
def test_an_ending_maps_to_its_code(final_reason: str, refusal_kind: str | None, code: int) -> None:
    assert error_code(final_reason, refusal_kind) == code


def test_the_action_file_declares_exactly_the_tables_codes() -> None:
    assert _declared_constants() == constant_names()


@pytest.mark.ros
def test_the_built_interface_carries_the_codes() -> None:
    from bt_executive_interfaces.action import ExecuteTask

    result = ExecuteTask.Result()
    assert (result.error_code, ExecuteTask.Result.REFUSED_UNFAITHFUL, ExecuteTask.Result.ABORTED_SENSOR_STALE) == (
        0,
        217,
        415,
    )

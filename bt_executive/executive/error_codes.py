"""ExecuteTask's ``error_code``: one stable number per way a task ends, for clients that switch on it.

``final_reason`` is a word a person reads; a client that branches on it
compares strings that may grow (``aborted:<kind>``). Nav2 answers every
action with a numeric ``error_code`` in ranges per cause, and so does
ExecuteTask::

    0         done (NONE)
    1         a final reason this table does not know (UNKNOWN): never sent on purpose
    100-199   the goal never started: invalid_goal 101, inactive 102
    200-299   the planner: planner_error 200, planner_refused 210 (kind not given),
              one code per refusal kind from 211
    300-399   the run: replan_exhausted 300, preempted 301, lost 302
    400-499   aborted:<failure kind>: aborted 400 (kind not given), one code per kind from 401

Every number is written out here, never derived from an enum's order, so a
new kind never renumbers an old one. ``bt_executive_interfaces/action/
ExecuteTask.action`` declares the same numbers as constants of the result
(``REFUSED_NO_SUCH_OBJECT``, ``ABORTED_MISSED_GRASP``, ...);
``tests/executive/test_error_codes.py`` fails when the two drift, or when a
final reason, a refusal kind or a failure kind has no code.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from bt_executive.executive.task_intake import INACTIVE, INVALID_GOAL
from bt_executive.trees.task_context import FinalReason

NONE: Final = 0
"""``done``: the task ended with its goal holding."""
UNKNOWN: Final = 1
"""A final reason with no code (a bug the table's test catches); an uncoded kind gets its reason's code."""

FINAL_REASON_CODES: Final[Mapping[str, int]] = MappingProxyType(
    {
        FinalReason.DONE.value: NONE,
        INVALID_GOAL: 101,
        INACTIVE: 102,
        FinalReason.PLANNER_ERROR.value: 200,
        FinalReason.PLANNER_REFUSED.value: 210,
        FinalReason.REPLAN_EXHAUSTED.value: 300,
        FinalReason.PREEMPTED.value: 301,
        FinalReason.LOST.value: 302,
        FinalReason.ABORTED.value: 400,
    }
)
"""Each final reason's code (``planner_refused`` and ``aborted`` are refined by the tables below)."""

REFUSAL_CODES: Final[Mapping[str, int]] = MappingProxyType(
    {
        "out_of_scope": 211,
        "no_such_object": 212,
        "ambiguous": 213,
        "not_afforded": 214,
        "missing_skill": 215,
        "unsafe": 216,
        "unfaithful": 217,
    }
)
"""``planner_refused`` by refusal kind (``llm.plan.RefusalKind`` values), keyed by value so a kind
can have its code before the enum has the member."""

ABORT_CODES: Final[Mapping[str, int]] = MappingProxyType(
    {
        "not_found": 401,
        "unreachable": 402,
        "missed_grasp": 403,
        "collision": 404,
        "timeout": 405,
        "preempted": 406,
        "rejected": 407,
        "server_unavailable": 408,
        "invalid_params": 409,
        "precondition_failed": 410,
        "postcondition_failed": 411,
        "policy_error": 412,
        "aborted": 413,
        "unknown": 414,
        "sensor_stale": 415,
    }
)
"""``aborted:<kind>`` by failure kind (``skills.failures.FailureKind`` values)."""


def error_code(final_reason: str, refusal_kind: str | None = None) -> int:
    """The code of a task that ended with ``final_reason`` (and, when refused, ``refusal_kind``)."""
    if final_reason == FinalReason.PLANNER_REFUSED.value:
        return REFUSAL_CODES.get(refusal_kind or "", FINAL_REASON_CODES[final_reason])
    base, colon, kind = final_reason.partition(":")
    if colon and base == FinalReason.ABORTED.value:
        return ABORT_CODES.get(kind, FINAL_REASON_CODES[base])
    return FINAL_REASON_CODES.get(final_reason, UNKNOWN)


def constant_names() -> dict[str, int]:
    """The result constants ExecuteTask.action must declare: ``NONE``, ``REFUSED_<KIND>``, ``ABORTED_<KIND>``..."""
    names = {"NONE": NONE, "UNKNOWN": UNKNOWN}
    names.update({reason.upper(): code for reason, code in FINAL_REASON_CODES.items() if code != NONE})
    names.update({f"REFUSED_{kind.upper()}": code for kind, code in REFUSAL_CODES.items()})
    names.update({f"ABORTED_{kind.upper()}": code for kind, code in ABORT_CODES.items()})
    return names

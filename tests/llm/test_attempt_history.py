"""Attempt history: which object a failure blames, and where each failed call stands."""

from __future__ import annotations

from typing import Any

from bt_executive.llm.grammar_planner.attempt_history import AttemptHistory, RetryState, blamed_object, key_of
from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.failures import FailureKind


def _failed(skill: str, kind: FailureKind, detail: str = "", plan_index: int = 0, **args: Any) -> AttemptRecord:
    return AttemptRecord(
        plan_index=plan_index,
        step=0,
        call=SkillCall(skill=f"tabletop/{skill}", args=args),
        result=SkillResult.failed(kind, kind.value, detail=detail),
    )


def test_the_blamed_object_comes_from_the_evidence_first() -> None:
    record = AttemptRecord(
        step=0,
        call=SkillCall(skill="tabletop/stack", args={"object": "red_cube", "base": "blue_cube"}),
        result=SkillResult.failed(FailureKind.NOT_FOUND, "unknown_object", evidence={"object": "blue_cube"}),
    )
    assert blamed_object(record) == "blue_cube"


def test_the_blamed_object_is_found_in_the_detail_when_the_evidence_names_none() -> None:
    record = _failed(
        "stack",
        FailureKind.UNREACHABLE,
        "no arm pose reaches the place pose over blue_cube",
        object="red_cube",
        base="blue_cube",
    )
    assert blamed_object(record) == "blue_cube"


def test_without_a_clue_the_first_object_argument_is_blamed() -> None:
    assert blamed_object(_failed("push", FailureKind.UNREACHABLE, direction="left", object="red_cube")) == "red_cube"


def test_a_success_after_a_failure_clears_the_failed_call() -> None:
    record = _failed("pick", FailureKind.MISSED_GRASP, object="red_cube")
    again = record.model_copy(update={"result": SkillResult.ok()})
    history = AttemptHistory.from_attempts([record, again])
    assert history.failed == {}
    assert history.succeeded[key_of(record.call)] == 1


def test_a_home_failing_twice_is_exhausted() -> None:
    home = _failed("home", FailureKind.COLLISION)
    history = AttemptHistory.from_attempts([home, home])
    assert history.failed[key_of(home.call)].state is RetryState.EXHAUSTED


def test_preemption_teaches_nothing() -> None:
    history = AttemptHistory.from_attempts([_failed("pick", FailureKind.PREEMPTED, object="red_cube")])
    assert (history.failed, history.excluded) == ({}, {})
    assert history.replan_number == 1

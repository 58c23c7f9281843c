"""Every contract survives a JSON round trip unchanged, and refuses what it must refuse."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from bt_executive.llm.plan import Plan, Planner
from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.strategy import RecoveryStrategy
from bt_executive.skills.world_state import WorldState

from .strategies import attempts, manifests, plans, robots, skill_calls, skill_results, strategies, world_states

ROUND_TRIP = settings(max_examples=60, deadline=None)


def _round_trip(model: BaseModel) -> BaseModel:
    return type(model).model_validate_json(model.model_dump_json())


@ROUND_TRIP
@given(st.one_of(manifests(), skill_calls, skill_results(), attempts, plans, robots, world_states, strategies))
def test_every_contract_round_trips_through_json(model: BaseModel) -> None:
    assert _round_trip(model) == model


@ROUND_TRIP
@given(manifests())
def test_manifest_round_trips_through_python_dump(manifest: SkillManifest) -> None:
    assert SkillManifest.model_validate(manifest.model_dump()) == manifest


def test_failure_taxonomy_is_exactly_the_designed_set() -> None:
    assert {k.value for k in FailureKind} == {
        "not_found",
        "unreachable",
        "missed_grasp",
        "collision",
        "timeout",
        "preempted",
        "rejected",
        "server_unavailable",
        "invalid_params",
        "precondition_failed",
        "postcondition_failed",
        "policy_error",
        "aborted",
        "unknown",
        "sensor_stale",
    }


@pytest.mark.parametrize(
    "data",
    [
        {"success": True, "failure_kind": "timeout"},
        {"success": False},
        {"success": False, "failure_kind": "exploded"},
        {"success": True, "reason": "x" * 201},
        {"success": True, "duration_s": -1},
    ],
)
def test_inconsistent_skill_results_are_refused(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        SkillResult.model_validate(data)


def test_skill_call_refuses_an_id_without_owner() -> None:
    with pytest.raises(ValidationError, match="skill"):
        SkillCall(skill="pick")


def test_skill_call_label_reads_well_in_a_viewer() -> None:
    call = SkillCall(skill="tabletop/place_on", args={"target": "green_plate"})
    assert call.label() == "place_on(green_plate)"


def test_contracts_are_frozen() -> None:
    call = SkillCall(skill="tabletop/pick", args={"object": "red_cube"})
    with pytest.raises(ValidationError):
        call.skill = "tabletop/home"  # type: ignore[misc]


def test_empty_plan_means_already_done() -> None:
    assert (Plan().is_done, Plan(steps=(SkillCall(skill="tabletop/home"),)).is_done) == (True, False)


def test_a_ten_line_class_satisfies_the_planner_protocol() -> None:
    class Fixed:
        def plan(self, task: str, world_state: WorldState, prior_attempts: Any = ()) -> Plan:
            return Plan(steps=(SkillCall(skill="tabletop/home"),), planner="fixed")

    assert isinstance(Fixed(), Planner)


def test_attempt_record_carries_call_and_result() -> None:
    record = AttemptRecord(
        step=1,
        call=SkillCall(skill="tabletop/pick", args={"object": "red_cube"}),
        result=SkillResult.failed(FailureKind.NOT_FOUND, "no red_cube in view"),
    )
    assert record.result.failure_kind is FailureKind.NOT_FOUND


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("retry(2)", "retry(2)"),
        ("retry( 3 , backoff=0.5 )", "retry(3, backoff=0.5)"),
        ("recover(home_then_retry)", "recover(home_then_retry)"),
        ("replan", "replan"),
        ("abort", "abort"),
    ],
)
def test_strategy_short_form_parses_and_prints_back(text: str, expected: str) -> None:
    assert str(RecoveryStrategy.model_validate(text)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "retry",
        "retry(0)",
        "retry(11)",
        "retry(x)",
        "retry(2, jitter=1)",
        "recover",
        "recover(a, b)",
        "replan(1)",
        "explode",
        "retry(2",
    ],
)
def test_bad_strategies_are_refused(text: str) -> None:
    with pytest.raises(ValidationError):
        RecoveryStrategy.model_validate(text)


def test_robot_capabilities_tokens_cover_hardware() -> None:
    robot = RobotCapabilities(name="r", arms=2, gripper=True, cameras=("wrist",), provides=("lidar",))
    assert robot.tokens() == {"arm", "dual_arm", "gripper", "camera", "camera:wrist", "lidar"}


def test_a_refusal_is_a_planner_error_that_names_its_kind_and_candidates() -> None:
    from bt_executive.llm.plan import PlannerError, PlannerRefused, RefusalKind

    refusal = PlannerRefused("no purple cube here", RefusalKind.NO_SUCH_OBJECT, candidates=("red_cube", "blue_cube"))
    assert isinstance(refusal, PlannerError)
    assert str(refusal) == "refused (no_such_object): no purple cube here (candidates: red_cube, blue_cube)"


def test_a_plan_goal_is_checked_predicate_text() -> None:
    from pydantic import ValidationError

    from bt_executive.llm.plan import Plan

    assert Plan(goal=("on( red_cube ,plate)",)).goal == ("on(red_cube, plate)",)
    with pytest.raises(ValidationError, match="unknown predicate"):
        Plan(goal=("on_top(red_cube, plate)",))
